"""The report's sharper-diagnosis section on stored results made by construction (tests/support/insight.py
rankings; q2's answers: rag wrong with the gold in context, oracle right, near-miss arm wrong → D2)."""

from __future__ import annotations

import pytest

from support.diagnosis import SCRIPT_TITLE, calibrate, store_answers
from support.insight import make_insight_project
from workbench.access.ladder import load_tiers
from workbench.project.load import load_project
from workbench.report import build_report, render


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = make_insight_project(tmp_path_factory.mktemp("insight-report") / "p")
    project = load_project(root)
    tiers = load_tiers(project).tiers
    for tier in tiers:
        if "q2" in tier.query_ids:
            store_answers(project, tier, "rag", {"q2": ("cherries", [4, 6])})
            store_answers(project, tier, "oracle", {"q2": ("apples", [4])})
            store_answers(project, tier, "nearmiss", {"q2": ("cherries", [6, 4])})
    calibrate(project, separates=False)  # the deterministic match decides
    return build_report(project, tiers)


def test_the_section_holds_every_analysis(report):
    ins = report.insight
    assert ins is not None and ins.keep == 0.85
    assert {(s.level, s.system, s.interference, s.volume, s.unsplit) for s in ins.split} >= {("full", "hybrid+local", 1, 0, 0)}
    assert ins.stealers[0].doc_id == 5
    assert any(d.doc_id == 7 and d.alias == "Paris" for d in ins.answer_bearing)
    hybrid_fr = next(e for e in ins.effective if e.system == "hybrid" and e.metric == "FR@2")
    assert hybrid_fr.falls_at is None and hybrid_fr.effective_level == "full"  # the same ranking on every tier


def test_markdown_headline_and_sections(report):
    md = render(report, "md").decode()
    head = md.split("## Verdicts per tier")[0]
    assert "Effective corpus size:" in head and "hybrid keeps 85% of its FR@2 up to full" in head
    assert "| full | hybrid+local | 1 | 0 | 0 |" in md
    assert "**5 Pear tart** outranks 3 gold in 2 queries" in md
    assert "7 Paris museums (#1) contains “Paris”" in md
    assert "| D2 | USE-UNDER-DISTRACTORS |" in md  # the rule table names the split rows


def test_html_shows_data_as_text(report):
    html = render(report, "html").decode()
    assert "<h2>Stealers" in html and "<b>5 Pear tart</b>" in html
    assert SCRIPT_TITLE not in html and "&lt;script&gt;" in html  # document 3 is one of the stealers
