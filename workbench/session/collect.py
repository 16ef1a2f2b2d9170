"""`workbench collect`: production's traces received live over OTLP/HTTP and added to run:NAME as
they complete, through `import_traces(spans=…)` — the code path of `import-traces` — under the
project lock, each import handed only the traces that just became ready. One function starts it
(`start_collect`, for the CLI and the TUI alike); the handle it returns gives the receiver's
address, its figures and the drain (`stop`)."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from workbench.project.files import Project
    from workbench.triage.live.import_loop import ImportLoop, Imported, Status
    from workbench.triage.live.feedback import QueryFeedback
    from workbench.triage.live.server import Receiver
    from workbench.triage.live.worker import Failure, ImportProcess

SOURCE = "otlp-http (workbench collect)"  # one source: re-imports keep the record's first import time
DEFAULT_NAME = "live"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class LiveCollect:
    """A running collection: `url`, `status()`, `stop()` (drains: every complete trace imported)."""

    def __init__(self, receiver: Receiver, collector: ImportLoop, spool: Path, lock: CollectorLock,
                 importer: ImportProcess) -> None:
        self.receiver, self.collector, self.spool, self.lock, self.importer = receiver, collector, spool, lock, importer
        self._stopped = False

    @property
    def url(self) -> str:
        return self.receiver.url

    def status(self) -> Status:
        return self.collector.snapshot()

    def stop(self) -> Status:
        if not self._stopped:
            self._stopped = True
            try:
                self.receiver.stop()  # no new request; those answered are spooled
                self.collector.stop()  # the drain
            finally:
                self.importer.close()
                self.collector.spool.close()
                self.lock.release()
        return self.collector.snapshot()


def check_token(token: str) -> None:
    """A bearer token is visible ASCII (RFC 6750's token68 is a subset): anything else could never
    match what a client sends in its Authorization header, so it is refused at start."""
    from workbench.errors import BadInput

    bad = sorted({c for c in token if not 33 <= ord(c) <= 126})
    if bad:
        shown = ", ".join(f"U+{ord(c):04X}" for c in bad[:5])
        raise BadInput(f"the bearer token holds characters an HTTP header cannot carry ({shown}); it could never match",
                       hint="use a token of visible ASCII characters (letters, digits, - . _ ~ + /)")


def start_collect(root: Path, name: str = DEFAULT_NAME, host: str = "127.0.0.1", port: int = 4318, settle_s: float = 2.0,
                  token: str | None = None, max_pending: int = 10_000, max_body_bytes: int = 16 << 20,
                  read_deadline_s: float = 10.0, feedback_key: str | None = None, query_id_key: str = "query_id",
                  add_unknown_documents: bool = False, ids: str = "auto", judge: bool = False,
                  judge_model: str | None = None, on_change: Callable[[Status], None] | None = None,
                  doc_id_key: str | None = None, on_imported: Callable[[list[str]], None] | None = None) -> LiveCollect:
    """Listen on host:port (port 0: any free one) and add complete traces to run:NAME as they become
    ready; what an earlier collection under NAME received and did not import is imported first.
    One collector per project and name: a second is refused, naming the first's pid and port."""
    from workbench.errors import BadInput, FileSystemError, os_error
    from workbench.project.load import load_project
    from workbench.triage.live.import_loop import ImportLoop
    from workbench.triage.live.server import Receiver
    from workbench.triage.live.spool import Spool, SpoolError, collect_dir, spool_path
    from workbench.triage.live.worker import ImportProcess
    from workbench.triage.runs import check_name

    check_name(name)
    if token is not None:
        check_token(token)
    if not is_loopback(host) and not token:
        raise BadInput(f"--host {host} listens beyond this machine: a bearer token is required",
                       hint="set one in an environment variable and name it with --token-env NAME")
    project = load_project(root)

    job = ImportJob(str(root), name, query_id_key, doc_id_key, add_unknown_documents, ids, judge, judge_model, feedback_key)
    path = spool_path(project.state_dir, name)
    try:
        lock = CollectorLock(collect_dir(project.state_dir, name) / LOCK_FILE, name)
    except OSError as exc:
        raise os_error(exc) from None
    try:
        try:
            spool = Spool(path, Path(root))
        except SpoolError as exc:
            raise FileSystemError(f"the collection's spool cannot be opened and written: {exc}",
                                  hint="collect into a writable project with free space: nothing is acknowledged unless it is on disk") from None
        except OSError as exc:
            raise os_error(exc) from None
        importer = ImportProcess(import_in_process, job)
        collector = ImportLoop(spool, importer, settle_s, max_pending, on_change, on_imported=on_imported)
        try:
            receiver = Receiver(host, port, collector, token, max_body_bytes, read_deadline_s,
                                retry_after_s=max(1, round(settle_s)))
        except OSError as exc:
            spool.close()
            raise BadInput(f"cannot listen on {host}:{port}: {exc.strerror or exc}",
                           hint="another program (the OpenTelemetry Collector?) may hold the port: --port picks another") from None
    except BaseException:
        lock.release()
        raise
    live = LiveCollect(receiver, collector, path, lock, importer)
    try:
        lock.record(receiver.port)
        collector.restore()
        importer.warm()
        collector.start()
        receiver.start()
    except BaseException as exc:
        live.stop()  # nothing left running, the lock released
        if isinstance(exc, SpoolError):
            raise FileSystemError(f"the collection's spool cannot be read: {exc}",
                                  hint="it holds acknowledged spans: restore it, or move it aside to start a new collection") from None
        raise
    return live


LOCK_FILE = "collector.lock"


@dataclass(frozen=True)
class ImportJob:
    """What the import process needs to import a batch as `import-traces` would (picklable)."""

    root: str
    name: str
    query_id_key: str
    doc_id_key: str | None
    add_unknown_documents: bool
    ids: str
    judge: bool
    judge_model: str | None
    feedback_key: str | None


def import_in_process(job: ImportJob, payload: bytes | None) -> Imported | Failure | None:
    """Run in the import process: the batch's spans added to run:NAME under the project lock (the
    code path of `import-traces`). ``payload`` None: only load what the import needs (the warm-up)."""
    import logging

    import msgspec

    from workbench.errors import WorkbenchError
    from workbench.fsutil import project_lock
    from workbench.session.production import import_traces
    from workbench.triage.live.import_loop import Imported
    from workbench.triage.live.feedback import write_feedback
    from workbench.triage.live.worker import Failure
    from workbench.triage.traces import importer  # noqa: F401 (loaded by the warm-up, not at the first trace)
    from workbench.triage.traces.spans import Span, TraceFileError

    if payload is None:
        return None
    spans = msgspec.msgpack.decode(payload, type=list[Span])
    try:
        with project_lock(Path(job.root)):
            t = import_traces(Path(job.root), SOURCE, job.name, query_id_key=job.query_id_key,
                              add_unknown_documents=job.add_unknown_documents, ids=job.ids, judge=job.judge,
                              judge_model=job.judge_model, spans=(spans, [], "otlp-http"), doc_id_key=job.doc_id_key,
                              use_run=False)
            if job.feedback_key:
                write_feedback(t.project, job.name, job.feedback_key, spans)
    except TraceFileError as exc:
        return Failure(exc.title, str(exc), permanent=True)
    except WorkbenchError as exc:
        return Failure(exc.title, str(exc), permanent=False)
    except Exception as exc:  # a bug: its traceback in the import process's log; retried like a passing failure
        logging.getLogger("workbench.collect").exception("import failed")
        return Failure(type(exc).__name__, str(exc), permanent=False)
    return Imported(t.imported.imported, t.imported.skipped)


class CollectorLock:
    """One collector per project and name: an flock held for the collection's life on
    collect/NAME/collector.lock, which says the holder's pid and port to whoever is refused."""

    def __init__(self, path: Path, name: str) -> None:
        import fcntl
        import os

        from workbench.errors import BadInput

        path.parent.mkdir(parents=True, exist_ok=True)
        self.path, self.fd = path, os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o666)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            held = os.pread(self.fd, 200, 0).decode("utf-8", "replace").split()
            os.close(self.fd)
            who = f"pid {held[0]}" if held else "another process"
            where = f", listening on port {held[1]}" if len(held) > 1 else ""
            raise BadInput(f"run:{name} is already being collected into this project by {who}{where}",
                           hint="stop that collector (Ctrl-C, or kill -TERM its pid) or collect under another --name") from None
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, f"{os.getpid()}\n".encode(), 0)

    def record(self, port: int) -> None:
        import os

        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, f"{os.getpid()} {port}\n".encode(), 0)

    def release(self) -> None:
        import fcntl
        import os

        if self.fd >= 0:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = -1


def collected_feedback(project: Project, name: str = DEFAULT_NAME) -> QueryFeedback | None:
    """The users' feedback on run:NAME's queries (query id → score / negative), if collected with --feedback-key."""
    from workbench.triage.live.feedback import load_feedback

    return load_feedback(project, name)
