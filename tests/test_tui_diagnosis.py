"""The diagnosis view marks QA figures that come from a judge that failed its calibration."""

from __future__ import annotations

from screens.main import _use_figures
from workbench.session import UseRow


def test_uncalibrated_judge_marks_its_figures():
    row = {
        "model:local:qa": UseRow(task="qa", QA=4.0, fits=True, judge_ok=False),
        "model:local:oracle": UseRow(task="oracle", QA=5.0, fits=True, judge_ok=True),
    }
    assert _use_figures(row) == ("4.00*", "5.00")


def test_calibrated_or_unknown_judge_is_unmarked_and_no_fit_is_said():
    row = {"model:local:qa": UseRow(task="qa", QA=None, fits=False),
           "model:local:oracle": UseRow(task="oracle", QA=3.0, fits=True, judge_ok=None)}
    assert _use_figures(row) == ("no fit", "3.00")


def test_reading_falls_back_to_the_contains_match_when_the_judge_is_distrusted():
    from types import SimpleNamespace

    from screens.main import _provisional_reading

    tier = SimpleNamespace(name="base:x")
    summary = SimpleNamespace(fr_at_k=0.9, sr_at_k=0.95)
    use = {"base:x": {"model:local:qa": UseRow(task="qa", QA=5.0, contains=0.1, judge_ok=False, fits=True)}}
    reading = _provisional_reading(SimpleNamespace(tiers=[tier]), "hybrid", {("hybrid", "base:x"): summary}, use)
    assert "answer contains gold 0.10 (judge uncalibrated)" in reading
    assert "not using evidence it has" in reading  # high access, low use — not "both fine" from a 5.00 judge
