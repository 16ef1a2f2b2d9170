"""The import in a process of its own: the receiver's threads and the import share no interpreter
lock, so a long import never slows the answers to production's exporter (which waits for each
before it sends the next batch). One spawned process (never forked: the parent runs threads), kept
for the whole collection and warmed at start, so the first trace does not pay for loading the
import's modules; the spans go to it as msgpack. What fails in it comes back as a `Failure`
(picklable whatever the exception was) and is raised here as `ImportFailed`."""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable

import msgspec

from workbench.triage.live.import_loop import Imported, ImportFailed
from workbench.triage.traces.spans import Span


class Failure(msgspec.Struct, frozen=True):
    """An import that raised in the import process: what to say, and whether retrying can help."""

    title: str
    message: str
    permanent: bool  # the traces cannot be read (TraceFileError): retrying changes nothing


# the function run in the import process: (job, msgpack-encoded spans, or None to warm up) → the result
Target = Callable[[Any, "bytes | None"], "Imported | Failure | None"]


def follow_parent(parent: int) -> None:
    """In the import process: end when the collector's process is gone (a kill -9 leaves no orphan
    behind; an import cut this way is handed again by the next run, and adds nothing twice)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="follow-parent", daemon=True).start()


class ImportProcess:
    """An import function (`ImportFn`) running ``target(job, spans)`` in the import process."""

    def __init__(self, target: Target, job: Any) -> None:
        self.target, self.job = target, job
        self._pool: ProcessPoolExecutor | None = None
        self._warm: Future | None = None

    def _ensure(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=follow_parent, initargs=(os.getpid(),))
        return self._pool

    def warm(self) -> None:
        """Start the process and load the import's modules now, without waiting for it."""
        self._warm = self._ensure().submit(self.target, self.job, None)

    def __call__(self, spans: list[Span]) -> Imported:
        payload = msgspec.msgpack.encode(spans)
        try:
            out = self._ensure().submit(self.target, self.job, payload).result()
        except BrokenProcessPool:  # the process died (killed, out of memory): a new one next time
            self._drop()
            raise ImportFailed("the import process ended unexpectedly", title="Import process lost") from None
        if isinstance(out, Failure):
            raise ImportFailed(out.message, title=out.title, permanent=out.permanent)
        assert isinstance(out, Imported)
        return out

    def pids(self) -> list[int]:
        """The import process's id (none before it started): for a benchmark reading its memory."""
        return list(getattr(self._pool, "_processes", None) or {})

    def _drop(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
