"""The near-miss split of USE-UNDER-DISTRACTORS (rows D2, D3) on stored answers made by construction.

support/diagnosis.py: q2's gold 4 is ranked #1 by hybrid, the rag reader (gold in its context) says
"cherries" (wrong), the oracle says "apples" (right) → D1. A near-miss answer (the gold 4 with q2's hard
negative 6, nothing else) decides the cause: wrong there too → interference (D2); right → volume (D3).
"""

from __future__ import annotations

import pytest

from support.diagnosis import fill, make_project, store_answers
from workbench.access.ladder import load_tiers
from workbench.diagnosis.verdicts import read_verdicts
from workbench.diagnosis.rules import DISTRACTOR_CAUSES, RULES, Verdict, split_distractors
from workbench.project.load import load_project


@pytest.fixture
def diag_root(tmp_path):
    root = make_project(tmp_path / "p")
    fill(root)
    return root


def _q2_verdicts(root):
    project = load_project(root)
    tiers = load_tiers(project).tiers
    qv = read_verdicts(project, tiers)
    return [v for v in qv.verdicts if v.query_id == "q2" and v.system == "hybrid+local"]


def test_without_a_near_miss_answer_it_stays_d1(diag_root):
    assert {v.rule for v in _q2_verdicts(diag_root)} == {"D1"}


@pytest.mark.parametrize("answer, row", [("cherries", "D2"), ("apples", "D3")])
def test_the_near_miss_answer_splits_d1(diag_root, answer, row):
    project = load_project(diag_root)
    for tier in load_tiers(project).tiers:
        store_answers(project, tier, "nearmiss", {"q2": (answer, [6, 4])})
    verdicts = _q2_verdicts(diag_root)
    assert verdicts and {(v.verdict, v.rule) for v in verdicts} == {("USE-UNDER-DISTRACTORS", row)}
    v = verdicts[0]
    assert f"near-miss arm answer {'wrong' if row == 'D2' else 'right'}" in v.because
    assert v.because.endswith(f"({DISTRACTOR_CAUSES[row]}) → USE-UNDER-DISTRACTORS")
    # the other queries' verdicts are untouched (q1 ACCESS on full, q3 USE)
    others = {(v.query_id, v.rule) for v in read_verdicts(project, load_tiers(project).tiers).verdicts if v.system == "hybrid+local"}
    assert ("q3", "U1") in others and ("q1", "A1") in others


def test_split_leaves_every_other_row_alone_and_rows_sit_before_d1():
    rows = list(RULES)
    assert rows.index("D2") < rows.index("D3") < rows.index("D1")
    for row in RULES:
        v = Verdict(RULES[row][0], row, f"facts → {RULES[row][0]}")
        assert split_distractors(v, None) == v
        if row != "D1":
            assert split_distractors(v, object()) == v  # type: ignore[arg-type]
