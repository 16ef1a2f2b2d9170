"""The README's flow through the real CLI: import → index → ladder → eval --json → export-trec."""

from __future__ import annotations

import json

from click.testing import CliRunner

from workbench.cli import main


def test_cli_flow(tmp_path, source_files):
    runner = CliRunner()
    project = str(tmp_path / "p")
    docs, queries = source_files
    assert runner.invoke(main, ["import", project, "--documents", str(docs), "--queries", str(queries)]).exit_code == 0
    (tmp_path / "p" / "workbench.toml").write_text('name = "p"\n[ladder]\nbase_budget = 6000\nglobal_budgets = [24000]\n')
    result = runner.invoke(main, ["index", project, "--only", "sparse"])
    assert result.exit_code == 0, result.output
    assert runner.invoke(main, ["ladder", project]).exit_code == 0
    tiers = json.loads(runner.invoke(main, ["tiers", project, "--json"]).output)
    assert [t["name"] for t in tiers][-1] == "full"

    result = runner.invoke(main, ["eval", project, "--retrievers", "bm25", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert set(doc["tiers"]) == {t["name"] for t in tiers}
    full = doc["tiers"]["full"]["bm25"]
    assert {"R@1", "SR@10", "FR@10", "n_single", "n_multi"} <= set(full)
    assert full["n_multi"] == 30 and full["R@1"] is None
    per_query = doc["queries"]["full"]["bm25"]
    assert len(per_query) == 30
    ranks = next(iter(per_query.values()))["gold_ranks"]
    assert len(ranks) == 2 and all(r is None or r >= 1 for r in ranks.values())

    result = runner.invoke(main, ["export-trec", project, "--out", str(tmp_path / "trec")])
    assert result.exit_code == 0, result.output
    qrels = (tmp_path / "trec" / "qrels.txt").read_text().splitlines()
    assert len(qrels) == 60 and qrels[0].split()[1] == "0"
    run_lines = (tmp_path / "trec" / "full.bm25.run").read_text().splitlines()
    qid, q0, docid, rank, score, tag = run_lines[0].split()
    assert (q0, rank, tag) == ("Q0", "1", "bm25@full")


def test_eval_with_unknown_tier_is_a_clear_error(built_project):
    result = CliRunner().invoke(main, ["eval", str(built_project), "--tiers", "nope"])
    assert result.exit_code == 2 and "unknown tier" in result.output


def test_the_same_error_exits_the_same_way_in_every_command(tmp_path, monkeypatch):
    """One handler (WorkbenchGroup): bad input is 2 everywhere (run included), with the hint;
    a failed external call (the embedded server) is 1."""
    (tmp_path / "workbench.toml").write_text("name = [broken")
    for args in (["tiers", str(tmp_path)], ["eval", str(tmp_path)], ["run", str(tmp_path), "--task", "qa"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, (args, result.output)
        assert "malformed TOML" in result.output and "nothing was written" in result.output
        assert "Traceback" not in result.output

    import workbench.llm.server as server
    from workbench.llm.server import LocalServerError

    def fails(**kwargs):
        raise LocalServerError("llama.cpp's server is not installed", hint="pip install 'llama-cpp-python[server]'")

    monkeypatch.setattr(server, "serve_foreground", fails)
    result = CliRunner().invoke(main, ["serve", "--port", "0"])
    assert result.exit_code == 1 and "not installed" in result.output
    assert "llama-cpp-python[server]" in result.output  # the hint, printed as text (not markup)
