"""Effective corpus size: up to which ladder level a system stays good enough.

NoLiMa's effective length, on the ladder: per system and metric (SR@K, FR@K, the share of answers
correct), the largest level whose figure stays at or above KEEP (the `[insight] keep` setting,
0.85) of the smallest level's, read in ladder order: the level before the first one that falls
below. The ratio is paired (the levels share the fixed query set): mean(level) / mean(smallest
level) over the queries both have, with a percentile bootstrap interval resampling those queries
(workbench/stats.py: ratio_ci). A level's size is its largest tier's tokens.
"""

from __future__ import annotations

import msgspec

from workbench.llm.answers import ARM_LABELS
from workbench.diagnosis.verdicts import VerdictReader, level_of
from workbench.display import fmt
from workbench.project.files import Project
from workbench.names import TASKS
from workbench.records import InsightConfig, Tier
from workbench.stats import DEFAULT_SEED, Estimate, ratio_ci

KEEP = InsightConfig().keep  # 0.85

# (level, its tokens, {query_id: figure}) in ladder order
Series = list[tuple[str, int, dict[str, float]]]


class LevelRatio(msgspec.Struct, frozen=True):
    level: str
    tokens: int
    value: float | None  # the figure over the level's queries
    n: int
    ratio: Estimate  # figure / smallest level's figure over the queries both have, with its interval
    keeps: bool  # ratio ≥ keep


class EffectiveSize(msgspec.Struct, frozen=True):
    system: str  # a ranking system, or "<model> <arm>" for answers
    metric: str  # SR@K | FR@K | correct
    keep: float
    base_level: str
    base_value: float | None
    base_n: int
    levels: list[LevelRatio]  # every level after the smallest, in ladder order
    effective_level: str | None  # None: not even the smallest level has a figure above 0
    effective_tokens: int | None
    falls_at: str | None  # the first level below keep; None = it keeps it at every level
    sentence: str


def _tokens_text(tokens: int) -> str:
    return f"{tokens / 1000:.0f}K" if tokens >= 10_000 else f"{tokens:,}"


def _mean(values: dict[str, float]) -> float | None:
    return sum(values.values()) / len(values) if values else None


def effective_size(system: str, metric: str, series: Series, keep: float = KEEP, seed: int = DEFAULT_SEED) -> EffectiveSize:
    """The effective size of one curve; ``series`` in ladder order, the first level the smallest."""
    base_level, base_tokens, base = series[0]
    base_value = _mean(base)
    levels: list[LevelRatio] = []
    effective: tuple[str, int] | None = (base_level, base_tokens) if base_value else None
    falls_at = None
    for level, tokens, values in series[1:]:
        common = sorted(set(base) & set(values))
        ratio = ratio_ci([base[q] for q in common], [values[q] for q in common], seed, f"effective:{system}:{metric}:{level}")
        keeps = ratio.mean is not None and ratio.mean >= keep
        levels.append(LevelRatio(level, tokens, _mean(values), len(values), ratio, keeps))
        if falls_at is None and effective is not None:
            if keeps:
                effective = (level, tokens)
            else:
                falls_at = level
    name = f"{system} {metric}"
    if effective is None:
        sentence = f"{name}: {fmt(base_value)} at {base_level} (n={len(base)}): no figure to keep"
    else:
        sentence = f"{system} keeps {keep:.0%} of its {metric} up to {effective[0]} — about {_tokens_text(effective[1])} tokens"
        if falls_at is not None:
            fell = next(x for x in levels if x.level == falls_at)
            sentence += (f"; it falls below at {falls_at} ({fmt(fell.ratio.mean, 2)} of {fmt(base_value)}, "
                         f"interval [{fmt(fell.ratio.low, 2)}, {fmt(fell.ratio.high, 2)}], n={fell.ratio.n})")
        elif levels:
            sentence += " (every level of the ladder)"
        else:
            sentence += " (the only level)"
    return EffectiveSize(system, metric, keep, base_level, base_value, len(base), levels,
                         effective[0] if effective else None, effective[1] if effective else None, falls_at, sentence)


def _levels(project: Project, tiers: list[Tier]) -> list[tuple[str, list[Tier]]]:
    out: dict[str, list[Tier]] = {}
    for t in tiers:
        out.setdefault(level_of(t), []).append(t)
    return list(out.items())


def effective_sizes(project: Project, tiers: list[Tier], collector: VerdictReader | None = None, keep: float | None = None,
                    seed: int = DEFAULT_SEED, query_ids: set[str] | None = None) -> list[EffectiveSize]:
    """Every ranking system's SR@K and FR@K, and every model arm's share correct, from stored results."""
    c = collector or VerdictReader(project)
    keep = project.config.insight.keep if keep is None else keep
    levels = _levels(project, tiers)
    wanted = [(lv, ts, [(t, q) for t in ts for q in project.tier_query_ids(t)
                        if (query_ids is None or q in query_ids) and project.query(q).is_labelled]) for lv, ts in levels]
    rankers = sorted({s for t in tiers for s in c.tier_store(t).rankings})
    # answers whose context grows with the tier (QA in context, retrieve-then-read); oracle and near-miss do not
    slots = sorted({key for t in tiers for key in c.tier_store(t).answers if TASKS[key[1]].context in ("tier", "retrieved")})
    out = []
    for system in rankers:
        sr: Series = []
        fr: Series = []
        for level, ts, pairs in wanted:
            tokens = max(t.tokens for t in ts)
            acc = {q: a for t, q in pairs if (a := c.access(t, system, project.query(q))) is not None}
            if acc:
                sr.append((level, tokens, {q: a.sr_at_k for q, a in acc.items()}))
                multi = {q: a.fr_at_k for q, a in acc.items() if a.fr_at_k is not None}
                if multi:
                    fr.append((level, tokens, multi))
        out += [effective_size(system, f"{m}@{c.k}", s, keep, seed) for m, s in (("SR", sr), ("FR", fr)) if s]
    for model, arm, retriever in slots:
        series: Series = []
        for level, ts, pairs in wanted:
            checks = {q: float(ans.correct) for t, q in pairs if (ans := c.answer(t, model, arm, q, retriever)) is not None}
            if checks:
                series.append((level, max(t.tokens for t in ts), checks))
        label = f"{model} {ARM_LABELS.get(arm, arm)}" + (f" on {retriever}" if retriever else "")
        if series:
            out.append(effective_size(label, "correct", series, keep, seed))
    return out
