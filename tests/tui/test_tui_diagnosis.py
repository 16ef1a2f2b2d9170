"""The diagnosis view marks QA figures that come from a judge that failed its calibration."""

from __future__ import annotations

from screens.panes.diagnosis import _use_figures
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


def test_verdicts_of_a_session_in_the_list_and_the_diagnosis_tab(tmp_path):
    """The list's verdict cell and the Diagnosis tab read the session's diagnosis (stored results of
    tests/support/diagnosis.py: q1 passes on base and fails access above; q2, q3 fail use)."""
    from rich.console import Console

    from screens.panes.diagnosis import verdict_section
    from screens.panes.queries import verdict_cell
    from support import diagnosis as ds
    from workbench import session as core

    root = ds.make_project(tmp_path / "tiny")
    ds.fill(root)
    s, _ = core.open_session(root)
    def cell(qid: str) -> str:  # the list's verdict cell, from the row its worker reads
        rows = {r.query_id: r for r in core.read_query_list(s, core.figures_system(s), "", "ladder", 100).rows}
        return verdict_cell(rows[qid].verdict).plain

    assert cell("q1") == "…"  # not diagnosed yet
    core.diagnose(s)
    assert cell("q1") == "ACCESS" and cell("q2") == "USE-DISTR"
    console = Console(width=160, record=True, file=open("/dev/null", "w"))
    for part in verdict_section(s):
        console.print(part)
    text = console.export_text()
    assert "Diagnosis hybrid+local is use-bound" in text and "U ≥ 2·A" in text and "prompting" in text
    assert text.index("reranker") < text.index("prompting")  # q1 loses gold: the access fixes stay, first (issue 40)


def test_a_reading_needs_min_decided_verdicts_in_the_diagnosis_tab(tmp_path, monkeypatch):
    """The one reading rule (workbench/project/settings.py): each level of the tiny project has 3 decided
    verdicts (fewer than MIN_DECIDED: no reading, a dash), the overall row 9 (its reading given);
    with the rule raised above 9 the head says there is no reading instead of "is use-bound"."""
    from rich.console import Console

    from screens.panes import diagnosis as pane
    from support import diagnosis as ds
    from workbench import session as core

    root = ds.make_project(tmp_path / "tiny")
    ds.fill(root)
    s, _ = core.open_session(root)
    core.diagnose(s)
    decided = {r.level: r.decided for r in s.diagnosis.readings(core.verdict_system(s))}
    assert core.MIN_DECIDED > 3 and decided == {"base": 3, "shared": 3, "full": 3, "overall": 9}

    def shown() -> str:
        console = Console(width=160, record=True, file=open("/dev/null", "w"))
        for part in pane.verdict_section(s):
            console.print(part)
        return console.export_text()

    # the table's body rows (no outer edge: its cells are split by the inner rules only)
    rows = {line.split("│")[0].strip(): line.split("│")[-1].strip() for line in shown().splitlines() if "│" in line}
    assert rows == {"base": "–", "shared": "–", "full": "–", "overall": "use-bound"}

    # the rule raised above the overall count (through the facade the pane reads it from): no reading anywhere
    monkeypatch.setattr(core, "MIN_DECIDED", 10)
    monkeypatch.setattr(core, "reading_given", lambda n: n >= 10)
    text = shown()
    assert "Diagnosis hybrid+local: no reading yet (9 decided verdicts of 9; a reading needs at least 10" in text
    assert " is use-bound" not in text
