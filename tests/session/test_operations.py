"""The operations CLI and TUI share: the report's file name (one decision), K read from the
project (`[retrievers] k = 3` prints and computes K=3 in import-run), Session.k."""

from __future__ import annotations

import json
import shutil
from types import SimpleNamespace

from click.testing import CliRunner

from workbench.cli import main
from workbench.session import open_session, report_path, report_stem


def test_the_report_stem_carries_the_version_and_the_one_query():
    assert report_stem(SimpleNamespace(queries_version="original")) == "diagnosis"  # type: ignore[arg-type]
    assert report_stem(SimpleNamespace(queries_version="labels-1")) == "diagnosis-labels-1"  # type: ignore[arg-type]
    assert report_stem(SimpleNamespace(queries_version="labels-1"), {"q7"}) == "report-q7-labels-1"  # type: ignore[arg-type]


def test_the_tui_export_and_the_cli_write_the_same_file(evaluated_copy):
    from workbench.session import export_report

    session, _ = open_session(evaluated_copy)
    written = export_report(session, evaluated_copy / "reports", formats=("md",))
    assert written == [report_path(evaluated_copy, session.project, "md")]
    res = CliRunner().invoke(main, ["report", str(evaluated_copy)])
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in (evaluated_copy / "reports").iterdir()) == ["diagnosis.md"]


def test_a_project_with_k_3_imports_a_run_at_k_3(evaluated, tmp_path):
    root = tmp_path / "k3"
    shutil.copytree(evaluated, root)
    with open(root / "workbench.toml", "a") as fh:
        fh.write("\n[retrievers]\nk = 3\n")
    session, _ = open_session(root)
    assert session.k == 3
    from workbench.access.ladder import load_tiers
    from workbench.access.runs import RunStore

    full = next(t for t in load_tiers(session.project).tiers if t.name == "full")
    bm25 = RunStore(session.project).load("bm25", full.name)
    run_file = tmp_path / "prod.jsonl"
    run_file.write_text("".join(json.dumps({"query_id": r.query_id, "ranked": [h.doc_id for h in r.hits]}) + "\n"
                                for r in bm25.rankings))
    res = CliRunner().invoke(main, ["import-run", str(root), str(run_file), "--name", "prod", "--format", "jsonl",
                                    "--ids", "docid"])
    assert res.exit_code == 0, res.output
    assert "K=3" in res.output and "SR@3" in res.output and "@10" not in res.output and "K=10" not in res.output
