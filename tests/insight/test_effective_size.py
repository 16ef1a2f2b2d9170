"""Effective corpus size on a hand-made ladder of figures: the answer is known by construction."""

from __future__ import annotations

import pytest

from workbench.insight.effective_size import effective_size

QUERIES = [f"q{i}" for i in range(10)]


def level(name: str, tokens: int, hits: int) -> tuple[str, int, dict[str, float]]:
    """A level where the first `hits` of ten queries score 1 and the rest 0."""
    return name, tokens, {q: float(i < hits) for i, q in enumerate(QUERIES)}


LADDER = [level("base", 4000, 10), level("mix:16000", 16000, 9), level("global:64000", 64000, 9),
          level("global:128000", 128000, 6), level("full", 300000, 9)]


def test_the_level_before_the_first_fall_below_keep():
    e = effective_size("hybrid", "FR@10", LADDER)
    # 0.9 ≥ 0.85 at mix and global:64000; 0.6 < 0.85 at global:128000; full's 0.9 comes after the fall
    assert (e.effective_level, e.effective_tokens, e.falls_at) == ("global:64000", 64000, "global:128000")
    assert [x.keeps for x in e.levels] == [True, True, False, True]
    fell = e.levels[2]
    assert fell.ratio.mean == pytest.approx(0.6) and fell.ratio.n == 10
    assert fell.ratio.low <= 0.6 <= fell.ratio.high and fell.ratio.high < 1.0
    assert e.sentence.startswith("hybrid keeps 85% of its FR@10 up to global:64000 — about 64K tokens; it falls below at global:128000")


def test_keep_is_a_setting():
    assert effective_size("hybrid", "FR@10", LADDER, keep=0.95).effective_level == "base"
    assert effective_size("hybrid", "FR@10", LADDER, keep=0.5).falls_at is None
    assert "every level" in effective_size("hybrid", "FR@10", LADDER, keep=0.5).sentence


def test_the_ratio_is_paired_over_the_queries_both_levels_have():
    # the big level lacks q0..q4 (all 1 at base); over the shared q5..q9 it keeps everything
    base = level("base", 4000, 10)
    half = ("full", 300000, {q: 1.0 for q in QUERIES[5:]})
    e = effective_size("bm25", "SR@10", [base, half])
    assert e.levels[0].ratio.mean == 1.0 and e.levels[0].ratio.n == 5 and e.effective_level == "full"


def test_a_zero_base_has_no_effective_size():
    e = effective_size("bm25", "FR@10", [level("base", 4000, 0), level("full", 300000, 3)])
    assert e.effective_level is None and e.levels[0].ratio.mean is None and "no figure to keep" in e.sentence


def test_the_same_seed_gives_the_same_interval():
    a, b = effective_size("x", "SR@10", LADDER, seed=3), effective_size("x", "SR@10", LADDER, seed=3)
    assert a == b
