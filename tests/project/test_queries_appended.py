"""A load after lines were appended to queries.jsonl (add-query, a live collection's production
queries) parses and checks only those lines in this process — and sees exactly what a fresh
process would: the same queries, the same corpus hash, the same problems at the same lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.project import load as load_module
from workbench.project.files import ProjectError, init_project
from workbench.project.load import load_project

DOCS = [{"doc_id": 1, "title": "A", "text": "alpha text", "domain": "x"},
        {"doc_id": 2, "title": "B", "text": "beta text", "domain": "x"}]


def line(qid: str, gold: list[int] | None = None, text: str = "what?") -> bytes:
    return (json.dumps({"query_id": qid, "query": text, "answer": "a", "gold_doc_ids": gold or [], "domain": "x"}) + "\n").encode()


@pytest.fixture
def root(tmp_path) -> Path:
    root = tmp_path / "p"
    init_project(root)
    (root / "documents.jsonl").write_bytes(b"".join((json.dumps(d) + "\n").encode() for d in DOCS))
    (root / "queries.jsonl").write_bytes(line("q1", [1]) + line("q2", [2]))
    return root


def fresh(root: Path):
    """A load as a new process makes it: nothing remembered."""
    load_module._PARSED.clear()
    return load_project(root)


def append(root: Path, data: bytes) -> None:
    with (root / "queries.jsonl").open("ab") as f:
        f.write(data)


def test_appended_queries_load_as_a_fresh_process_loads_them(root, monkeypatch):
    load_project(root)
    parsed: list[int] = []
    real = load_module.iter_jsonl_spans
    monkeypatch.setattr(load_module, "iter_jsonl_spans", lambda raw, *a: (parsed.append(len(raw)), real(raw, *a))[1])
    append(root, line("q3") + line("q4", [2], "who?"))
    grown = load_project(root)
    assert parsed == [len(line("q3") + line("q4", [2], "who?"))]  # only the appended lines were parsed
    monkeypatch.setattr(load_module, "iter_jsonl_spans", real)
    again = fresh(root)
    assert [q.query_id for q in grown.queries] == ["q1", "q2", "q3", "q4"]
    assert grown.queries == again.queries and grown.corpus_hash() == again.corpus_hash()


@pytest.mark.parametrize("bad, expected", [
    (line("q1"), "queries.jsonl:3: query_id: duplicate query_id 'q1' (first on line 1)"),
    (b'{"query_id": "q9", "query": 5}\n', "queries.jsonl:3"),
    (line("q9", [42]), "queries.jsonl:3: gold_doc_ids: DocID(s) not in the corpus: [42]"),
])
def test_a_bad_appended_line_is_named_by_its_line_in_the_file(root, bad, expected):
    load_project(root)
    append(root, bad)
    with pytest.raises(ProjectError) as grown:
        load_project(root)
    with pytest.raises(ProjectError) as whole:
        fresh(root)
    assert expected in str(grown.value) and str(grown.value) == str(whole.value)


def test_an_edit_before_the_end_is_read_whole(root):
    load_project(root)
    (root / "queries.jsonl").write_bytes(line("q1", [2], "edited?") + line("q2", [2]) + line("q3"))
    edited = load_project(root)
    assert edited.queries[0].query == "edited?" and edited.queries[0].gold_doc_ids == [2]
    assert edited.corpus_hash() == fresh(root).corpus_hash()


def test_an_append_cut_short_leaves_the_file_as_it_was(root, monkeypatch):
    """A full disk in the middle of appending a batch's queries: the file is cut back to what it
    was (never a torn line that would stop the project from loading), the error raised."""
    import errno
    import os

    from workbench import fsutil

    before = (root / "queries.jsonl").read_bytes()
    real = os.write

    def half_then_full(fd, data):
        if len(data) > 8:
            real(fd, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)

    monkeypatch.setattr(fsutil.os, "write", half_then_full)
    with pytest.raises(OSError, match="No space"):
        fsutil.append_whole(root / "queries.jsonl", root, line("q3") + line("q4"))
    monkeypatch.setattr(fsutil.os, "write", real)
    assert (root / "queries.jsonl").read_bytes() == before
    fsutil.append_whole(root / "queries.jsonl", root, line("q3"))
    assert [q.query_id for q in fresh(root).queries] == ["q1", "q2", "q3"]
