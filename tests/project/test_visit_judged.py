"""A not-relevant mark on a document nobody judged changes no list; with judged=True (the
inspector's Unjudged pane) it is still recorded, so the document counts as judged from then on."""

from __future__ import annotations

from support.insight import make_insight_project
from workbench.access.ladder import load_tiers
from workbench.insight.unjudged import unjudged
from workbench.project import visit as visits
from workbench.project.load import load_project
from workbench.project.versions import list_versions, read_labels


def test_a_judged_not_relevant_mark_is_recorded_and_undone(tmp_path):
    root = make_insight_project(tmp_path / "p")
    visit = visits.LabelVisit(parent="original")
    assert visits.mark(visit, root, "q1", 7, "not_relevant", "user:a") is None  # no list changes: nothing written
    assert [v.name for v in list_versions(root)] == ["original"]
    assert visits.mark(visit, root, "q1", 7, "not_relevant", "user:a", judged=True) == "labels-1"
    assert [(r.action, r.doc_id, r.label) for r in read_labels(root, "labels-1")] == [("none", 7, "not_relevant")]
    project = load_project(root, "labels-1")
    full = [t for t in load_tiers(project).tiers if t.name == "full"]
    bm25 = next(r for r in unjudged(project, full) if r.system == "bm25")
    assert all(d.doc_id != 7 for d in bm25.docs)  # judged now
    assert visits.undo(visit, root, "user:a") == "original"  # its only change: the version goes
    assert [v.name for v in list_versions(root)] == ["original"]
