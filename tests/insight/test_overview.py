"""The TUI overview's lines of the sharper diagnosis, through the session facade."""

from __future__ import annotations

from support.diagnosis import calibrate, qa_result
from support.insight import make_insight_project
from workbench.access.runs import tier_hash
from workbench.llm.records import TierRun
from workbench.llm.store import LLMRunStore
from workbench.session import insight_overview, open_session


def test_effective_sizes_then_position_lines(tmp_path):
    root = make_insight_project(tmp_path / "p")
    session, stale = open_session(root)
    lines = insight_overview(session)
    # bm25's FR@2 is 0 at base (q3's gold 4 and 6 are not both in its top 2): its SR@2 stands instead
    assert lines == [
        "bm25 keeps 85% of its SR@2 up to full — about 189 tokens (every level of the ladder)",
        "hybrid keeps 85% of its FR@2 up to full — about 189 tokens (every level of the ladder)",
    ]
    assert not any("by the gold's depth" in line for line in lines)  # no long-context run yet
    tier = next(t for t in session.tiers if t.name == "full")
    LLMRunStore(session.project).save(TierRun(
        system="model:local:qa", model="local", task="qa", variant="standard", tier="full", tier_hash=tier_hash(session.project, tier),
        key="test", fits=True, input_tokens=100, budget_tokens=7000, judge="local", qa=[qa_result("q1", "Paris", [1, 2, 3, 4, 5, 6, 7])],
        complete=True))
    calibrate(session.project, separates=True)
    lines = insight_overview(session)
    assert "local on full, by the gold's depth; answers right 0%:1/1" in lines
