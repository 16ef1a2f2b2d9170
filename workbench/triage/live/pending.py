"""Spans grouped into traces until they are imported: a trace is ready when its root span has
ended and none of its spans arrived for the settle time. Only traces still to import are held in
memory (with their spans); an imported trace is a count. Re-sent spans (the same trace and span
id) are dropped, so an exporter's retry never doubles a trace; a span arriving for a trace already
imported makes it pending again (imported anew, whole, with the late span: its earlier spans are
read back from the spool). A failed import is retried after a backoff that doubles, up to a cap."""

from __future__ import annotations

from typing import Callable

from workbench.triage.traces.spans import Span

BACKOFF_S = 1.0
BACKOFF_CAP_S = 60.0


class Traces:
    def __init__(self, stored_ids: Callable[[str], set[str]] = lambda t: set(),
                 stored_spans: Callable[[str], list[Span]] = lambda t: []) -> None:
        self.spans: dict[str, dict[str, Span]] = {}  # trace id → span id → span, of the traces still to import
        self.last_seen: dict[str, float] = {}  # trace id → when its newest span arrived (monotonic)
        self.done: dict[str, int] = {}  # trace id → span count, of the traces imported whole
        self.failures: dict[str, int] = {}  # trace id → imports of it that failed in a row
        self.retry_at: dict[str, float] = {}  # trace id → not before (the backoff)
        self.stored_ids, self.stored_spans = stored_ids, stored_spans

    @property
    def received(self) -> int:
        return len(self.spans) + len(self.done)

    def new_spans(self, spans: list[Span]) -> list[Span]:
        """The spans not held yet (first of each trace+span id), without adding them."""
        seen: set[tuple[str, str]] = set()
        stored: dict[str, set[str]] = {}
        out = []
        for s in spans:
            key = (s.trace_id, s.span_id)
            if key in seen or s.span_id in self.spans.get(s.trace_id, {}):
                continue
            if s.trace_id in self.done:
                if s.trace_id not in stored:
                    stored[s.trace_id] = self.stored_ids(s.trace_id)
                if s.span_id in stored[s.trace_id]:
                    continue
            seen.add(key)
            out.append(s)
        return out

    def new_traces(self, spans: list[Span]) -> int:
        return len({s.trace_id for s in spans if s.trace_id not in self.spans and s.trace_id not in self.done})

    def add(self, spans: list[Span], now: float) -> None:
        for s in spans:
            held = self.spans.get(s.trace_id)
            if held is None:
                held = self.spans[s.trace_id] = {}
                if self.done.pop(s.trace_id, None) is not None:  # a late span: the trace is imported again, whole
                    held.update((x.span_id, x) for x in self.stored_spans(s.trace_id))
            held[s.span_id] = s
            self.last_seen[s.trace_id] = now

    def pending(self) -> list[str]:
        return list(self.spans)

    def complete(self, trace_id: str) -> bool:
        return any(s.parent_id is None and s.end_ns is not None for s in self.spans[trace_id].values())

    def _due(self, trace_id: str, settle_s: float) -> float:
        return max(self.last_seen[trace_id] + settle_s, self.retry_at.get(trace_id, 0.0))

    def ready(self, now: float, settle_s: float, drain: bool = False, limit: int | None = None) -> list[str]:
        """Complete traces that settled and are past their backoff (every complete one when draining)."""
        out = []
        for t in self.spans:
            if self.complete(t) and (drain or self._due(t, settle_s) <= now):
                out.append(t)
                if limit is not None and len(out) >= limit:
                    break
        return out

    def next_due(self, settle_s: float) -> float | None:
        """When the earliest complete pending trace is due (None: none is complete)."""
        return min((self._due(t, settle_s) for t in self.spans if self.complete(t)), default=None)

    def take(self, ready: list[str]) -> tuple[list[Span], dict[str, int]]:
        """The spans of the ready traces (whole), and each one's span count."""
        counts = {t: len(self.spans[t]) for t in ready}
        return [s for t in ready for s in self.spans[t].values()], counts

    def imported(self, counts: dict[str, int]) -> None:
        """These traces were imported with these counts: forgotten but for their count, unless a
        span arrived meanwhile (then still pending, with it)."""
        for t, n in counts.items():
            self.failures.pop(t, None)
            self.retry_at.pop(t, None)
            if len(self.spans.get(t, ())) == n:
                del self.spans[t]
                self.last_seen.pop(t, None)
                self.done[t] = n

    def failed(self, trace_ids: list[str], now: float) -> float:
        """An import of these failed: each retried after its backoff; returns the longest."""
        wait = 0.0
        for t in trace_ids:
            k = self.failures[t] = self.failures.get(t, 0) + 1
            delay = min(BACKOFF_CAP_S, BACKOFF_S * 2 ** (k - 1))
            self.retry_at[t] = now + delay
            wait = max(wait, delay)
        return wait
