"""Seeded resampling over queries: confidence intervals, the paired test, and where a curve turns.

- bootstrap_ci: percentile bootstrap (B resamples of the queries, with replacement) of a mean.
- paired_test: Fisher's randomization (sign-flip) test on per-query differences — the test ranx's
  `compare` runs by default. It assumes no distribution (our per-query outcomes are 0/1 or
  bounded, with many ties, where a t-test's normality and Wilcoxon's no-ties assumptions fail),
  and is exact (all 2^n sign patterns) for up to EXACT_MAX non-zero differences, seeded Monte
  Carlo above that.
- turning_point: the first level whose drop from the previous level exceeds TURN_THRESHOLD and
  whose paired bootstrap interval of the drop excludes zero (no drop).

Same inputs and seed → the same numbers, byte for byte.
"""

from __future__ import annotations

import hashlib
import itertools

import msgspec
import numpy as np

BOOTSTRAP_RESAMPLES = 2000
CONFIDENCE = 0.95
PERMUTATIONS = 20000
EXACT_MAX = 16
TURN_THRESHOLD = 0.10  # an absolute drop of the mean (figures are 0–1)
DEFAULT_SEED = 0


class Estimate(msgspec.Struct, frozen=True, array_like=False):
    mean: float | None
    low: float | None
    high: float | None
    n: int


def _rng(seed: int, salt: str) -> np.random.Generator:
    # One stream per (seed, figure): adding a figure does not shift the others' resamples.
    digest = int.from_bytes(hashlib.sha256(salt.encode()).digest()[:8], "little")
    return np.random.Generator(np.random.PCG64([seed, digest]))


def bootstrap_ci(values: list[float], seed: int = DEFAULT_SEED, salt: str = "", resamples: int = BOOTSTRAP_RESAMPLES) -> Estimate:
    n = len(values)
    if n == 0:
        return Estimate(None, None, None, 0)
    x = np.asarray(values, dtype=float)
    mean = float(x.mean())
    if n == 1:
        return Estimate(mean, mean, mean, 1)
    idx = _rng(seed, salt).integers(0, n, size=(resamples, n))
    means = x[idx].mean(axis=1)
    alpha = (1 - CONFIDENCE) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return Estimate(round(mean, 6), round(float(low), 6), round(float(high), 6), n)


class PairedTest(msgspec.Struct, frozen=True):
    n: int  # paired queries
    wins: int  # A > B
    losses: int
    ties: int
    mean_diff: float | None  # mean(A − B)
    ci: Estimate  # bootstrap interval of the mean difference
    p_value: float | None  # two-sided
    method: str


def paired_test(a: list[float], b: list[float], seed: int = DEFAULT_SEED, permutations: int = PERMUTATIONS) -> PairedTest:
    if len(a) != len(b):
        raise ValueError("paired samples must have the same length")
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    wins, losses = int((d > 0).sum()), int((d < 0).sum())
    ties = len(d) - wins - losses
    ci = bootstrap_ci(d.tolist(), seed, "paired-diff")
    if len(d) == 0:
        return PairedTest(0, 0, 0, 0, None, ci, None, "no paired queries")
    observed = abs(d.mean())
    nz = d[d != 0]
    if len(nz) == 0:
        return PairedTest(len(d), wins, losses, ties, 0.0, ci, 1.0, "randomization test: every difference is zero")
    if len(nz) <= EXACT_MAX:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=len(nz))))
        stats = np.abs((signs * nz).sum(axis=1) / len(d))
        p = float((stats >= observed - 1e-12).mean())
        method = f"Fisher randomization test, exact (all {len(signs)} sign patterns)"
    else:
        signs = _rng(seed, "paired-test").choice((1.0, -1.0), size=(permutations, len(nz)))
        stats = np.abs((signs * nz).sum(axis=1) / len(d))
        # +1: the observed labelling is one of the permutations (never p = 0)
        p = float(((stats >= observed - 1e-12).sum() + 1) / (permutations + 1))
        method = f"Fisher randomization test, {permutations} seeded sign flips"
    return PairedTest(len(d), wins, losses, ties, round(float(d.mean()), 6), ci, round(p, 6), method)


class Turn(msgspec.Struct, frozen=True):
    level: str  # the first level where the curve turns
    previous: str
    drop: float  # mean(previous) − mean(level), over the queries on both
    ci: Estimate  # bootstrap interval of that drop
    rule: str


def turning_point(series: list[tuple[str, dict[str, float]]], seed: int = DEFAULT_SEED, threshold: float = TURN_THRESHOLD, salt: str = "") -> Turn | None:
    """series: (level, {query_id: value}) in ladder order. Paired over the queries both levels share."""
    for (prev, a), (level, b) in itertools.pairwise(series):
        common = sorted(set(a) & set(b))
        if len(common) < 2:
            continue
        drops = [a[q] - b[q] for q in common]
        est = bootstrap_ci(drops, seed, f"turn:{salt}:{level}")
        if est.mean is not None and est.mean > threshold and est.low is not None and est.low > 0:
            rule = (f"first level whose drop from {prev} exceeds {threshold:.2f} ({est.mean:.3f}) and whose "
                    f"{CONFIDENCE:.0%} interval [{est.low:.3f}, {est.high:.3f}] excludes no drop (n={est.n})")
            return Turn(level, prev, est.mean, est, rule)
    return None
