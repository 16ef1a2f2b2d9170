"""What each tried access fix did, in one line per fix: a reranked system against its base on the
largest level ("reranking lifted FR@10 at full from 0.33 [CI] to 0.41 [CI], p = …; it demoted 31
near misses below their gold and promoted 4").

FR@K on the level's multi-source queries (SR@K where it has none), both with 95% bootstrap
intervals, the paired randomization test on the same queries, and the rank movement
(workbench/inspection/movement.py) over that level's tiers.
"""

from __future__ import annotations

import msgspec

from workbench.diagnosis.verdicts import VerdictReader, level_of
from workbench.inspection.movement import MovementCounts, fix_base, movement
from workbench.display import fmt
from workbench.names import untuned
from workbench.project.files import Project
from workbench.records import Tier
from workbench.tune.train import load_record
from workbench.stats import DEFAULT_SEED, Estimate, PairedTest, bootstrap_ci, paired_test


class FixEffect(msgspec.Struct, frozen=True):
    system: str
    base: str
    level: str
    metric: str  # "FR@10" (multi-source queries) or "SR@10"
    before: Estimate
    after: Estimate
    test: PairedTest  # after − before, paired by query and tier
    movement: MovementCounts
    line: str
    split: str = ""  # a tuned system: its training split and seeds (its figures are held-out only)


SIGNIFICANT = 0.05  # the paired test's p below which a fix "lifted" or "lowered" a figure


def _interval(e: Estimate) -> str:
    return f"{fmt(e.mean)} [{fmt(e.low)}, {fmt(e.high)}]"


def effect_line(f: FixEffect) -> str:
    diff = f.test.mean_diff or 0.0
    # a direction only where the paired test says so: otherwise the change could be chance
    significant = f.test.p_value is not None and f.test.p_value < SIGNIFICANT
    m = f.movement
    which = "multi-source " if f.metric.startswith("FR") else ""
    if significant and diff:
        said = f"{'lifted' if diff > 0 else 'lowered'} {f.metric} at {f.level} from"
    else:
        said = f"made no significant change to {f.metric} at {f.level}:"
    line = (f"{f.system} {said} {_interval(f.before)} ({f.base}) to {_interval(f.after)}, "
            f"p = {fmt(f.test.p_value, 3)} (n = {f.test.n} {which}queries); it demoted {m.near_misses_demoted} near "
            f"miss(es) below their gold and promoted {m.near_misses_promoted}")
    return line + (f"; {f.split}" if f.split else "")


def fix_effects(project: Project, tiers: list[Tier], collector: VerdictReader, seed: int = DEFAULT_SEED) -> list[FixEffect]:
    if not tiers:
        return []
    level = level_of(tiers[-1])  # the ladder's largest rung (tiers come in ladder order)
    chosen = [t for t in tiers if level_of(t) == level]
    systems = sorted({s for t in chosen for s in collector.tier_store(t).rankings})
    out = []
    for system in systems:
        base = fix_base(system)
        if base is None or base not in systems:
            continue
        effect = fix_effect(project, chosen, collector, base, system, seed)
        if effect is not None:
            out.append(effect)
    return out


def fix_effect(project: Project, chosen: list[Tier], collector: VerdictReader, base: str, system: str,
               seed: int = DEFAULT_SEED) -> FixEffect | None:
    """``system`` against ``base`` on the tiers of one level (None: no query both ranked)."""
    level = level_of(chosen[-1])
    values: dict[str, tuple[list[float], list[float]]] = {"FR": ([], []), "SR": ([], [])}
    pairs = []
    for t in chosen:
        rankings = collector.tier_store(t).rankings
        for qid in project.tier_query_ids(t):
            q = project.query(qid)
            a, b = collector.access(t, base, q), collector.access(t, system, q)
            if a is None or b is None:
                continue
            pairs.append((q, t.name, rankings[base][qid], rankings[system][qid]))
            values["SR"][0].append(a.sr_at_k)
            values["SR"][1].append(b.sr_at_k)
            if a.fr_at_k is not None and b.fr_at_k is not None:
                values["FR"][0].append(a.fr_at_k)
                values["FR"][1].append(b.fr_at_k)
    if not pairs:
        return None
    kind = "FR" if values["FR"][0] else "SR"
    before, after = values[kind]
    record = load_record(project) if untuned(system) else None
    effect = FixEffect(system, base, level, f"{kind}@{collector.k}", bootstrap_ci(before, seed, f"fix-{base}"),
                       bootstrap_ci(after, seed, f"fix-{system}"), paired_test(after, before, seed),
                       movement(base, system, pairs, collector.k).counts, "",
                       record.split.caption() if record else "")
    return msgspec.structs.replace(effect, line=effect_line(effect))
