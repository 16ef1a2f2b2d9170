"""On the real demo corpus (real indexes, real retriever runs): verdicts agree with the access figures."""

from __future__ import annotations

from workbench.diagnosis.verdicts import VerdictReader, read_verdicts
from workbench.diagnosis.overview import overview
from workbench.access.ladder import load_tiers
from workbench.project.load import load_project


def test_access_only_verdicts_match_the_figures(sample_project):
    p = load_project(sample_project)
    tiers = load_tiers(p).tiers
    c = VerdictReader(p)
    qv = read_verdicts(p, tiers, collector=c)
    assert [s.name for s in qv.systems] == ["bm25", "dense", "hybrid"]  # no model run yet
    ov = overview(p, tiers, qv, c, seed=0)
    for level in qv.levels:
        verdicts = [v for v in qv.of("hybrid") if v.level == level]
        # with no answer, "reached" = every gold in the top K: A2 (not reached: ACCESS?) vs N4 (reached)
        reached = sum(v.rule == "N4" for v in verdicts) / len(verdicts)
        all_gold = [min(1.0, a.sr_at_k) == 1.0 for t in tiers if t.name in qv.level_tiers[level]
                    for q in t.query_ids if (a := c.access(t, "hybrid", p.query(q))) is not None]
        assert reached == sum(all_gold) / len(all_gold)
        assert {v.rule for v in verdicts} <= {"A2", "N4"}
        row = next(a for a in ov.access if a.system == "hybrid" and a.level == level)
        assert row.n == len(verdicts) and row.sr.low <= row.sr.mean <= row.sr.high
    missed = next(v for v in qv.of("hybrid") if v.rule == "A2")
    assert f"> K={qv.k}" in missed.because or "not retrieved" in missed.because
    assert "--task oracle" in missed.command and missed.key == "o"
