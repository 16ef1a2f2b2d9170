"""The collection: accepted spans spooled then held as traces (pending.py); one worker imports
the ready ones through the operation it is handed (the same `import_traces` as `import-traces`),
re-importing the union of every complete trace collected so far, so run:NAME always holds them
all. Receiving never waits for an import; an import that fails is counted and logged, never fatal.
The figures are `Status` (GET /status, the terminal's line)."""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from typing import Callable

import msgspec

from workbench.errors import WorkbenchError
from workbench.triage.live.pending import Traces
from workbench.triage.live.spool import Spool
from workbench.triage.traces.spans import Skipped, Span

log = logging.getLogger("workbench.collect")


class Imported(msgspec.Struct, frozen=True):
    """What one import reported: queries imported and the spans/traces it did not understand."""

    queries: int
    skipped: list[Skipped]


ImportFn = Callable[[list[Span]], Imported]


class Status(msgspec.Struct):
    requests: int = 0
    spans_received: int = 0  # new spans accepted (re-sent ones not counted again)
    spans_duplicate: int = 0
    spans_rejected: int = 0  # no valid ids / not a span: the partial-success reply's rejected_spans
    refused: dict[str, int] = {}  # HTTP status → requests refused (400, 401, 408, 413, 415, 429)
    traces_received: int = 0
    traces_imported: int = 0
    queries_imported: int = 0
    pending_traces: int = 0  # the queue: received, not yet imported (incomplete or settling)
    imports: int = 0
    import_failures: int = 0
    last_import_s: float | None = None  # how long the last import took
    skipped: dict[str, int] = {}  # reason → traces/spans the last import did not understand
    last_error: str | None = None
    draining: bool = False


class Full(Exception):
    """Too many pending traces: the import is behind (429 with Retry-After)."""


class Collector:
    def __init__(self, spool: Spool, import_fn: ImportFn, settle_s: float = 2.0, max_pending: int = 10_000,
                 on_change: Callable[[Status], None] | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.spool, self.import_fn, self.settle_s, self.max_pending = spool, import_fn, settle_s, max_pending
        self.on_change, self.clock = on_change, clock
        self.traces = Traces()
        self.status = Status()
        self._cond = threading.Condition()
        self._stopping = False
        self._worker: threading.Thread | None = None

    # ------------------------------------------------------------ receiving (the server's threads)

    def restore(self) -> int:
        """The spool of an earlier run read back: its complete traces are imported at once."""
        spans, _ = self.spool.read()
        with self._cond:
            new = self.traces.new_spans(spans)
            self.traces.add(new, self.clock() - self.settle_s)
            self.status.spans_received += len(new)
            self.status.traces_received = len(self.traces.spans)
            self.status.pending_traces = len(self.traces.pending())
            self._cond.notify_all()
        return len(new)

    def accept(self, spans: list[Span], rejected: int) -> None:
        """Spans of one request, spooled (durable) before this returns, i.e. before the 200. Full: refused whole."""
        with self._cond:
            self.status.requests += 1
            self.status.spans_rejected += rejected
            new = self.traces.new_spans(spans)
            pending = len(self.traces.pending())
            if new and pending + self.traces.new_traces(new) > self.max_pending and self.traces.new_traces(new):
                raise Full(f"{pending} traces pending import (the cap is {self.max_pending})")
            self.spool.append(new)
            self.traces.add(new, self.clock())
            self.status.spans_received += len(new)
            self.status.spans_duplicate += len(spans) - len(new)
            self.status.traces_received = len(self.traces.spans)
            self.status.pending_traces = len(self.traces.pending())
            self._cond.notify_all()

    def refused(self, code: int) -> None:
        with self._cond:
            self.status.refused[str(code)] = self.status.refused.get(str(code), 0) + 1

    def snapshot(self) -> Status:
        with self._cond:
            return msgspec.structs.replace(self.status, refused=dict(self.status.refused), skipped=dict(self.status.skipped))

    # ------------------------------------------------------------ importing (one worker)

    def start(self) -> None:
        self._worker = threading.Thread(target=self._run, name="collect-import", daemon=True)
        self._worker.start()

    def stop(self) -> None:
        """Drain: every complete trace imported (settled or not), then the worker ends. Incomplete
        traces stay in the spool for the next run."""
        with self._cond:
            self._stopping = True
            self.status.draining = True
            self._cond.notify_all()
        if self._worker is not None:
            self._worker.join()

    def _run(self) -> None:
        while True:
            with self._cond:
                while True:
                    ready = self.traces.ready(self.clock(), self.settle_s, drain=self._stopping)
                    if ready or self._stopping:
                        break
                    due = self.traces.next_due(self.settle_s)
                    self._cond.wait(None if due is None else max(0.0, due - self.clock()))
                if not ready:
                    return
                spans, counts = self.traces.union(ready)
            self._import(spans, counts)

    def _import(self, spans: list[Span], counts: dict[str, int]) -> None:
        started = self.clock()
        try:
            result: Imported | None = self.import_fn(spans)
            error = None
        except WorkbenchError as exc:  # e.g. no trace understood yet: counted and logged, never fatal
            result, error = None, f"{exc.title}: {exc}"
            log.warning("import failed: %s", error)
        except Exception as exc:  # a bug: logged with its traceback; the receiver keeps serving
            result, error = None, f"{type(exc).__name__}: {exc}"
            log.exception("import failed")
        with self._cond:
            s = self.status
            s.imports += 1
            s.last_import_s = round(self.clock() - started, 4)
            self.traces.imported.update(counts)  # failed too: retried only when a span of it arrives
            s.pending_traces = len(self.traces.pending())
            if result is None:
                s.import_failures += 1
                s.last_error = error
            else:
                s.traces_imported = len(counts)  # the union: every trace imported so far
                s.queries_imported = result.queries
                s.skipped = dict(Counter(k.reason for k in result.skipped))
                s.last_error = None
            status = self.snapshot()
        if self.on_change is not None:
            self.on_change(status)
