"""What the report says first, before any figure: the one next action with one batch command
(e.g. confirm every ACCESS? of the shown system with the oracle, in one run, with its number of
model calls) and the top stealers in a line each. The funnel is report/funnel.py."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import msgspec

from workbench.diagnosis.verdicts import VerdictReader, QueryVerdicts
from workbench.project.files import Project
from workbench.project.suggest import command
from workbench.records import Tier

TOP = 3  # stealers named on the first screen


class NextAction(msgspec.Struct, frozen=True):
    text: str
    command: str
    calls: int  # model calls the command makes at most (the response cache may serve some)
    queries: int
    seconds: float | None = None  # calls × the median stored latency of the same model and task (None: none stored)


def _cover(project: Project, tiers: list[Tier], qids: set[str]) -> list[str]:
    """Few tiers holding every query, the largest first: an oracle answer is the same prompt on every
    tier that holds its query, so one run per query settles all its levels."""
    left, out = set(qids), []
    for t in reversed(tiers):
        mine = left & set(project.tier_query_ids(t))
        if mine:
            out.append(t.name)
            left -= mine
        if not left:
            break
    return out


def median_latency(project: Project, tiers: list[Tier], model: str, task: str) -> float | None:
    """The median latency of the stored, uncached answers of ``model`` on ``task`` (what a batch's time is estimated by)."""
    from workbench.llm.sources import model_sources

    seen = sorted(x.latency_s for t in tiers for src in model_sources(project, t)
                  if src.run.model == model and src.run.task == task for x in src.run.qa if not x.cached)
    return seen[len(seen) // 2] if seen else None


def _time(seconds: float | None, model: str) -> str:
    if seconds is None:
        return f"no stored {model} oracle call to time it by"
    return f"about {seconds / 60:.0f} min on {model}" if seconds >= 90 else f"about {seconds:.0f} s on {model}"


def next_action(project: Project, qv: QueryVerdicts, collector: VerdictReader, tiers: list[Tier]) -> NextAction | None:
    """The one thing to run next for the shown system: every ACCESS? confirmed by the oracle in one
    batch; else the command most of its pending verdicts wait for."""
    spec = next((s for s in qv.systems if s.name == qv.primary), None)
    if spec is None:
        return None
    mine = qv.of(spec.name)
    pending = sorted({v.query_id for v in mine if v.verdict == "ACCESS?"})
    if pending:
        model = (spec.oracle_model if spec.reader == "production" else spec.model) or collector.oracle_model
        cmd = command("run", project.root, model=model, task="oracle", tiers=_cover(project, tiers, set(pending)),
                      queries=pending)
        per_call = median_latency(project, tiers, model, "oracle")
        seconds = per_call * len(pending) if per_call is not None else None
        return NextAction(text=f"Confirm the {len(pending)} ACCESS? quer{'y' if len(pending) == 1 else 'ies'} of {spec.name} "
                               f"with the oracle ({model} handed only the gold): one batch of at most {len(pending)} model "
                               f"call(s), one per query (an oracle answer counts on every tier holding its query); "
                               f"{_time(seconds, model)}",
                          command=cmd, calls=len(pending), queries=len(pending), seconds=seconds)
    waiting = Counter(v.command for v in mine if v.command and v.verdict in ("NOT-YET", "UNDECIDED"))
    if waiting:
        cmd, n = waiting.most_common(1)[0]
        return NextAction(text=f"{n} verdict(s) of {spec.name} wait for the same run", command=cmd, calls=0, queries=n)
    return None


def stealer_lines(stealers, escape: Callable[[object], str]) -> list[str]:
    """The top stealers, a line each (the insight section has them whole)."""
    return [escape(f"{s.doc_id} {s.title} outranks {s.displaced} gold in {len(s.queries)} quer{'y' if len(s.queries) == 1 else 'ies'}"
                   + (f" (a hard negative of {', '.join(s.hard_negative_for[:3])})" if s.hard_negative_for else ""))
            for s in stealers[:TOP]]
