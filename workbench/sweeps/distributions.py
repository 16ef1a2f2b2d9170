"""The nine depth distributions of Protocol B (docs/METHOD.md §3), discretised over 5% depth bins.

Each is a density on depth ∈ [0, 1] (0 = start of the context), truncated to [0, 1]; a bin's
mass is the difference of its CDF at the bin's edges. Fact i goes to the bin holding the
density's quantile (i + ½)/n — so the bin counts follow the density as closely as whole facts
can (every |count − n·mass| < 1) — and to a seeded depth inside that bin.
"""

from __future__ import annotations

import math
import random
from typing import Callable

BIN_WIDTH = 0.05
N_BINS = 20

_SQRT2 = math.sqrt(2.0)


def _normal_cdf(mu: float, sigma: float) -> Callable[[float], float]:
    return lambda x: 0.5 * (1 + math.erf((x - mu) / (sigma * _SQRT2)))


def _flip(cdf: Callable[[float], float]) -> Callable[[float], float]:
    return lambda x: 1.0 - cdf(1.0 - x)


_EXP_RATE = 5.0
_RAYLEIGH_SIGMA = 0.2
_LORENTZ_GAMMA = 0.05


def _exponential(x: float) -> float:
    return 1 - math.exp(-_EXP_RATE * x)


def _rayleigh(x: float) -> float:
    return 1 - math.exp(-(x * x) / (2 * _RAYLEIGH_SIGMA**2))


def _bimodal(x: float) -> float:
    return 0.5 * _normal_cdf(0.25, 0.08)(x) + 0.5 * _normal_cdf(0.75, 0.08)(x)


def _arcsine(x: float) -> float:
    return 2 / math.pi * math.asin(math.sqrt(min(1.0, max(0.0, x))))


def _lorentzian(x: float) -> float:
    return 0.5 + math.atan((x - 0.5) / _LORENTZ_GAMMA) / math.pi


# name → CDF on the real line (truncated to [0, 1] by bin_masses)
DISTRIBUTIONS: dict[str, Callable[[float], float]] = {
    "uniform": lambda x: x,
    "normal": _normal_cdf(0.5, 0.15),
    "exponential": _exponential,
    "exponential-flipped": _flip(_exponential),
    "bimodal": _bimodal,
    "arcsine": _arcsine,
    "lorentzian": _lorentzian,
    "rayleigh": _rayleigh,
    "rayleigh-flipped": _flip(_rayleigh),
}


def bin_masses(name: str) -> list[float]:
    """Probability of each 5% depth bin under the named density (sums to 1)."""
    try:
        cdf = DISTRIBUTIONS[name]
    except KeyError:
        raise ValueError(f"unknown distribution {name!r}; known: {list(DISTRIBUTIONS)}") from None
    edges = [cdf(i * BIN_WIDTH) for i in range(N_BINS + 1)]
    total = edges[-1] - edges[0]
    return [(b - a) / total for a, b in zip(edges, edges[1:])]


def _truncated_cdf(name: str) -> Callable[[float], float]:
    cdf = DISTRIBUTIONS[name]
    lo, hi = cdf(0.0), cdf(1.0)
    return lambda x: (cdf(x) - lo) / (hi - lo)


def quantile(name: str, p: float) -> float:
    """Depth at which the truncated CDF reaches p (bisection: every CDF here is monotone)."""
    cdf = _truncated_cdf(name)
    a, b = 0.0, 1.0
    for _ in range(60):
        m = (a + b) / 2
        if cdf(m) < p:
            a = m
        else:
            b = m
    return (a + b) / 2


def depth_bin(depth: float) -> int:
    return min(N_BINS - 1, max(0, int(depth / BIN_WIDTH)))


def bin_counts(name: str, n: int) -> list[int]:
    """Facts per 5% bin: the bins of the density's n mid-quantiles (i + ½)/n."""
    bin_masses(name)  # validates the name
    counts = [0] * N_BINS
    for i in range(n):
        counts[depth_bin(quantile(name, (i + 0.5) / n))] += 1
    return counts


def depths(name: str, n: int, seed: int) -> list[float]:
    """n depths whose bins follow the density; within a bin, a seeded uniform depth."""
    rng = random.Random(f"{seed}:{name}")
    out: list[float] = []
    for b, c in enumerate(bin_counts(name, n)):
        out.extend(round((b + 0.05 + 0.9 * rng.random()) * BIN_WIDTH, 4) for _ in range(c))
    rng.shuffle(out)  # which fact lands where is seeded too
    return out
