"""Two systems (or one system on two tiers) on the same queries: wins, losses, ties and a paired test.

A side is `SYSTEM` or `SYSTEM@LEVEL`. A ranking system (bm25, dense, hybrid,
model:<m>:localize) is scored per query by SR@K; a reading system (hybrid+local, local, …) by
its verdict: 1 for PASS, 0 for any decided failure (NOT-YET queries are left out of the pairs).
Without @LEVEL a side covers every selected level and queries pair up on (query, level).
The test is stats.paired_test (Fisher's randomization test; see there for why). Two ranking systems
also get their rank movement (workbench/inspection/movement.py): gold promoted into the top K, near
misses demoted below their gold, and the reverse, per query × tier.
"""

from __future__ import annotations

import msgspec

from workbench.diagnosis.verdicts import VerdictReader, read_verdicts, level_of
from workbench.inspection.movement import RankMovement, movement
from workbench.diagnosis.rules import PENDING
from workbench.errors import BadInput
from workbench.names import split_level
from workbench.stats import DEFAULT_SEED, PairedTest, paired_test
from workbench.project.files import Project
from workbench.records import Tier


class CompareError(BadInput):
    title = "Cannot compare"


class PairedQuery(msgspec.Struct, frozen=True, array_like=True):
    query_id: str
    level: str
    a: float
    b: float


class Comparison(msgspec.Struct, frozen=True):
    a: str
    b: str
    metric: str
    mean_a: float | None
    mean_b: float | None
    test: PairedTest
    pairs: list[PairedQuery]
    movement: RankMovement | None = None  # two ranking systems on the same tiers and labels


def _split(side: str) -> tuple[str, str | None]:
    return split_level(side)


def _outcomes(project: Project, tiers: list[Tier], side: str, collector: VerdictReader, query_ids: set[str] | None) -> tuple[dict[tuple[str, str], float], str]:
    system, level = _split(side)
    chosen = [t for t in tiers if level is None or level_of(t) == level or t.name == level]
    if not chosen:
        raise CompareError(f"{side}: no selected tier is on level {level!r}; levels: {sorted({level_of(t) for t in tiers})}")
    rankers = {s for t in chosen for s in collector.tier_store(t).rankings}
    out: dict[tuple[str, str], float] = {}
    if system in rankers:
        for t in chosen:
            for qid in project.tier_query_ids(t):
                if query_ids is None or qid in query_ids:
                    a = collector.access(t, system, project.query(qid))
                    if a is not None:
                        out[(qid, level_of(t))] = a.sr_at_k
        return out, f"SR@{collector.k}"
    specs = {s.name: s for s in collector.systems(chosen)}
    if system not in specs:
        raise CompareError(f"unknown system {system!r}; known: {sorted(rankers | set(specs))}")
    qv = read_verdicts(project, chosen, query_ids, collector=collector)
    for v in qv.of(system):
        if v.verdict not in PENDING:  # ACCESS?, UNDECIDED, NOT-YET: not decided, left out of the pairs
            out[(v.query_id, v.level)] = float(v.verdict == "PASS")
    return out, "PASS (1) vs a decided failure (0)"


def compare(project: Project, tiers: list[Tier], a: str, b: str, query_ids: set[str] | None = None,
            seed: int = DEFAULT_SEED, k: int | None = None, project_b: Project | None = None) -> Comparison:
    """With project_b (the same project under another query-set version), side B is scored under
    that version's labels; the tiers and stored rankings are the same, so only the labels differ."""
    collector = VerdictReader(project, k)
    oa, ma = _outcomes(project, tiers, a, collector, query_ids)
    if project_b is not None:
        ob, mb = _outcomes(project_b, tiers, b, VerdictReader(project_b, collector.k), query_ids)
    else:
        ob, mb = _outcomes(project, tiers, b, collector, query_ids)
    if ma != mb:
        raise CompareError(f"{a} is scored by {ma} but {b} by {mb}: compare two ranking systems or two reading systems")
    la, lb = _split(a)[1], _split(b)[1]
    if (la is None) != (lb is None):
        raise CompareError("give @LEVEL on both sides or on neither")
    if la is None:
        keys = sorted(set(oa) & set(ob))
        pairs = [PairedQuery(q, lv, oa[(q, lv)], ob[(q, lv)]) for q, lv in keys]
    else:
        qa = {q: v for (q, _), v in oa.items()}
        qb = {q: v for (q, _), v in ob.items()}
        pairs = [PairedQuery(q, f"{la} vs {lb}", qa[q], qb[q]) for q in sorted(set(qa) & set(qb))]
    test = paired_test([p.a for p in pairs], [p.b for p in pairs], seed)
    mean = lambda xs: sum(xs) / len(xs) if xs else None  # noqa: E731
    if project_b is not None:  # the sides name their versions
        a, b = f"{a} [{project.queries_version}]", f"{b} [{project_b.queries_version}]"
    moved = None
    if project_b is None and ma.startswith("SR@") and la == lb:
        moved = _movement(project, tiers, a, b, la, collector, query_ids)
    return Comparison(a, b, ma, mean([p.a for p in pairs]), mean([p.b for p in pairs]), test, pairs, moved)


def _movement(project: Project, tiers: list[Tier], a: str, b: str, level: str | None, collector: VerdictReader,
              query_ids: set[str] | None) -> RankMovement:
    sa, sb = _split(a)[0], _split(b)[0]
    pairs = []
    for t in tiers:
        if level is not None and level_of(t) != level and t.name != level:
            continue
        rankings = collector.tier_store(t).rankings
        ra, rb = rankings.get(sa, {}), rankings.get(sb, {})
        for qid in project.tier_query_ids(t):
            q = project.query(qid)
            if (query_ids is None or qid in query_ids) and q.gold_doc_ids and qid in ra and qid in rb:
                pairs.append((q, t.name, ra[qid], rb[qid]))
    return movement(a, b, pairs, collector.k)
