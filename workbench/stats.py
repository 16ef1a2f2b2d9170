"""The statistics of every figure the workbench shows: seeded, one random-number idiom.

Every resample draws from ``rng(seed, salt)``: a numpy PCG64 stream per (seed, figure), so the
same inputs and seed give the same numbers byte for byte, and adding a figure shifts no other.

Over queries (the diagnosis, `compare`):

- bootstrap_ci: percentile bootstrap (B resamples of the queries, with replacement) of a mean.
- paired_test: Fisher's randomization (sign-flip) test on per-query differences — the test ranx's
  `compare` runs by default. It assumes no distribution (our per-query outcomes are 0/1 or
  bounded, with many ties, where a t-test's normality and Wilcoxon's no-ties assumptions fail),
  and is exact (all 2^n sign patterns) for up to EXACT_MAX non-zero differences, seeded Monte
  Carlo above that.
- turning_point: the first level whose drop from the previous level exceeds TURN_THRESHOLD and
  whose paired bootstrap interval of the drop excludes zero (no drop).
- ratio_ci: mean(b) / mean(a) over paired queries, resampled together (the effective corpus size).

Over sweep cases and proportions (the sweeps):
- wilson / newcombe: score intervals of a proportion and of a difference of two;
- fisher_p: Fisher's exact test on two proportions (differences between sweep conditions);
- cluster_bootstrap: a mean over cases × repeats, resampling cases with all their repeats;
- residue_bootstrap: single-hop² − two-hop, each family's cases resampled independently;
- slope: least squares.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from statistics import fmean

import msgspec
import numpy as np

BOOTSTRAP_RESAMPLES = 2000
CONFIDENCE = 0.95
Z95 = 1.959964  # the normal quantile of CONFIDENCE (two-sided), for the score intervals
PERMUTATIONS = 20000
EXACT_MAX = 16
TURN_THRESHOLD = 0.10  # an absolute drop of the mean (figures are 0–1)
DEFAULT_SEED = 0


class Estimate(msgspec.Struct, frozen=True, array_like=False):
    mean: float | None
    low: float | None
    high: float | None
    n: int


def rng(seed: int, salt: str) -> np.random.Generator:
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
    idx = rng(seed, salt).integers(0, n, size=(resamples, n))
    means = x[idx].mean(axis=1)
    low, high = _percentiles(means)
    return Estimate(round(mean, 6), round(low, 6), round(high, 6), n)


def ratio_ci(a: list[float], b: list[float], seed: int = DEFAULT_SEED, salt: str = "",
             resamples: int = BOOTSTRAP_RESAMPLES) -> Estimate:
    """mean(b) / mean(a) over paired values (the same queries), with a percentile bootstrap interval
    resampling the pairs; resamples whose mean(a) is 0 are left out. None when mean(a) is 0."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    n = len(x)
    if n == 0 or len(y) != n or x.mean() == 0:
        return Estimate(None, None, None, n)
    ratio = float(y.mean() / x.mean())
    if n == 1:
        return Estimate(round(ratio, 6), round(ratio, 6), round(ratio, 6), 1)
    idx = rng(seed, salt).integers(0, n, size=(resamples, n))
    den, num = x[idx].mean(axis=1), y[idx].mean(axis=1)
    ok = den > 0
    low, high = _percentiles(num[ok] / den[ok])
    return Estimate(round(ratio, 6), round(low, 6), round(high, 6), n)


def _percentiles(stats: np.ndarray) -> tuple[float, float]:
    """The percentile interval of a bootstrap distribution at CONFIDENCE."""
    alpha = (1 - CONFIDENCE) / 2
    low, high = np.quantile(stats, [alpha, 1 - alpha])
    return float(low), float(high)


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
        signs = rng(seed, "paired-test").choice((1.0, -1.0), size=(permutations, len(nz)))
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


# ---------------------------------------------------------------- proportions and sweep cases


def wilson(k: int, n: int) -> tuple[float, float] | None:
    """Wilson score interval of a proportion k/n."""
    if n == 0:
        return None
    p = k / n
    d = 1 + Z95**2 / n
    c = (p + Z95**2 / (2 * n)) / d
    h = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def newcombe(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float, float] | None:
    """Difference p1 − p2 with Newcombe's hybrid score interval (method 10)."""
    w1, w2 = wilson(k1, n1), wilson(k2, n2)
    if w1 is None or w2 is None:
        return None
    p1, p2 = k1 / n1, k2 / n2
    d = p1 - p2
    lo = d - math.sqrt((p1 - w1[0]) ** 2 + (w2[1] - p2) ** 2)
    hi = d + math.sqrt((w1[1] - p1) ** 2 + (p2 - w2[0]) ** 2)
    return d, lo, hi


def fisher_p(k1: int, n1: int, k2: int, n2: int) -> float | None:
    """Two-sided Fisher's exact test on [[k1, n1 − k1], [k2, n2 − k2]]."""
    if n1 == 0 or n2 == 0:
        return None
    from scipy.stats import fisher_exact

    return float(fisher_exact([[k1, n1 - k1], [k2, n2 - k2]]).pvalue)


def _case_means(cases: list[list[float]], draws: np.ndarray) -> np.ndarray:
    """Mean over every value of the drawn cases (each with all its repeats), per resample."""
    sums = np.array([sum(v) for v in cases], dtype=float)
    counts = np.array([len(v) for v in cases], dtype=float)
    return sums[draws].sum(axis=1) / counts[draws].sum(axis=1)


def cluster_bootstrap(by_case: dict[str, list[float]], seed: int = DEFAULT_SEED,
                      resamples: int = BOOTSTRAP_RESAMPLES) -> tuple[float, float, float] | None:
    """Mean over cases × repeats, with a percentile interval from resampling cases (each with all its repeats)."""
    cases = [v for v in by_case.values() if v]
    if not cases:
        return None
    mean = fmean(x for v in cases for x in v)
    draws = rng(seed, "cluster").integers(0, len(cases), size=(resamples, len(cases)))
    return (mean, *_percentiles(_case_means(cases, draws)))


def residue_bootstrap(single: dict[str, list[float]], two: dict[str, list[float]], seed: int = DEFAULT_SEED,
                      resamples: int = BOOTSTRAP_RESAMPLES) -> tuple[float, float, float] | None:
    """single² − two-hop (the cost of composing two lookups), cases of each family resampled independently."""
    s_cases = [v for v in single.values() if v]
    t_cases = [v for v in two.values() if v]
    if not s_cases or not t_cases:
        return None
    r = rng(seed, "residue")
    s_draws = r.integers(0, len(s_cases), size=(resamples, len(s_cases)))
    t_draws = r.integers(0, len(t_cases), size=(resamples, len(t_cases)))
    stats = _case_means(s_cases, s_draws) ** 2 - _case_means(t_cases, t_draws)
    value = fmean(x for v in s_cases for x in v) ** 2 - fmean(x for v in t_cases for x in v)
    return (value, *_percentiles(stats))


def slope(xs: list[float], ys: list[float]) -> float | None:
    """Least-squares slope of ys on xs."""
    if len(xs) < 2:
        return None
    mx, my = fmean(xs), fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else None
