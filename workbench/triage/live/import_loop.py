"""The collection: accepted spans spooled (durable) then held as traces (pending.py); one worker
hands the import operation (the same `import_traces` as `import-traces`) only the traces that just
became ready — never the union collected so far: the import adds them to run:NAME. Receiving never
waits for an import. An import that fails for a passing reason (the project lock held past its
timeout, a full disk) keeps its traces pending, retried with a doubling backoff and once more in the
drain; traces the import cannot understand (TraceFileError) are counted, logged and not retried.
The import function may run in a process of its own (worker.py): its failures come back as
`ImportFailed`.
The figures are `Status` (GET /status, the terminal's line)."""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

import msgspec

from workbench.triage.live.pending import Traces
from workbench.triage.live.spool import Spool, SpoolError
from workbench.triage.traces.spans import Skipped, Span, TraceFileError

log = logging.getLogger("workbench.collect")
BATCH_TRACES = 5_000  # at most this many traces in one import, so one import's latency stays bounded


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
    refused: dict[str, int] = {}  # HTTP status → requests refused (400, 401, 408, 413, 415, 429, 503)
    traces_received: int = 0
    traces_imported: int = 0  # traces handed to an import that succeeded (this collection and the spool's)
    traces_not_understood: int = 0  # traces an import could not read (TraceFileError): not retried
    queries_imported: int = 0  # queries the imports of this run reported (a query served twice counts twice)
    pending_traces: int = 0  # the queue: received, not yet imported (incomplete, settling or waiting to retry)
    retrying_traces: int = 0  # of those, the ones whose import failed and waits for its backoff
    imports: int = 0
    import_failures: int = 0
    last_import_s: float | None = None  # how long the last import took
    skipped: dict[str, int] = {}  # reason → traces/spans the imports did not understand (this run)
    last_error: str | None = None
    draining: bool = False


class Full(Exception):
    """Too many pending traces: the import is behind (429 with Retry-After)."""


class ImportFailed(Exception):
    """An import that failed where it ran (the import process): its title, and whether a retry can help."""

    def __init__(self, message: str, title: str = "Import failed", permanent: bool = False) -> None:
        super().__init__(message)
        self.title, self.permanent = title, permanent


