"""Stealers, unjudged and answer-bearing documents on a project whose rankings are fixed by
construction (tests/support/insight.py says what each ranking holds)."""

from __future__ import annotations

import pytest

from support.insight import judge_not_relevant, make_insight_project
from workbench.access.ladder import load_tiers
from workbench.insight.stealers import steals, top_stealers
from workbench.insight.unjudged import aliases, unjudged
from workbench.project.load import load_project


@pytest.fixture(scope="module")
def insight_root(tmp_path_factory):
    return make_insight_project(tmp_path_factory.mktemp("insight") / "p")


def _full(project):
    return [t for t in load_tiers(project).tiers if t.name == "full"]


def test_every_steal_of_the_full_tier(insight_root):
    project = load_project(insight_root)
    found = {(s.system, s.query_id, s.gold, s.stealer): s for s in steals(project, _full(project))}
    assert set(found) == {
        ("hybrid", "q1", 1, 3), ("hybrid", "q1", 1, 2),
        ("bm25", "q1", 1, 7), ("bm25", "q2", 4, 5), ("bm25", "q2", 4, 6), ("bm25", "q3", 4, 5), ("bm25", "q3", 6, 5),
    }
    s = found[("hybrid", "q1", 1, 3)]
    assert (s.gold_rank, s.stealer_rank, s.score_gap, s.kind) == (3, 1, 2.0, "hard_negative")
    assert found[("hybrid", "q1", 1, 2)].score_gap == 1.0 and found[("hybrid", "q1", 1, 2)].kind == "other"
    # Jaccard of the word sets of "Pear tart …" and "Apple pie …": 5 shared of 18
    assert found[("bm25", "q2", 4, 5)].overlap == pytest.approx(5 / 18, abs=1e-4)
    assert all(x.embedding_similarity is None for x in found.values())  # no dense index built here


def test_the_most_frequent_stealer_and_its_diff(insight_root):
    project = load_project(insight_root)
    top = top_stealers(project, steals(project, _full(project)))
    assert [t.doc_id for t in top] == [5, 2, 3, 6, 7]  # 5 displaces 3 (query, gold) pairs; the rest one each, by DocID
    five = top[0]
    assert (five.displaced, five.queries, five.systems, five.gold, five.hard_negative_for) == (3, ["q2", "q3"], ["bm25"], 4, ["q3"])
    assert five.stealer_has[0] == "Pear" and five.gold_has[0] == "Apple"
    assert any(changed and "pear" in text.lower() for text, changed in five.stealer_spans)


def test_unjudged_and_answer_bearing_per_system(insight_root):
    project = load_project(insight_root)
    rows = {r.system: r for r in unjudged(project, _full(project))}
    bm25, hybrid = rows["bm25"], rows["hybrid"]
    # bm25's top 2: q1 [7, 1], q2 [5, 6], q3 [5, 4]: 7 and 5 (for q2) are nobody's; 7 says "Paris"
    assert (bm25.slots, bm25.unjudged, bm25.answer_bearing) == (6, 2, 1) and bm25.share == pytest.approx(2 / 6)
    assert [(d.query_id, d.doc_id, d.answer_bearing, d.alias) for d in bm25.docs] == [("q1", 7, True, "Paris"), ("q2", 5, False, "")]
    assert [(d.query_id, d.doc_id) for d in hybrid.docs] == [("q1", 2)]


def test_a_document_labelled_not_relevant_is_judged(insight_root, tmp_path):
    import shutil

    root = tmp_path / "p"
    shutil.copytree(insight_root, root)
    version = judge_not_relevant(root, "q1", 2)
    project = load_project(root, version)
    rows = {r.system: r for r in unjudged(project, _full(project))}
    assert rows["hybrid"].unjudged == 0 and rows["bm25"].unjudged == 2


def test_aliases_leave_out_what_any_text_holds():
    assert aliases("Paris | City of Light") == ["Paris | City of Light", "Paris", "City of Light"]
    assert aliases("yes") == [] and aliases("no") == []
