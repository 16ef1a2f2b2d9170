"""Bad input is refused whole and pointed at exactly (issue 10): the input's own file and lines,
every problem at once, nothing written; config ranges; query IDs that round-trip; BOM; umask."""

from __future__ import annotations

import json
import os
import stat

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.fsutil import safe_name
from workbench.project.importers import import_dataset
from workbench.project.files import ProjectError, init_project
from workbench.project.load import load_project


def _write(path, rows, blank_after=()):
    lines = []
    for i, r in enumerate(rows):
        lines.append(json.dumps(r))
        if i in blank_after:
            lines.append("")
    path.write_text("\n".join(lines) + "\n")
    return path


DOCS = [{"doc_id": f"d{i}", "title": f"T{i}", "text": f"text {i}"} for i in range(4)]


def _q(qid, query="who?", gold=("d0",)):
    return {"query_id": qid, "query": query, "answer": "a", "gold_doc_ids": list(gold)}


def test_rejected_import_into_new_folder_leaves_nothing(tmp_path):
    docs = _write(tmp_path / "docs.jsonl", DOCS)
    queries = _write(tmp_path / "q.jsonl", [_q("q1", gold=["absent"])])
    target = tmp_path / "new"
    result = CliRunner().invoke(main, ["import", str(target), "--documents", str(docs), "--queries", str(queries)])
    assert result.exit_code == 2
    assert not target.exists(), list(target.iterdir())


def test_post_conversion_problems_name_the_input_file_and_its_lines(tmp_path):
    docs = _write(tmp_path / "docs.jsonl", DOCS)
    rows = [_q("q1"), _q("q2", query="   "), "MALFORMED", _q("q1"), _q("q3", gold=["d1", "d1"])]
    path = tmp_path / "q.jsonl"
    # line 1 q1, blank line 2, line 3 q2 (blank query), line 4 malformed, line 5 duplicate q1, line 6 repeated gold
    path.write_text("\n".join([json.dumps(rows[0]), "", json.dumps(rows[1]), "{not json", json.dumps(rows[3]), json.dumps(rows[4])]) + "\n")
    init_project(tmp_path / "p")
    with pytest.raises(ProjectError) as err:
        import_dataset(tmp_path / "p", docs, path)
    text = str(err.value)
    assert f"{path}:3: query: empty" in text
    assert f"{path}:4:" in text and "malformed JSON" in text
    assert f"{path}:5: query_id: duplicate" in text and "line 1" in text  # not hidden by the malformed line
    assert f"{path}:6: gold_doc_ids: repeated" in text
    assert "queries.jsonl" not in text.replace(str(path), "")  # never the destination file


@pytest.mark.parametrize("qid", ["", "  ", "a b", "a\nb", "a/b", "..", "x" * 300, "a\tb"])
def test_query_ids_that_cannot_round_trip_are_refused(tmp_path, qid):
    docs = _write(tmp_path / "docs.jsonl", DOCS)
    queries = _write(tmp_path / "q.jsonl", [_q(qid)])
    init_project(tmp_path / "p")
    with pytest.raises(ProjectError) as err:
        import_dataset(tmp_path / "p", docs, queries)
    assert f"{queries}:1: query_id:" in str(err.value)


def test_file_names_of_ids_are_injective_and_bounded():
    names = ["a/b", "a:b", "a_b", "base:finance", "x" * 300, "X" * 300]
    files = [safe_name(n) for n in names]
    assert len(set(files)) == len(files)
    assert all(len(f) <= 120 and "/" not in f and f not in (".", "..") for f in files)
    assert safe_name("full") == "full"  # plain names stay readable


@pytest.mark.parametrize("section, body, key", [
    ("retrievers", "rrf_k = -60", "retrievers.rrf_k"),
    ("retrievers", "k = 0", "retrievers.k"),
    ("ladder", "base_budget = -100", "ladder.base_budget"),
    ("ladder", "global_budgets = [0]", "ladder.global_budgets"),
    ("ladder", "base_budget = 300\nprompt_overhead = 400", "ladder.prompt_overhead"),
    ("retrievers", 'k = "ten"', "retrievers.k"),
])
def test_config_values_out_of_range_name_key_and_line(tmp_path, section, body, key):
    root = tmp_path / "p"
    init_project(root)
    (root / "workbench.toml").write_text(f'name = "p"\n\n[{section}]\n{body}\n')
    with pytest.raises(ProjectError) as err:
        load_project(root)
    text = str(err.value)
    line = 4 + (body.count("\n") if key == "ladder.prompt_overhead" else 0)
    assert f"workbench.toml:{line}: {key}:" in text, text