class ImportLoop:
    def __init__(self, spool: Spool, import_fn: ImportFn, settle_s: float = 2.0, max_pending: int = 10_000,
                 on_change: Callable[[Status], None] | None = None, clock: Callable[[], float] = time.monotonic,
                 on_imported: Callable[[list[str]], None] | None = None) -> None:
        self.spool, self.import_fn, self.settle_s, self.max_pending = spool, import_fn, settle_s, max_pending
        self.on_change, self.on_imported, self.clock = on_change, on_imported, clock
        self.traces = Traces(spool.span_ids, spool.trace_spans)
        self.status = Status()
        self._cond = threading.Condition()
        self._stopping = False
        self._worker: threading.Thread | None = None

    # ------------------------------------------------------------ receiving (the server's threads)

    def restore(self) -> int:
        """The spool of an earlier run: what it imported is a count; the rest is pending, its complete
        traces imported at once (no settle wait). Returns the spans pending."""
        done, pending = self.spool.state()
        with self._cond:
            self.traces.done.update(done)
            then = self.clock() - self.settle_s
            for spans in pending.values():
                self.traces.add(spans, then)
            self.status.spans_received = sum(done.values()) + sum(len(s) for s in pending.values())
            self.status.traces_imported = len(done)
            self._counts()
            self._cond.notify_all()
        return sum(len(s) for s in pending.values())

    def accept(self, spans: list[Span], rejected: int) -> None:
        """Spans of one request, spooled (durable) before this returns, i.e. before the 200.
        Full: refused whole; SpoolError: not written, nothing kept (503)."""
        with self._cond:
            self.status.requests += 1
            self.status.spans_rejected += rejected
            new = self.traces.new_spans(spans)
            pending = len(self.traces.spans)
            fresh = self.traces.new_traces(new)
            if fresh and pending + fresh > self.max_pending:
                raise Full(f"{pending} traces pending import (the cap is {self.max_pending})")
            self.spool.append(new)  # SpoolError: nothing below happens, the request is not acknowledged
            self.traces.add(new, self.clock())
            self.status.spans_received += len(new)
            self.status.spans_duplicate += len(spans) - len(new)
            self._counts()
            self._cond.notify_all()

    def refused(self, code: int) -> None:
        with self._cond:
            self.status.refused[str(code)] = self.status.refused.get(str(code), 0) + 1

    def snapshot(self) -> Status:
        with self._cond:
            return msgspec.structs.replace(self.status, refused=dict(self.status.refused), skipped=dict(self.status.skipped))

    def _counts(self) -> None:
        self.status.traces_received = self.traces.received
        self.status.pending_traces = len(self.traces.spans)
        self.status.retrying_traces = len(self.traces.retry_at)

    # ------------------------------------------------------------ importing (one worker)

    def start(self) -> None:
        self._worker = threading.Thread(target=self._run, name="collect-import", daemon=True)
        self._worker.start()

    def stop(self) -> None:
        """Drain: every complete trace imported (settled or not, past its backoff or not: one more
        try), then the worker ends. Incomplete traces, and those whose import failed again, stay in
        the spool for the next run."""
        with self._cond:
            self._stopping = True
            self.status.draining = True
            self._cond.notify_all()
        if self._worker is not None:
            self._worker.join()

    def _run(self) -> None:
        tried: set[str] = set()  # in the drain: each trace tried once more, not again
        while True:
            with self._cond:
                while True:
                    ready = self.traces.ready(self.clock(), self.settle_s, drain=self._stopping)
                    if self._stopping:
                        ready = [t for t in ready if t not in tried][:BATCH_TRACES]
                    else:
                        ready = ready[:BATCH_TRACES]
                    if ready or self._stopping:
                        break
                    due = self.traces.next_due(self.settle_s)
                    self._cond.wait(None if due is None else max(0.0, due - self.clock()))
                if not ready:
                    return
                if self._stopping:
                    tried.update(ready)
                spans, counts = self.traces.take(ready)
            self._import(spans, counts)

    def _import(self, spans: list[Span], counts: dict[str, int]) -> None:
        started = self.clock()
        result: Imported | None = None
        retry = True
        try:
            result = self.import_fn(spans)
            error = None
        except (TraceFileError, ImportFailed) as exc:  # not readable: retrying changes nothing; else a passing reason
            error, retry = f"{exc.title}: {exc}", isinstance(exc, ImportFailed) and not exc.permanent
            log.warning("import failed (%s): %s", "retried after a backoff" if retry else "not retried", error)
        except Exception as exc:  # the lock, the disk, a bug: the traces stay pending and are retried
            title = getattr(exc, "title", type(exc).__name__)
            error = f"{title}: {exc}"
            log.warning("import failed (retried after a backoff): %s", error, exc_info=not hasattr(exc, "title"))
        done = result is not None or not retry
        if done:
            try:
                self.spool.mark_imported(counts)
            except SpoolError as exc:  # imported, not marked: the next run hands them again (the import is idempotent)
                log.warning("the spool could not record an import: %s", exc)
        with self._cond:
            s = self.status
            s.imports += 1
            s.last_import_s = round(self.clock() - started, 4)
            if done:
                self.traces.imported(counts)
            else:
                wait = self.traces.failed(list(counts), self.clock())
                error = f"{error} (retried in {wait:g} s)"
            if result is None:
                s.import_failures += 1
                s.last_error = error
                if not retry:
                    s.traces_not_understood += len(counts)
            else:
                s.traces_imported += len(counts)
                s.queries_imported += result.queries
                for k in result.skipped:
                    s.skipped[k.reason] = s.skipped.get(k.reason, 0) + 1
                s.last_error = None
            self._counts()
            status = self.snapshot()
        if result is not None and self.on_imported is not None:
            self.on_imported(list(counts))
        if self.on_change is not None:
            self.on_change(status)
