"""`workbench collect`: production's traces received live over OTLP/HTTP and imported as they
complete, through `import_traces(spans=…)` — the code path of `import-traces` — under the project
lock. One function starts it (`start_collect`, for the CLI and the TUI alike); the handle it
returns gives the receiver's address, its figures and the drain (`stop`)."""

from __future__ import annotations

import ipaddress
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from workbench.project.files import Project
    from workbench.triage.live.collector import Collector, Status
    from workbench.triage.live.feedback import QueryFeedback
    from workbench.triage.live.server import Receiver

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

    def __init__(self, receiver: Receiver, collector: Collector, spool: Path) -> None:
        self.receiver, self.collector, self.spool = receiver, collector, spool
        self._thread = threading.Thread(target=receiver.serve_forever, kwargs={"poll_interval": 0.2},
                                        name="collect-http", daemon=True)
        self._stopped = False

    @property
    def url(self) -> str:
        return self.receiver.url

    def status(self) -> Status:
        return self.collector.snapshot()

    def stop(self) -> Status:
        if not self._stopped:
            self._stopped = True
            self.receiver.shutdown()  # no new request; those answered are spooled
            self.receiver.server_close()
            self.collector.stop()
        return self.collector.snapshot()


def start_collect(root: Path, name: str = DEFAULT_NAME, host: str = "127.0.0.1", port: int = 4318, settle_s: float = 2.0,
                  token: str | None = None, max_pending: int = 10_000, max_body_bytes: int = 16 << 20,
                  read_deadline_s: float = 10.0, feedback_key: str | None = None, query_id_key: str = "query_id",
                  add_unknown_documents: bool = False, ids: str = "auto", judge: bool = False,
                  judge_model: str | None = None, on_change: Callable[[Status], None] | None = None) -> LiveCollect:
    """Listen on host:port (port 0: any free one) and import complete traces as run:NAME; the spool
    of an earlier collection under NAME is read back and imported first."""
    from workbench.errors import BadInput
    from workbench.fsutil import project_lock
    from workbench.project.load import load_project
    from workbench.session.production import import_traces
    from workbench.triage.live.collector import Collector, Imported
    from workbench.triage.live.server import Receiver
    from workbench.triage.live.spool import Spool, spool_path
    from workbench.triage.runs import check_name
    from workbench.triage.traces.spans import Span

    check_name(name)
    if not is_loopback(host) and not token:
        raise BadInput(f"--host {host} listens beyond this machine: a bearer token is required",
                       hint="set one in an environment variable and name it with --token-env NAME")
    project = load_project(root)

    def run_import(spans: list[Span]) -> Imported:
        from workbench.triage.live.feedback import write_feedback

        with project_lock(Path(root)):
            t = import_traces(root, SOURCE, name, query_id_key=query_id_key, add_unknown_documents=add_unknown_documents,
                              ids=ids, judge=judge, judge_model=judge_model, spans=(spans, [], "otlp-http"))
            if feedback_key:
                write_feedback(t.project, name, feedback_key, spans)
        return Imported(t.imported.imported, t.imported.skipped)

    path = spool_path(project.state_dir, name)
    collector = Collector(Spool(path, Path(root)), run_import, settle_s, max_pending, on_change)
    try:
        receiver = Receiver(host, port, collector, token, max_body_bytes, read_deadline_s,
                            retry_after_s=max(1, round(settle_s)))
    except OSError as exc:
        raise BadInput(f"cannot listen on {host}:{port}: {exc.strerror or exc}",
                       hint="another collector (or the OpenTelemetry Collector) may hold the port: --port picks another") from None
    collector.restore()
    collector.start()
    live = LiveCollect(receiver, collector, path)
    live._thread.start()
    return live


def collected_feedback(project: Project, name: str = DEFAULT_NAME) -> QueryFeedback | None:
    """The users' feedback on run:NAME's queries (query id → score / negative), if collected with --feedback-key."""
    from workbench.triage.live.feedback import load_feedback

    return load_feedback(project, name)
