"""The report in a partial state: access first, use as answers arrive.

Access needs no model: from the stored rankings alone the report says which queries lose a gold
document from the top K, at which level of the ladder first, and to which near misses. A verdict
still waiting for its oracle answer with the gold not reached (rule A2) is a provisional access
failure, `ACCESS?`. Use is added as answers are stored; a figure from fewer than
MIN_ANSWERS answers is a count ("2 of 3 right"), never a rate, a curve or a turn, and a reading from
fewer than MIN_DECIDED decided verdicts is not given.

The system whose verdicts the report shows is the diagnosis's own choice (`QueryVerdicts.primary`,
diagnosis/verdicts.py `verdict_system`): the best system that has what a verdict needs on most
tiers, never a reader that does not fit most of them.
"""

from __future__ import annotations

import msgspec

from workbench.access.retrievers import preferred
from workbench.diagnosis.verdicts import VerdictReader, QueryVerdict, QueryVerdicts, level_of
from workbench.diagnosis.nearmiss import Distractor, distractors
from workbench.diagnosis.rules import PROVISIONAL_OF
from workbench.project.files import Project
from workbench.records import Tier
from workbench.project.settings import MIN_DECIDED as MIN_DECIDED  # the one reading rule (report/build.py imports it from here)

MIN_ANSWERS = 5  # fewer answers (or queries) behind a figure: shown as a count, not a rate or a curve
PROVISIONAL_ACCESS: str = next(iter(PROVISIONAL_OF))  # "ACCESS?", named in diagnosis/rules.py
MAX_LOST_DISTRACTORS = 3


class LevelLoss(msgspec.Struct, frozen=True):
    level: str
    lost: int  # queries with a gold document outside the top K on this level
    of: int  # queries ranked on this level


class LostGold(msgspec.Struct, frozen=True):
    """One query whose gold leaves the access system's top K somewhere on the ladder."""

    query_id: str
    query: str
    domain: str
    level: str  # the first level (ladder order) where it loses gold
    tier: str
    gold_ranks: dict[int, int | None]  # on that tier; None = not retrieved
    levels_lost: list[str]  # every level where it loses gold
    distractors: list[Distractor]  # near misses ranked above the gold on that tier
    verdict: str = ""  # the chosen system's verdict there (ACCESS? while the oracle answer is missing)
    command: str = ""  # what confirms it
    key: str = ""  # the inspector key that does


class AccessFirst(msgspec.Struct, frozen=True):
    system: str  # the access system whose rankings the losses are read from
    k: int
    queries: int  # labelled queries ranked on at least one level
    levels: list[LevelLoss]
    lost: list[LostGold]  # ladder order of the first loss, then query id
    answers: int  # model answers stored behind the use figures (all arms), one per (model, arm, query): never per tier


def shown_verdict(v: QueryVerdict) -> str:
    """The verdict word a report shows (ACCESS?: gold not reached, the oracle answer missing)."""
    return v.verdict


FAILURES = ("ACCESS", "USE", "USE-UNDER-DISTRACTORS", "BOTH")  # decided failures


def first_decided_failure(qv: QueryVerdicts, system: str, query_id: str) -> QueryVerdict | None:
    """The first level (ladder order) where the query's verdict is a decided failure: provisional
    (ACCESS?), undecided and missing verdicts are not failures yet."""
    return next((v for v in qv.of(system) if v.query_id == query_id and v.verdict in FAILURES), None)


def access_system(qv: QueryVerdicts, collector: VerdictReader, tiers: list[Tier], own: bool = False) -> str | None:
    """The ranking the access-first section reads: the chosen system's access source when it ranks
    most tiers, else the best retriever that does. ``own``: the chosen system's own ranking
    wherever it has one, else none (production's report: never another system's figures)."""
    used = [t for t in tiers if t.name not in qv.empty_tiers]
    ranked: dict[str, int] = {}
    for t in used:
        for system in collector.tier_store(t).rankings:
            ranked[system] = ranked.get(system, 0) + 1
    spec = next((s for s in qv.systems if s.name == qv.primary), None)
    if own:
        return spec.access if spec is not None and spec.access in ranked else None
    if not ranked:
        return None
    if spec is not None and spec.access and ranked.get(spec.access, 0) * 2 > len(used):
        return spec.access
    best = preferred()
    return min(ranked, key=lambda s: (-ranked[s], best.index(s) if s in best else len(best), s))


def _loses_gold(ranks: dict[int, int | None], k: int) -> bool:
    return any(r is None or r > k for r in ranks.values())


def access_first(project: Project, tiers: list[Tier], qv: QueryVerdicts, collector: VerdictReader,
                 query_ids: set[str] | None = None, answers: int = 0, own: bool = False) -> AccessFirst | None:
    system = access_system(qv, collector, tiers, own)
    if system is None:
        return None
    k = collector.k
    order = {lv: i for i, lv in enumerate(qv.levels)}
    levels: dict[str, list[int]] = {lv: [0, 0] for lv in qv.levels}
    first: dict[str, tuple[Tier, dict[int, int | None]]] = {}
    lost_at: dict[str, list[str]] = {}
    ranked_queries: set[str] = set()
    for t in sorted((t for t in tiers if t.name not in qv.empty_tiers), key=lambda t: order[level_of(t)]):
        lv = level_of(t)
        for qid in project.tier_query_ids(t):
            if query_ids is not None and qid not in query_ids:
                continue
            acc = collector.access(t, system, project.query(qid))
            if acc is None:
                continue
            ranked_queries.add(qid)
            levels[lv][1] += 1
            if _loses_gold(acc.gold_ranks, k):
                levels[lv][0] += 1
                lost_at.setdefault(qid, []).append(lv)
                first.setdefault(qid, (t, acc.gold_ranks))
    verdict_at = {(v.query_id, v.tier): v for v in qv.of(qv.primary)} if qv.primary else {}
    lost = []
    for qid, (tier, ranks) in sorted(first.items(), key=lambda kv: (order[level_of(kv[1][0])], kv[0])):
        q = project.query(qid)
        ranked = collector.tier_store(tier).rankings[system][qid]
        v = verdict_at.get((qid, tier.name))
        lost.append(LostGold(
            query_id=qid, query=q.query, domain=q.domain, level=level_of(tier), tier=tier.name, gold_ranks=ranks,
            levels_lost=lost_at[qid], distractors=distractors(project, tier, q, system, ranked, k, MAX_LOST_DISTRACTORS),
            verdict=shown_verdict(v) if v else "", command=v.command if v else "", key=v.key if v else "",
        ))
    return AccessFirst(system=system, k=k, queries=len(ranked_queries),
                       levels=[LevelLoss(lv, n[0], n[1]) for lv, n in levels.items() if n[1]], lost=lost, answers=answers)


def count(right: int, n: int) -> str:
    """A figure from too few answers, as a count."""
    return f"{right} of {n} right"
