"""Issue 20 items 3 and 10 (the readers of runs and BEIR qrels): what cannot be read is refused as
`file:line: field: message`, never coerced or silently dropped."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from workbench.project.files import ProjectError
from workbench.project.importers import import_dataset
from workbench.project.load import load_project
from workbench.triage.runs import import_run, imported_runs, imports_dir


def _run(path: Path, lines: list[str], raw: bytes = b"") -> Path:
    path.write_bytes(raw + "".join(line + "\n" for line in lines).encode())
    return path


@pytest.mark.parametrize("score", ["nan", "inf", "-inf", "NaN"])
def test_a_non_finite_trec_score_is_refused_on_its_line(tiny_project, tmp_path, score):
    path = _run(tmp_path / "r.run", ["q1 Q0 1 1 2.5 t", f"q1 Q0 3 2 {score} t"])
    with pytest.raises(ProjectError) as err:
        import_run(load_project(tiny_project), path, "prod")
    assert f"{path}:2: score: not a finite number" in str(err.value)
    assert not imports_dir(load_project(tiny_project)).exists()  # nothing written


def test_a_byte_order_mark_before_a_trec_run_is_no_content(tiny_project, tmp_path):
    path = _run(tmp_path / "r.run", ["q1 Q0 1 1 2.5 t", "q1 Q0 3 2 1.5 t"], raw=b"\xef\xbb\xbf")
    report = import_run(load_project(tiny_project), path, "prod")
    assert report.queries == 1 and report.unknown_query_ids == 0 and not report.problems


def test_a_non_utf8_run_is_reported_by_line(tiny_project, tmp_path):
    path = tmp_path / "r.run"
    path.write_bytes(b"q1 Q0 1 1 2.5 t\nq1 Q0 3 2 1.5 t\xff\n")
    with pytest.raises(ProjectError) as err:
        import_run(load_project(tiny_project), path, "prod")
    assert f"{path}:2: not UTF-8" in str(err.value)


def test_a_truncated_import_record_is_said_not_silently_dropped(tiny_project, tmp_path, caplog):
    project = load_project(tiny_project)
    record = imports_dir(project) / "prod.json"  # an older release's record (the ledger reads them in once)
    record.parent.mkdir(parents=True)
    record.write_bytes(b'{"name":"prod","format":"trec","id_spac')  # killed while an older release wrote it
    with caplog.at_level(logging.WARNING, logger="workbench.recovery"):
        assert imported_runs(project) == []
    assert any("prod.json" in r.getMessage() and "import it again" in r.getMessage() for r in caplog.records)


# ---------------------------------------------------------------- BEIR qrels


def _beir(root: Path, qrels: str, bom: bool = False) -> Path:
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text("".join(json.dumps({"_id": f"d{i}", "title": "", "text": f"text {i}"}) + "\n"
                                               for i in range(3)))
    (root / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "who?"}) + "\n")
    (root / "qrels" / "test.tsv").write_bytes((b"\xef\xbb\xbf" if bom else b"") + qrels.encode())
    return root


def test_beir_nan_relevance_is_refused_not_silently_not_gold(tmp_path):
    beir = _beir(tmp_path / "b", "query-id\tcorpus-id\tscore\nq1\td0\t1\nq1\td1\tnan\n")
    with pytest.raises(ProjectError) as err:
        import_dataset(tmp_path / "p", beir, fmt="beir")
    assert f"{beir / 'qrels' / 'test.tsv'}:3: score: not a finite number" in str(err.value)


def test_beir_qrels_rows_for_an_unknown_query_are_refused(tmp_path):
    beir = _beir(tmp_path / "b", "query-id\tcorpus-id\tscore\nq1\td0\t1\nq9\td1\t1\n")
    with pytest.raises(ProjectError) as err:
        import_dataset(tmp_path / "p", beir, fmt="beir")
    assert f"{beir / 'qrels' / 'test.tsv'}:3: query-id: query 'q9' is not in" in str(err.value)


def test_beir_byte_order_mark_before_the_qrels_header(tmp_path):
    beir = _beir(tmp_path / "b", "query-id\tcorpus-id\tscore\nq1\td0\t1\n", bom=True)
    assert import_dataset(tmp_path / "p", beir, fmt="beir") == (3, 1)
    assert load_project(tmp_path / "p").queries[0].gold_doc_ids == [1]
