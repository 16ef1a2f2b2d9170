"""One inspector visit, one query-set version: the first change makes it, the others amend it,
undo takes them back out (and removes it when empty), a closed visit's version is never changed."""

from __future__ import annotations

import shutil

import pytest

from workbench.project import visit as visits
from workbench.project.load import load_project
from workbench.project.versions import list_versions, read_labels, version_info


@pytest.fixture
def project_copy(evaluated, tmp_path):
    root = tmp_path / "proj"
    shutil.copytree(evaluated, root)
    return root


def test_three_marks_one_version_with_who_and_when(project_copy):
    root = project_copy
    q = load_project(root).queries[0]
    others = [d for d in load_project(root).documents if d not in {*q.gold_doc_ids, *q.hard_negative_ids}][:2]
    visit = visits.LabelVisit(parent="original")
    names = {visits.mark(visit, root, q.query_id, others[0], "hard_negative", "user:a"),
             visits.mark(visit, root, q.query_id, others[1], "gold", "user:a"),
             visits.mark(visit, root, q.query_id, q.gold_doc_ids[0], "not_relevant", "user:a")}
    assert names == {"labels-1"} and [v.name for v in list_versions(root)] == ["original", "labels-1"]
    info = version_info(root, "labels-1")
    assert info.parent == "original" and info.made_by == "tui:a" and "3 changes in one visit" in info.description
    assert info.settings.get("amended")
    records = read_labels(root, "labels-1")
    assert [(r.action, r.doc_id) for r in records] == [
        ("add_hard_negative", others[0]), ("add_gold", others[1]), ("remove_gold", q.gold_doc_ids[0])]
    assert all(r.by == "user:a" and r.created for r in records)
    p = load_project(root, "labels-1").query(q.query_id)
    assert p.hard_negative_ids == [*q.hard_negative_ids, others[0]]
    assert set(p.gold_doc_ids) == set(q.gold_doc_ids[1:]) | {others[1]}
    assert visits.mark(visit, root, q.query_id, others[1], "gold", "user:a") is None  # no change: nothing written

    assert visits.undo(visit, root, "user:a") == "labels-1"  # the newest change out of the open version
    p = load_project(root, "labels-1").query(q.query_id)
    assert q.gold_doc_ids[0] in p.gold_doc_ids and others[1] in p.gold_doc_ids
    assert len(read_labels(root, "labels-1")) == 2

    nxt = visits.LabelVisit(parent="labels-1")  # the visit closed: the next one makes the next version
    assert visits.mark(nxt, root, q.query_id, others[1], "not_relevant", "user:b") == "labels-2"
    assert version_info(root, "labels-2").parent == "labels-1"
    assert len(read_labels(root, "labels-1")) == 2  # the closed version is untouched


def test_undo_of_every_change_removes_the_version(project_copy):
    root = project_copy
    q = load_project(root).queries[0]
    visit = visits.LabelVisit(parent="original")
    visits.mark(visit, root, q.query_id, q.gold_doc_ids[0], "hard_negative", "user:a")
    assert visits.undo(visit, root, "user:a") == "original"
    assert [v.name for v in list_versions(root)] == ["original"] and visit.name is None
    assert visits.undo(visit, root, "user:a") is None  # nothing left to undo
    assert not list((root / "query_sets").iterdir())  # no folder left behind
