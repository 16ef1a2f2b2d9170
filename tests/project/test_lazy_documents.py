"""A repeat load parses no document: documents.jsonl, once validated, is trusted by its stat and
read a document at a time; any change to it (or to the record beside it) is seen."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path

import pytest

from workbench.project import corpus_store
from workbench.project.corpus_store import LazyDocuments
from workbench.project.files import ProjectError, init_project
from workbench.project.load import load_project

DOCS = [
    {"doc_id": 10, "title": "Alpha", "text": "alpha text é", "domain": "x"},
    {"doc_id": 3, "title": "Beta", "text": "beta text", "domain": "y"},
    {"doc_id": 7, "title": "Gamma", "text": "gamma text", "domain": "x"},
]
QUERY = {"query_id": "q1", "query": "what?", "answer": "a", "gold_doc_ids": [3], "hard_negative_ids": [7], "domain": "x"}


def jsonl(rows: list) -> bytes:
    return b"".join((json.dumps(r, ensure_ascii=False) + "\n").encode() for r in rows)


@pytest.fixture
def root(tmp_path) -> Path:
    root = tmp_path / "p"
    init_project(root)
    (root / "documents.jsonl").write_bytes(b"\xef\xbb\xbf" + jsonl(DOCS))  # a BOM: spans still right
    (root / "queries.jsonl").write_bytes(jsonl([QUERY]))
    return root


@pytest.fixture
def no_parse(monkeypatch) -> list[str]:
    """Files parsed whole from now on (the validating reader)."""
    parsed: list[str] = []
    real = corpus_store.read_whole

    def counting(path):
        parsed.append(Path(path).name)
        return real(path)

    import workbench.project.load as load

    monkeypatch.setattr(load, "read_whole", counting)
    return parsed


def test_second_load_reads_documents_lazily_with_the_same_content(root, no_parse):
    first = load_project(root)
    assert not isinstance(first.documents, LazyDocuments) and no_parse == ["documents.jsonl", "queries.jsonl"]
    no_parse.clear()
    second = load_project(root)
    assert isinstance(second.documents, LazyDocuments)
    assert no_parse == ["queries.jsonl"]  # the documents were not read
    raw_docs, raw_queries = (root / "documents.jsonl").read_bytes(), (root / "queries.jsonl").read_bytes()
    assert second.documents_hash() == hashlib.sha256(raw_docs).hexdigest() == first.documents_hash()
    assert second.corpus_hash() == hashlib.sha256(raw_docs + b"\0" + raw_queries).hexdigest() == first.corpus_hash()
    assert second.domains == ["x", "y"] == first.domains
    assert list(second.documents) == [10, 3, 7]  # the file's order
    assert len(second.documents) == 3 and 3 in second.documents and 4 not in second.documents
    assert second.documents[10] == first.documents[10] and second.documents.get(4) is None
    assert dict(second.documents.items()) == first.documents


def test_an_edited_document_file_is_validated_again(root):
    load_project(root)
    with (root / "documents.jsonl").open("ab") as fh:
        fh.write(b'{"doc_id": 3, "title": "dup", "text": "again"}\n')
    with pytest.raises(ProjectError) as err:
        load_project(root)
    assert "documents.jsonl:4: doc_id: duplicate DocID 3 (first on line 2)" in str(err.value)


def test_edited_queries_are_checked_against_the_trusted_corpus(root, no_parse):
    load_project(root)
    no_parse.clear()
    (root / "queries.jsonl").write_bytes(jsonl([QUERY, dict(QUERY, query_id="q2", gold_doc_ids=[99], hard_negative_ids=[])]))
    with pytest.raises(ProjectError) as err:
        load_project(root)
    assert "queries.jsonl:2: gold_doc_ids: DocID(s) not in the corpus: [99]" in str(err.value)
    (root / "queries.jsonl").write_bytes(jsonl([QUERY, dict(QUERY, query_id="q2", gold_doc_ids=[10], hard_negative_ids=[])]))
    project = load_project(root)
    assert isinstance(project.documents, LazyDocuments) and [q.query_id for q in project.queries] == ["q1", "q2"]
    raw = (root / "documents.jsonl").read_bytes() + b"\0" + (root / "queries.jsonl").read_bytes()
    assert project.corpus_hash() == hashlib.sha256(raw).hexdigest()  # the new queries' hash, recorded
    assert load_project(root).corpus_hash() == project.corpus_hash()


def test_the_open_project_keeps_reading_the_file_it_validated(root):
    load_project(root)
    project = load_project(root)
    replacement = root / "documents.new"
    replacement.write_bytes(jsonl([dict(d, title=d["title"].upper()) for d in DOCS]))
    os.replace(replacement, root / "documents.jsonl")  # as `workbench import` does
    assert project.documents[7].title == "Gamma"
    assert load_project(root).documents[7].title == "GAMMA"


@pytest.mark.parametrize("damage", ["garbled", "truncated", "record"])
def test_damaged_derived_state_is_never_fatal(root, damage, caplog):
    expected = load_project(root).documents
    folder = root / ".workbench" / "corpus"
    offsets = folder / corpus_store.OFFSETS
    if damage == "garbled":  # the right size, the wrong spans: found when a document is read
        data = bytearray(offsets.read_bytes())
        data[3 * 8: 6 * 8] = bytes(reversed(data[3 * 8: 6 * 8]))
        offsets.write_bytes(bytes(data))
    elif damage == "truncated":
        offsets.write_bytes(offsets.read_bytes()[:-5])
    else:
        (folder / corpus_store.RECORD).write_text("{not json")
    with caplog.at_level(logging.WARNING, logger="workbench.recovery"):
        project = load_project(root)
        assert {i: project.documents[i] for i in project.documents} == dict(expected)
    assert "corpus" in caplog.text
    assert load_project(root).documents[10] == expected[10]


def test_a_record_that_cannot_be_written_leaves_every_load_validating(root, monkeypatch, no_parse):
    def refuse(path, data):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(corpus_store, "atomic_write_bytes", refuse)  # a read-only project
    assert load_project(root).documents[3].title == "Beta"
    no_parse.clear()
    assert load_project(root).documents[3].title == "Beta"
    assert no_parse == ["documents.jsonl", "queries.jsonl"]
