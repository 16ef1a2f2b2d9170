"""Importers: native JSONL with string IDs (hotpotqa-100) and the BEIR layout."""

from __future__ import annotations

import json

from workbench.project.importers import import_dataset
from workbench.project.files import init_project
from workbench.project.load import load_project

from support.paths import HOTPOT, hotpot_rows


def test_hotpot_import_maps_string_ids_stably(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for root in (a, b):
        init_project(root)
        assert import_dataset(root, HOTPOT / "corpus.jsonl", HOTPOT / "queries.jsonl") == (994, 100)
    assert (a / "documents.jsonl").read_bytes() == (b / "documents.jsonl").read_bytes()
    assert (a / "queries.jsonl").read_bytes() == (b / "queries.jsonl").read_bytes()
    project = load_project(a)
    by_source = {d.source_id: d.doc_id for d in project.documents.values()}
    raw = hotpot_rows("queries.jsonl")[0]
    q = project.query(raw["query_id"])
    assert q.gold_doc_ids == [by_source[s] for s in raw["gold_doc_ids"]]
    assert q.hard_negative_ids == [by_source[s] for s in raw["negative_doc_ids"]]
    assert q.kind == raw["category"] and q.answer == raw["answer"]


def test_reimport_keeps_docids_and_appends_new_ones(tmp_path):
    rows = hotpot_rows("corpus.jsonl")
    first, second = tmp_path / "d1.jsonl", tmp_path / "d2.jsonl"
    first.write_text("".join(json.dumps(r) + "\n" for r in rows[:5]))
    # new documents first and old ones reordered: the old ones keep their DocIDs
    second.write_text("".join(json.dumps(r) + "\n" for r in rows[5:7] + rows[:5][::-1]))
    empty = tmp_path / "q.jsonl"
    empty.write_text("")
    root = tmp_path / "p"
    init_project(root)
    import_dataset(root, first, empty)
    before = {d.source_id: d.doc_id for d in load_project(root).documents.values()}
    import_dataset(root, second, empty)
    after = {d.source_id: d.doc_id for d in load_project(root).documents.values()}
    assert {k: after[k] for k in before} == before
    assert sorted(after[r["doc_id"]] for r in rows[5:7]) == [6, 7]


def test_beir_layout(tmp_path):
    beir = tmp_path / "beir"
    (beir / "qrels").mkdir(parents=True)
    rows = hotpot_rows("corpus.jsonl")[:40]
    (beir / "corpus.jsonl").write_text("".join(json.dumps({"_id": r["doc_id"], "title": r["title"], "text": r["text"]}) + "\n" for r in rows))
    (beir / "queries.jsonl").write_text(
        json.dumps({"_id": "q1", "text": "first question"}) + "\n" + json.dumps({"_id": "q2", "text": "no qrels in split"}) + "\n"
    )
    (beir / "qrels" / "test.tsv").write_text(f"query-id\tcorpus-id\tscore\nq1\t{rows[3]['doc_id']}\t1\nq1\t{rows[7]['doc_id']}\t2\nq1\t{rows[9]['doc_id']}\t0\n")
    root = tmp_path / "p"
    init_project(root)
    assert import_dataset(root, beir, fmt="beir") == (40, 1)
    q = load_project(root).queries[0]
    assert q.query_id == "q1" and q.gold_doc_ids == [4, 8]  # relevance 0 is not gold
