"""Readers reject bad input with file:line:field, exit non-zero, and write nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.project.files import ProjectError
from workbench.project.load import load_project, read_records

GOOD_DOCS = [
    {"doc_id": 1, "title": "A", "text": "alpha text", "domain": "x"},
    {"doc_id": 2, "title": "B", "text": "beta text", "domain": "x"},
    {"doc_id": 3, "title": "C", "text": "gamma text", "domain": "x"},
]
GOOD_QUERY = {"query_id": "q1", "query": "what?", "answer": "a", "gold_doc_ids": [1], "hard_negative_ids": [2], "domain": "x"}


def write(path: Path, rows: list) -> Path:
    path.write_bytes(b"".join(r if isinstance(r, bytes) else (json.dumps(r) + "\n").encode() for r in rows))
    return path


def problems_for(tmp_path: Path, docs: list, queries: list) -> list[str]:
    with pytest.raises(ProjectError) as err:
        read_records(write(tmp_path / "documents.jsonl", docs), write(tmp_path / "queries.jsonl", queries))
    return [str(p) for p in err.value.problems]


def test_good_files_read(tmp_path):
    docs, queries = read_records(write(tmp_path / "d.jsonl", GOOD_DOCS), write(tmp_path / "q.jsonl", [GOOD_QUERY]))
    assert [d.doc_id for _, d in docs] == [1, 2, 3]
    assert queries[0][1].gold_doc_ids == [1]


@pytest.mark.parametrize(
    "docs, queries, expected",
    [
        (GOOD_DOCS[:1] + [b'{"doc_id": 2, "title": "B", "text": \n'], [GOOD_QUERY], "documents.jsonl:2: malformed JSON"),
        ([{"doc_id": "one", "title": "A", "text": "t"}], [], "documents.jsonl:1: doc_id: Expected `int`, got `str`"),
        (GOOD_DOCS + [dict(GOOD_DOCS[0], title="dup")], [GOOD_QUERY], "documents.jsonl:4: doc_id: duplicate DocID 1 (first on line 1)"),
        (GOOD_DOCS + [{"doc_id": 9, "title": "E", "text": "   "}], [GOOD_QUERY], "documents.jsonl:4: text: empty text"),
        (GOOD_DOCS, [dict(GOOD_QUERY, gold_doc_ids=[1, 77])], "queries.jsonl:1: gold_doc_ids: DocID(s) not in the corpus: [77]"),
        (GOOD_DOCS, [dict(GOOD_QUERY, hard_negative_ids=[99])], "queries.jsonl:1: hard_negative_ids: DocID(s) not in the corpus: [99]"),
        (GOOD_DOCS, [dict(GOOD_QUERY, hard_negative_ids=[1])], "queries.jsonl:1: hard_negative_ids: DocID(s) listed as both gold and hard negative: [1]"),
        (GOOD_DOCS[:2] + [b'{"doc_id": 3, "title": "\xff\xfe", "text": "x"}\n'], [GOOD_QUERY], "documents.jsonl:3: not UTF-8"),
        (GOOD_DOCS, [{"query_id": "q1", "query": "x", "gold_doc_ids": [1]}], "queries.jsonl:1: answer: missing required field"),
    ],
    ids=["malformed", "wrong-type", "duplicate", "empty-text", "gold-absent", "negative-absent", "gold-is-negative", "not-utf8", "missing-field"],
)
def test_bad_input_names_file_line_field(tmp_path, docs, queries, expected):
    found = problems_for(tmp_path, docs, queries)
    assert any(expected in p for p in found), found


def test_every_problem_is_reported_at_once(tmp_path):
    docs = GOOD_DOCS + [dict(GOOD_DOCS[0]), {"doc_id": 8, "title": "x", "text": ""}]
    found = problems_for(tmp_path, docs, [dict(GOOD_QUERY, gold_doc_ids=[77])])
    assert len(found) == 3


def test_a_query_without_gold_reads_as_unlabelled(tmp_path):
    _, queries = read_records(write(tmp_path / "d.jsonl", GOOD_DOCS),
                              write(tmp_path / "q.jsonl", [dict(GOOD_QUERY, gold_doc_ids=[], hard_negative_ids=[])]))
    assert not queries[0][1].is_labelled


def test_bad_config_names_field(tmp_path):
    (tmp_path / "workbench.toml").write_text('[ladder]\nseed = "x"\n')
    with pytest.raises(ProjectError, match=r"workbench.toml:2: ladder.seed: Expected `int`"):
        load_project(tmp_path)


def test_unknown_config_key_is_rejected(tmp_path):
    (tmp_path / "workbench.toml").write_text('[retrievers]\nkk = 3\n')
    with pytest.raises(ProjectError, match="kk"):
        load_project(tmp_path)


def test_cli_import_of_bad_file_exits_nonzero_and_writes_nothing(tmp_path):
    project = tmp_path / "proj"
    runner = CliRunner()
    assert runner.invoke(main, ["init", str(project)]).exit_code == 0
    before = {p.name: p.read_bytes() for p in project.iterdir()}
    docs = write(tmp_path / "docs.jsonl", [{"doc_id": "a", "title": "A", "text": "x"}, {"doc_id": "a", "title": "B", "text": "y"}])
    queries = write(tmp_path / "q.jsonl", [{"query_id": "q", "query": "?", "answer": "", "gold_doc_ids": ["zz"]}])
    result = runner.invoke(main, ["import", str(project), "--documents", str(docs), "--queries", str(queries)])
    assert result.exit_code == 2
    assert "docs.jsonl:2: doc_id: duplicate ID 'a'" in result.output
    assert "q.jsonl:1: gold_doc_ids: document 'zz' is not in the corpus" in result.output
    assert {p.name: p.read_bytes() for p in project.iterdir()} == before
