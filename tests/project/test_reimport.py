"""Issue 40: `workbench import` into a project the user has worked in merges — the input's new
documents and queries are added, and every query added with add-query, every edited answer and
every label (with each query-set version built on them) is kept; nothing is dropped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from support.paths import hotpot_rows
from workbench.cli import main
from workbench.project.files import QUERIES_FILE
from workbench.project.labels import edit_answer, label
from workbench.project.load import load_project
from workbench.project.versions import list_versions
from workbench.triage.queries import edit_original_answer


def _worked_in(root: Path) -> dict:
    """What a user does in a day: two queries added from a log, a document labelled gold (a
    version), a reference answer edited on that version (a child version and queries.jsonl)."""
    runner = CliRunner()
    project = load_project(root)
    source = next(d.source_id for d in project.documents.values() if d.source_id)
    for n, text in enumerate(("who wrote the first log query?", "which year did the second one ask about?"), 1):
        res = runner.invoke(main, ["add-query", str(root), "--query", text, "--gold", source, "--id", f"log-{n}", "--no-run"])
        assert res.exit_code == 0, res.output
    q = project.queries[0]
    doc = next(d for d in sorted(project.documents) if d not in q.gold_doc_ids and d not in q.hard_negative_ids)
    labelled = label(load_project(root), q.query_id, doc, "gold", "user:ann")
    assert labelled is not None
    edited = edit_answer(root, labelled.name, q.query_id, "an answer the user corrected", "user:ann", edit_original_answer)
    return {"query": q.query_id, "doc": doc, "versions": [labelled.name, edited],
            "lines": len((root / QUERIES_FILE).read_bytes().splitlines())}


def _kept(root: Path, made: dict) -> None:
    lines = (root / QUERIES_FILE).read_bytes().splitlines()
    assert len(lines) >= made["lines"]
    project = load_project(root)
    assert project.has_query("log-1") and project.has_query("log-2")
    assert project.query(made["query"]).answer == "an answer the user corrected"
    for name in made["versions"]:
        version = load_project(root, name)  # each version still loads against the new original
        assert made["doc"] in version.query(made["query"]).gold_doc_ids
    assert [v.name for v in list_versions(root)][1:] == made["versions"]


def test_reimporting_the_same_input_keeps_added_queries_edited_answers_and_labels(project_copy, source_files):
    made = _worked_in(project_copy)
    before = {p: (project_copy / p).read_bytes() for p in ("documents.jsonl", QUERIES_FILE)}
    docs, queries = source_files
    res = CliRunner().invoke(main, ["import", str(project_copy), "--documents", str(docs), "--queries", str(queries)])
    assert res.exit_code == 0, res.output
    said = " ".join(res.output.split())
    assert "added 0 documents and 0 queries" in said and "every record it had is kept" in said
    assert "kept 2 queries the input does not have" in said and "log-1" in said
    assert "1 query of the input differs" in said and made["query"] in said  # the edited answer: the project's kept
    _kept(project_copy, made)
    # nothing new: nothing written, so every stored result stays current
    assert {p: (project_copy / p).read_bytes() for p in before} == before
    for name in ["original", *made["versions"]]:
        res = CliRunner().invoke(main, ["eval", str(project_copy), "--retrievers", "bm25", "--tiers", "full", "--json",
                                        "--queries-version", name])
        assert res.exit_code == 0, (name, res.output)
        assert json.loads(res.stdout)["queries_version"] == name


def test_reimporting_a_grown_input_adds_its_new_records_and_keeps_the_users(project_copy, source_files, tmp_path):
    made = _worked_in(project_copy)
    docs, queries = source_files
    have = {json.loads(line)["query_id"] for line in queries.read_text().splitlines()}
    extra_q = next(q for q in hotpot_rows("queries.jsonl") if q["query_id"] not in have)
    rows = {r["doc_id"]: r for r in hotpot_rows("corpus.jsonl")}
    in_docs = {json.loads(line)["doc_id"] for line in docs.read_text().splitlines()}
    new_docs = [rows[d] for d in extra_q["gold_doc_ids"] + extra_q["negative_doc_ids"] if d not in in_docs]
    assert new_docs
    grown_docs, grown_queries = tmp_path / "docs.jsonl", tmp_path / "queries.jsonl"
    grown_docs.write_text(docs.read_text() + "".join(json.dumps(d) + "\n" for d in new_docs))
    grown_queries.write_text(queries.read_text() + json.dumps(extra_q) + "\n")
    n_docs, n_queries = len(load_project(project_copy).documents), len(load_project(project_copy).queries)

    res = CliRunner().invoke(main, ["import", str(project_copy), "--documents", str(grown_docs), "--queries", str(grown_queries)])
    assert res.exit_code == 0, res.output
    assert f"added {len(new_docs)} documents and 1 queries" in " ".join(res.output.split())
    _kept(project_copy, made)
    project = load_project(project_copy)
    assert len(project.documents) == n_docs + len(new_docs) and len(project.queries) == n_queries + 1
    by_source = {d.source_id: d.doc_id for d in project.documents.values()}
    assert project.query(extra_q["query_id"]).gold_doc_ids == [by_source[s] for s in extra_q["gold_doc_ids"]]
    for name in ["original", *made["versions"]]:  # the tiers are rebuilt for the new corpus; every version scores
        res = CliRunner().invoke(main, ["eval", str(project_copy), "--retrievers", "bm25", "--tiers", "full", "--json",
                                        "--queries-version", name])
        assert res.exit_code == 0, (name, res.output)


def test_an_import_into_a_project_whose_queries_do_not_read_changes_nothing(project_copy, source_files):
    path = project_copy / QUERIES_FILE
    path.write_bytes(path.read_bytes() + b'{"query_id": "torn", "que\n')
    before = path.read_bytes()
    docs, queries = source_files
    res = CliRunner().invoke(main, ["import", str(project_copy), "--documents", str(docs), "--queries", str(queries)])
    assert res.exit_code == 2 and "Traceback" not in res.output
    said = " ".join(res.output.split())
    assert f"{path}:" in said and "must read before an import adds to them" in said
    assert path.read_bytes() == before


@pytest.mark.parametrize("field", ["answer", "gold"])
def test_an_input_record_that_differs_is_named_and_the_projects_kept(project_copy, source_files, tmp_path, field):
    docs, queries = source_files
    rows = [json.loads(line) for line in queries.read_text().splitlines()]
    if field == "answer":
        rows[1]["answer"] = "upstream changed it"
    else:
        rows[1]["gold_doc_ids"] = rows[1]["gold_doc_ids"][:1]
    changed = tmp_path / "q.jsonl"
    changed.write_text("".join(json.dumps(r) + "\n" for r in rows))
    before = load_project(project_copy).query(rows[1]["query_id"])
    res = CliRunner().invoke(main, ["import", str(project_copy), "--documents", str(docs), "--queries", str(changed)])
    assert res.exit_code == 0, res.output
    said = " ".join(res.output.split())
    assert "1 query of the input differs from the project's of the same id; the project's kept" in said
    assert rows[1]["query_id"] in said and "new project folder" in said
    assert load_project(project_copy).query(rows[1]["query_id"]) == before


def test_a_version_made_before_an_answer_edit_loads_and_is_labelled_further(project_copy):
    from workbench.project.visit import LabelVisit, mark

    project = load_project(project_copy)
    q = project.queries[0]
    free = [d for d in sorted(project.documents) if d not in q.gold_doc_ids and d not in q.hard_negative_ids]
    first = label(project, q.query_id, free[0], "gold", "user:ann")
    assert first is not None
    edit_original_answer(project_copy, q.query_id, "edited after the version was made")
    older = load_project(project_copy, first.name)  # refused before: "answer: differs from the original"
    assert older.query(q.query_id).answer == "edited after the version was made"
    assert free[0] in older.query(q.query_id).gold_doc_ids
    visit = LabelVisit(parent=first.name)  # the inspector labelling from that version
    made = mark(visit, project_copy, q.query_id, free[1], "hard_negative", "user:ann")
    assert made is not None and free[1] in load_project(project_copy, made).query(q.query_id).hard_negative_ids
    res = CliRunner().invoke(main, ["eval", str(project_copy), "--retrievers", "bm25", "--tiers", "full",
                                    "--queries-version", first.name])
    assert res.exit_code == 0, res.output
