"""Seeded bootstrap intervals, the paired randomization test, and where a curve turns."""

from __future__ import annotations

import itertools
import random

import pytest

from workbench.stats import bootstrap_ci, paired_test, turning_point


def test_bootstrap_is_seeded_and_deterministic():
    rng = random.Random(3)
    values = [rng.random() for _ in range(40)]
    a, b = bootstrap_ci(values, seed=1, salt="x"), bootstrap_ci(values, seed=1, salt="x")
    assert a == b
    assert bootstrap_ci(values, seed=2, salt="x") != a
    assert bootstrap_ci(values, seed=1, salt="y") != a  # each figure has its own stream
    assert a.low < a.mean < a.high and a.n == 40


def test_bootstrap_interval_narrows_with_more_queries():
    few = bootstrap_ci([0, 1] * 5, seed=0)
    many = bootstrap_ci([0, 1] * 200, seed=0)
    assert (many.high - many.low) < (few.high - few.low) / 3
    assert bootstrap_ci([], seed=0).mean is None and bootstrap_ci([1.0]).low == 1.0


def _exact_p(d: list[float]) -> float:
    obs = abs(sum(d) / len(d))
    stats = [abs(sum(s * x for s, x in zip(signs, d)) / len(d)) for signs in itertools.product((1, -1), repeat=len(d))]
    return sum(s >= obs - 1e-12 for s in stats) / len(stats)


def test_paired_test_exact_equals_brute_force_enumeration():
    a = [1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 0.5, 1]
    b = [0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0.0, 0]
    t = paired_test(a, b)
    d = [x - y for x, y in zip(a, b) if x != y]
    assert t.p_value == pytest.approx(_exact_p(d), abs=1e-6)
    assert (t.wins, t.losses, t.ties, t.n) == (7, 0, 5, 12)
    assert "exact" in t.method


def test_paired_test_monte_carlo_is_seeded_and_close_to_exact():
    rng = random.Random(5)
    a = [float(rng.random() < 0.7) for _ in range(60)]
    b = [float(rng.random() < 0.4) for _ in range(60)]
    t1, t2 = paired_test(a, b, seed=3), paired_test(a, b, seed=3)
    assert t1 == t2 and "sign flips" in t1.method
    assert t1.p_value < 0.05  # a real difference of ~0.3 over 60 queries
    same = paired_test(a, a)
    assert same.p_value == 1.0 and same.ties == 60


def test_no_difference_is_not_significant():
    rng = random.Random(9)
    a = [float(rng.random() < 0.5) for _ in range(50)]
    b = a[25:] + a[:25]  # same rate, shuffled pairing
    assert paired_test(a, b, seed=0).p_value > 0.05


def test_turning_point_finds_the_first_real_drop():
    qs = [f"q{i}" for i in range(30)]
    flat = {q: 1.0 for q in qs}
    slight = {q: (0.0 if i < 2 else 1.0) for i, q in enumerate(qs)}  # drop 0.067: under the threshold
    big = {q: (0.0 if i < 15 else 1.0) for i, q in enumerate(qs)}  # drop 0.43
    turn = turning_point([("base", flat), ("mix", slight), ("full", big)], seed=0)
    assert turn is not None and turn.level == "full" and turn.previous == "mix"
    assert turn.ci.low > 0 and "excludes no drop" in turn.rule
    assert turning_point([("base", flat), ("mix", slight)], seed=0) is None


def test_a_large_drop_on_too_few_queries_is_noise():
    # one query of three flips: mean drop 0.33 > threshold, but the interval reaches 0
    a = {"q1": 1.0, "q2": 1.0, "q3": 1.0}
    b = {"q1": 0.0, "q2": 1.0, "q3": 1.0}
    assert turning_point([("base", a), ("full", b)], seed=0) is None
