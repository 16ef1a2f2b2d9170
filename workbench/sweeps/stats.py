"""Intervals and tests for sweep figures (95%, seeded so a report is reproducible)."""

from __future__ import annotations

import math
import random
from statistics import fmean

Z95 = 1.959964
BOOTSTRAP = 2000


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


def cluster_bootstrap(by_case: dict[str, list[float]], seed: int = 0) -> tuple[float, float, float] | None:
    """Mean over cases × repeats, with a percentile interval from resampling cases (each with all its repeats)."""
    cases = [v for v in by_case.values() if v]
    if not cases:
        return None
    mean = fmean(x for v in cases for x in v)
    rng = random.Random(seed)
    stats = []
    for _ in range(BOOTSTRAP):
        pick = [cases[rng.randrange(len(cases))] for _ in cases]
        stats.append(fmean(x for v in pick for x in v))
    stats.sort()
    return mean, stats[int(0.025 * BOOTSTRAP)], stats[int(0.975 * BOOTSTRAP) - 1]


def residue_bootstrap(single: dict[str, list[float]], two: dict[str, list[float]], seed: int = 0) -> tuple[float, float, float] | None:
    """single² − two-hop (the cost of composing two lookups), cases of each family resampled independently."""
    s_cases = [v for v in single.values() if v]
    t_cases = [v for v in two.values() if v]
    if not s_cases or not t_cases:
        return None

    def value(s, t):
        return fmean(x for v in s for x in v) ** 2 - fmean(x for v in t for x in v)

    rng = random.Random(seed)
    stats = sorted(
        value([s_cases[rng.randrange(len(s_cases))] for _ in s_cases], [t_cases[rng.randrange(len(t_cases))] for _ in t_cases])
        for _ in range(BOOTSTRAP)
    )
    return value(s_cases, t_cases), stats[int(0.025 * BOOTSTRAP)], stats[int(0.975 * BOOTSTRAP) - 1]


def slope(xs: list[float], ys: list[float]) -> float | None:
    """Least-squares slope of ys on xs."""
    if len(xs) < 2:
        return None
    mx, my = fmean(xs), fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else None
