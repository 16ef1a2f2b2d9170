"""What traces keep beside the run and the answers: per query, the trace it came from, how it was
matched, the exact prompt and the latencies (what the inspector shows) — read from the production
ledger's view of run:<name> (triage/ledger.py) — and which queries came from which trace import
(the query list's `run:NAME` / `from:traces` filter)."""

from __future__ import annotations

from pathlib import Path

import msgspec

from workbench.fsutil import safe_name
from workbench.project.files import Project
from workbench.triage.ledger import Matched, TraceQuery  # noqa: F401 (their home is the ledger; readers reach them here)

TRACES_DIR = Path("imports") / "traces"
FROM_TRACES = "from:traces"


class ImportedTraces(msgspec.Struct, frozen=True):
    name: str
    source: str
    imported_at: str
    queries: list[TraceQuery]

    @property
    def system(self) -> str:
        return f"run:{self.name}"


def traces_dir(project: Project, name: str) -> Path:
    """A collection's own files for run:NAME (its feedback record); trace records were kept here before the ledger."""
    return project.state_dir / TRACES_DIR / safe_name(name)


def load_traces(project: Project, name: str) -> ImportedTraces | None:
    """run:NAME's traces as the ledger holds them now (per query, the latest), or None when it holds none."""
    from datetime import datetime, timezone

    from workbench.triage import ledger

    rows = sorted(ledger.view(project, name).slot("trace").values(), key=lambda r: r.id)
    if not rows:
        return None
    return ImportedTraces(name, rows[-1].source, datetime.fromtimestamp(max(r.added_at for r in rows), timezone.utc).replace(microsecond=0).isoformat(),
                          [r.entry.trace for r in rows if r.entry.trace is not None])


def all_traces(project: Project) -> list[ImportedTraces]:
    from workbench.triage import ledger

    found = (load_traces(project, name) for name in ledger.names(project))
    return [r for r in found if r is not None]


def trace_of(project: Project, query_id: str) -> tuple[str, TraceQuery] | None:
    """The newest trace import that holds this query: (run name, its trace)."""
    found = [(r.imported_at, r.name, q) for r in all_traces(project) for q in r.queries if q.query_id == query_id]
    if not found:
        return None
    _, name, q = max(found, key=lambda x: (x[0], x[1]))
    return name, q


def query_sources(project: Project) -> dict[str, set[str]]:
    """query id → its tags: `run:NAME` for each trace import or imported run that ranked it, `from:traces`."""
    from workbench.triage.runs import imported_runs

    out: dict[str, set[str]] = {}
    for r in all_traces(project):
        for q in r.queries:
            out.setdefault(q.query_id, set()).update({f"run:{r.name}".lower(), FROM_TRACES})
    for run in imported_runs(project):
        for part in run.rankings.values():
            for ranked in part:
                out.setdefault(ranked.query_id, set()).add(run.system.lower())
    return out


def _signature(project: Project) -> tuple:
    """What query_sources depends on: the ledger's newest row."""
    from workbench.triage import ledger

    return (ledger.last_id(project),)


_SOURCES: dict[str, tuple[tuple, dict[str, set[str]]]] = {}


def cached_query_sources(project: Project) -> dict[str, set[str]]:
    """query_sources, re-read only when an import record changed (the TUI filters on every keystroke)."""
    key, sig = str(project.root), _signature(project)
    hit = _SOURCES.get(key)
    if hit is None or hit[0] != sig:
        hit = (sig, query_sources(project))
        _SOURCES[key] = hit
    return hit[1]


def with_trace(project: Project, query_id: str, results: dict) -> dict:
    """The inspector's model results, with each trace import's answer carrying its trace: the exact
    prompt production's LLM was sent (the evidence's prompt, shown by d beside the reply as for the
    TUI's own runs) and the latencies (its note)."""
    import msgspec

    out = dict(results)
    for record in all_traces(project):
        system = f"{record.system}:answers"
        q = next((t for t in record.queries if t.query_id == query_id), None)
        if q is None or system not in out:
            continue
        times = " · ".join(f"{what} {s:.2f} s" for what, s in (("LLM", q.llm_latency_s), ("trace", q.trace_latency_s)) if s is not None)
        note = f"production trace {q.trace_id}" + (f" · {times}" if times else "") + \
            (f" · prompt as sent: {len(q.prompt):,} characters (d shows it)" if q.prompt else " · no prompt in the trace")
        ev = out[system]
        out[system] = msgspec.structs.replace(ev, note=f"{ev.note}\n{note}" if ev.note else note, prompt=q.prompt)
    return out
