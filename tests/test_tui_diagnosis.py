"""The diagnosis view marks QA figures that come from a judge that failed its calibration."""

from __future__ import annotations

from screens.main import _use_figures


def test_uncalibrated_judge_marks_its_figures():
    row = {
        "model:local:qa": {"QA": 4.0, "fits": True, "judge_ok": False},
        "model:local:oracle": {"QA": 5.0, "fits": True, "judge_ok": True},
    }
    assert _use_figures(row) == ("4.00*", "5.00")


def test_calibrated_or_unknown_judge_is_unmarked_and_no_fit_is_said():
    row = {"model:local:qa": {"QA": None, "fits": False}, "model:local:oracle": {"QA": 3.0, "fits": True, "judge_ok": None}}
    assert _use_figures(row) == ("no fit", "3.00")
