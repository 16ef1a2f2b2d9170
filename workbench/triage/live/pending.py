"""Spans grouped into traces until they are complete: a trace is ready when its root span has
ended and none of its spans arrived for the settle time. Re-sent spans (the same trace and span
id) are dropped, so an exporter's retry never doubles a trace; a span arriving for a trace
already imported makes it pending again (imported anew with the late span)."""

from __future__ import annotations

from workbench.triage.traces.spans import Span


class Traces:
    def __init__(self) -> None:
        self.spans: dict[str, dict[str, Span]] = {}  # trace id → span id → span
        self.last_seen: dict[str, float] = {}  # trace id → when its newest span arrived (monotonic)
        self.imported: dict[str, int] = {}  # trace id → how many of its spans the last import had

    def new_spans(self, spans: list[Span]) -> list[Span]:
        """The spans not held yet (first of each trace+span id), without adding them."""
        seen: set[tuple[str, str]] = set()
        out = []
        for s in spans:
            key = (s.trace_id, s.span_id)
            if key in seen or s.span_id in self.spans.get(s.trace_id, {}):
                continue
            seen.add(key)
            out.append(s)
        return out

    def new_traces(self, spans: list[Span]) -> int:
        return len({s.trace_id for s in spans if s.trace_id not in self.spans})

    def add(self, spans: list[Span], now: float) -> None:
        for s in spans:
            self.spans.setdefault(s.trace_id, {})[s.span_id] = s
            self.last_seen[s.trace_id] = now

    def is_pending(self, trace_id: str) -> bool:
        return self.imported.get(trace_id) != len(self.spans[trace_id])

    def pending(self) -> list[str]:
        return [t for t in self.spans if self.is_pending(t)]

    def complete(self, trace_id: str) -> bool:
        return any(s.parent_id is None and s.end_ns is not None for s in self.spans[trace_id].values())

    def ready(self, now: float, settle_s: float, drain: bool = False) -> list[str]:
        """Pending traces whose root has ended and that settled (all complete ones when draining)."""
        return [t for t in self.pending() if self.complete(t) and (drain or now - self.last_seen[t] >= settle_s)]

    def next_due(self, settle_s: float) -> float | None:
        """When the earliest complete pending trace settles (None: none is complete)."""
        due = [self.last_seen[t] + settle_s for t in self.pending() if self.complete(t)]
        return min(due, default=None)

    def union(self, ready: list[str]) -> tuple[list[Span], dict[str, int]]:
        """The spans to import now (every imported trace's and the ready ones'), and each trace's span count."""
        ids = [t for t in self.spans if t in self.imported or t in set(ready)]
        counts = {t: len(self.spans[t]) for t in ids}
        return [s for t in ids for s in self.spans[t].values()], counts
