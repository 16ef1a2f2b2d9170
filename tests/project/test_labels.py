"""Labelling while triaging: every change a new query-set version with who and when; undo; export."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.access.evaluate import evaluate
from workbench.project.labels import edit_answer, label, undo
from workbench.access.ladder import load_tiers
from workbench.project.load import load_project
from workbench.project.versions import list_versions, read_labels
from workbench.triage.queries import edit_original_answer


@pytest.fixture
def triage_project(evaluated, tmp_path, monkeypatch) -> Path:
    """A copy of `evaluated` with one unlabelled query added from the command line (ranked everywhere)."""
    monkeypatch.setenv("WORKBENCH_USER", "tester")
    root = tmp_path / "proj"
    shutil.copytree(evaluated, root)
    project = load_project(root)
    text = project.queries[0].query.replace("?", " (from the log)?")
    result = CliRunner().invoke(main, ["add-query", str(root), "--query", text, "--id", "log-1"])
    assert result.exit_code == 0, result.output
    return root


def full_figures(project, query_id: str):
    tiers = [t for t in load_tiers(project).tiers if t.name == "full"]
    results = evaluate(project, tiers, {})  # stored rankings only: nothing is searched again
    from workbench.access.runs import RunStore

    run = RunStore(project).load("bm25", "full")
    from workbench.access.evaluate import score_run

    _, per_query = score_run(project, run, 10)
    return next((q for q in per_query if q.query_id == query_id), None), results


def test_marking_gold_makes_a_version_with_who_and_when_and_scores_the_query(triage_project):
    original = load_project(triage_project)
    gold = original.queries[0].gold_doc_ids  # the query it paraphrases: the same evidence
    assert full_figures(original, "log-1")[0] is None  # unlabelled: not scored
    info = None
    project = original
    for doc_id in gold:
        info = label(project, "log-1", doc_id, "gold", "user:tester")
        project = load_project(triage_project, info.name)
    assert [v.name for v in list_versions(triage_project)] == ["original", "labels-1", "labels-2"]
    assert info.parent == "labels-1" and info.made_by == "tui:tester" and info.created
    records = read_labels(triage_project, "labels-2")
    assert [(r.query_id, r.action, r.doc_id, r.by, r.method) for r in records] == [("log-1", "add_gold", gold[1], "user:tester", "tui")]
    assert project.query("log-1").gold_doc_ids == gold
    scored, _ = full_figures(project, "log-1")
    assert scored is not None and set(scored.gold_ranks) == set(gold)
    assert load_project(triage_project).query("log-1").gold_doc_ids == []  # queries.jsonl untouched


def test_hard_negative_not_relevant_and_undo(triage_project):
    project = load_project(triage_project)
    doc = project.queries[0].gold_doc_ids[0]
    v1 = label(project, "log-1", doc, "gold", "user:tester")
    v2 = label(load_project(triage_project, v1.name), "log-1", doc, "hard_negative", "user:tester")
    assert [r.action for r in read_labels(triage_project, v2.name)] == ["remove_gold", "add_hard_negative"]
    p2 = load_project(triage_project, v2.name)
    assert (p2.query("log-1").gold_doc_ids, p2.query("log-1").hard_negative_ids) == ([], [doc])
    assert label(p2, "log-1", doc, "hard_negative", "user:tester") is None  # no change, no version
    v3 = undo(p2, v1.name, v2.name, "user:tester")
    p3 = load_project(triage_project, v3.name)
    assert p3.query("log-1").gold_doc_ids == [doc] and v3.parent == v2.name
    assert {r.reason for r in read_labels(triage_project, v3.name)} == {f"undo of {v2.name}"}
    v4 = label(p3, "log-1", doc, "not_relevant", "user:tester")
    p4 = load_project(triage_project, v4.name)
    assert (p4.query("log-1").gold_doc_ids, p4.query("log-1").hard_negative_ids) == ([], [])


def test_editing_the_reference_answer_keeps_the_labelled_chain_loadable(triage_project):
    from workbench.triage.queries import read_edits

    project = load_project(triage_project)
    v1 = label(project, "log-1", project.queries[0].gold_doc_ids[0], "gold", "user:tester")
    name = edit_answer(triage_project, v1.name, "log-1", "a new answer", "user:tester", edit_original_answer)
    assert name != v1.name
    p = load_project(triage_project, name)
    assert p.query("log-1").answer == "a new answer" and p.query("log-1").gold_doc_ids
    assert load_project(triage_project).query("log-1").answer == "a new answer"
    edit = read_edits(triage_project)[-1]
    assert (edit.action, edit.before, edit.after, edit.by) == ("edit_answer", "", "a new answer", "user:tester")


def test_export_labels_as_beir_qrels_and_queries_jsonl(triage_project, tmp_path):
    from workbench.project.importers import read_beir_qrels

    project = load_project(triage_project)
    v1 = label(project, "log-1", project.queries[0].gold_doc_ids[0], "gold", "user:tester")
    out = tmp_path / "labels"
    result = CliRunner().invoke(main, ["export-labels", str(triage_project), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"query-set version: {v1.name}" in result.output
    problems: list = []
    rows = read_beir_qrels(out / "qrels" / "test.tsv", problems)
    assert problems == []
    qrels = {qid: [doc for doc, _where in docs] for qid, docs in rows.items()}
    labelled = load_project(triage_project, v1.name)
    source = {d.doc_id: d.source_id for d in labelled.documents.values()}
    assert qrels == {q.query_id: [source[d] for d in q.gold_doc_ids] for q in labelled.queries if q.gold_doc_ids}
    assert (out / "queries.jsonl").read_bytes() == (triage_project / "query_sets" / v1.name / "queries.jsonl").read_bytes()


def test_a_query_added_later_is_carried_into_the_labelled_version(triage_project):
    from workbench.project.labels import carry_query
    from workbench.triage.queries import add_query

    project = load_project(triage_project)
    v1 = label(project, "log-1", project.queries[0].gold_doc_ids[0], "gold", "user:tester")
    add_query(triage_project, "another failing query?", query_id="log-2")
    assert not load_project(triage_project, v1.name).has_query("log-2")
    name = carry_query(triage_project, v1.name, "log-2", "user:tester")
    p = load_project(triage_project, name)
    assert p.has_query("log-2") and p.query("log-1").gold_doc_ids  # the labels made so far are kept