def test_retrievers_k_is_evals_default(project_copy):
    toml = project_copy / "workbench.toml"
    toml.write_text(toml.read_text() + "\n[retrievers]\nk = 5\n")
    result = CliRunner().invoke(main, ["eval", str(project_copy), "--retrievers", "bm25", "--tiers", "full", "--json", "--no-models"])
    assert result.exit_code == 0, result.output
    assert "SR@5" in json.loads(result.stdout)["tiers"]["full"]["bm25"]


def test_project_path_under_a_regular_file_is_a_clear_error(tmp_path):
    (tmp_path / "file").write_text("x")
    result = CliRunner().invoke(main, ["init", str(tmp_path / "file" / "p")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "not a folder" in result.output and str(tmp_path / "file") in result.output


def test_utf8_bom_is_accepted(tmp_path):
    docs = tmp_path / "docs.jsonl"
    docs.write_bytes(b"\xef\xbb\xbf" + "".join(json.dumps(d) + "\n" for d in DOCS).encode())
    queries = tmp_path / "q.jsonl"
    queries.write_bytes(b"\xef\xbb\xbf" + (json.dumps(_q("q1")) + "\n").encode())
    root = tmp_path / "p"
    init_project(root)
    (root / "workbench.toml").write_bytes(b"\xef\xbb\xbf" + (root / "workbench.toml").read_bytes())
    assert import_dataset(root, docs, queries) == (4, 1)
    assert load_project(root).queries[0].query_id == "q1"


def test_written_files_follow_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        root = tmp_path / "p"
        init_project(root)
        import_dataset(root, _write(tmp_path / "docs.jsonl", DOCS), _write(tmp_path / "q.jsonl", [_q("q1")]))
    finally:
        os.umask(old)
    for name in ("workbench.toml", "documents.jsonl", "queries.jsonl"):
        assert stat.S_IMODE((root / name).stat().st_mode) == 0o644, name


def test_an_embedding_model_that_cannot_load_is_a_clear_error(tmp_path):
    """index/ raises its own EmbedderError; the CLI shows it as one error with a hint, exit 2, and
    the sparse indexes built before it stay usable."""
    docs = _write(tmp_path / "docs.jsonl", DOCS)
    queries = _write(tmp_path / "q.jsonl", [_q("q1")])
    root = tmp_path / "p"
    assert CliRunner().invoke(main, ["import", str(root), "--documents", str(docs), "--queries", str(queries)]).exit_code == 0
    toml = root / "workbench.toml"
    toml.write_text(toml.read_text().replace('model = "all-MiniLM-L6-v2"', 'model = "/nowhere/my-embedder"', 1))
    result = CliRunner().invoke(main, ["index", str(root)])
    assert result.exit_code == 2, result.output
    assert "Embedding failed" in result.output and "/nowhere/my-embedder" in result.output
    assert "[embedding]" in result.output and "Traceback" not in result.output
    result = CliRunner().invoke(main, ["eval", str(root), "--retrievers", "bm25", "--tiers", "full"])
    assert result.exit_code == 0, result.output


def test_a_beir_qrels_row_naming_an_absent_document_points_at_the_qrels_line(tmp_path):
    beir = tmp_path / "beir"
    (beir / "qrels").mkdir(parents=True)
    (beir / "corpus.jsonl").write_text("".join(json.dumps({"_id": d["doc_id"], "title": d["title"], "text": d["text"]}) + "\n"
                                               for d in DOCS))
    (beir / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "who?"}) + "\n")
    qrels = beir / "qrels" / "test.tsv"
    qrels.write_text("query-id\tcorpus-id\tscore\nq1\td0\t1\nq1\tnot-in-corpus\t1\n")
    root = tmp_path / "p"
    result = CliRunner().invoke(main, ["import", str(root), "--documents", str(beir), "--format", "beir"])
    assert result.exit_code == 2, result.output
    assert f"{qrels}:3" in result.output and "not-in-corpus" in result.output
    assert not root.exists() or not any(root.iterdir())  # refused whole: nothing written


def test_exports_follow_the_umask(evaluated, tmp_path):
    """Reports and TREC exports, like the project files, get the user's umask (not mkstemp's 0600)."""
    old = os.umask(0o022)
    try:
        out = tmp_path / "trec"
        assert CliRunner().invoke(main, ["export-trec", str(evaluated), "--out", str(out), "--tiers", "full"]).exit_code == 0
        report = tmp_path / "report.md"
        assert CliRunner().invoke(main, ["report", str(evaluated), "-o", str(report)]).exit_code == 0
    finally:
        os.umask(old)
    written = [report, *sorted(p for p in out.rglob("*") if p.is_file())]
    assert len(written) > 1
    for path in written:
        assert stat.S_IMODE(path.stat().st_mode) == 0o644, path
