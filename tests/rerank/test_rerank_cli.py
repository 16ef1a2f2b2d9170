"""`workbench rerank` from the command line: the table beside its base, and bad input (an unknown
reranker, a base system that does not exist, depth < K, a malformed name) is a clear error naming
the reranker, exit 2, with nothing stored."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.names import SystemName, split_level


def _stored(root) -> list[str]:
    runs = root / ".workbench" / "runs"
    return sorted(p.name for p in runs.rglob("*.json")) if runs.exists() else []


def test_rerank_prints_the_reranked_system_beside_its_base_and_eval_lists_it(rerank_project):
    result = CliRunner().invoke(main, ["rerank", str(rerank_project), "bm25>rerank:ce@5", "--tiers", "full", "--k", "3"])
    assert result.exit_code == 0, result.output
    assert "bm25>rerank:ce@5" in result.output and "pairs scored" in result.output
    shown = CliRunner().invoke(main, ["eval", str(rerank_project), "--retrievers", "bm25", "--tiers", "full", "--k", "3"])
    assert shown.exit_code == 0 and "bm25>rerank:ce@5" in shown.output, shown.output
    trec = CliRunner().invoke(main, ["export-trec", str(rerank_project), "--tiers", "full"])
    assert trec.exit_code == 0 and any(p.suffix == ".run" and "rerank" in p.name for p in (rerank_project / "trec").iterdir())


@pytest.mark.parametrize("system, message", [
    ("bm25>rerank:nope@5", "unknown reranker 'nope'"),
    ("hybird>rerank:ce@5", "reranker 'ce': base system 'hybird'"),
    ("run:prod>rerank:ce@5", "reranker 'ce': base system 'run:prod'"),
    ("bm25>rerank:ce@2", "reranker 'ce': depth 2 is below K=3"),
    ("bm25>rerank:ce", "is not a reranked system"),
])
def test_bad_input_names_the_reranker_exits_2_and_stores_nothing(rerank_project, system, message):
    before = _stored(rerank_project)
    result = CliRunner().invoke(main, ["rerank", str(rerank_project), system, "--tiers", "full", "--k", "3"])
    assert result.exit_code == 2, result.output
    assert message in result.output.replace("\n", " ")
    assert _stored(rerank_project) == before
    assert not (rerank_project / ".workbench" / "rerank_cache" / "scores.sqlite").exists()


def test_the_grammar_has_one_home():
    for text in ("hybrid>rerank:ce@50", "model:local:localize>rerank:judge@20", "hybrid>rerank:a@50>rerank:b@10", "run:prod>rerank:x@5"):
        name = SystemName.parse(text)
        assert name.kind == "rerank" and str(name) == text and name.localizes
    chained = SystemName.parse("hybrid>rerank:a@50>rerank:b@10")
    assert (chained.base, chained.name, chained.depth) == ("hybrid>rerank:a@50", "b", 10)
    assert split_level("hybrid>rerank:ce@50") == ("hybrid>rerank:ce@50", None)
    assert split_level("hybrid>rerank:ce@50@full") == ("hybrid>rerank:ce@50", "full")
    assert split_level("bm25@mix:12000") == ("bm25", "mix:12000")
    assert split_level("model:gpt:rag:bm25@3") == ("model:gpt:rag:bm25@3", None)


def test_eval_takes_a_reranked_name_runs_its_stage_once_then_reads_the_stored_run(rerank_project):
    args = ["eval", str(rerank_project), "--retrievers", "bm25>rerank:ce@5", "--tiers", "full", "--k", "3", "--no-models", "--json"]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    import json

    figures = json.loads(first.stdout)["tiers"]["full"]
    assert list(figures) == ["bm25>rerank:ce@5"], "only what was asked (its base ran to feed it)"
    assert any(p.startswith("bm25_rerank_ce_5") for p in _stored(rerank_project))
    from workbench.access.ladder import load_tiers
    from workbench.project.load import load_project
    from workbench.rerank.run import rerank

    project = load_project(rerank_project)
    stats = rerank(project, [t for t in load_tiers(project).tiers if t.name == "full"], ["bm25>rerank:ce@5"], 3)
    assert stats.reused_runs == 1 and stats.scored == 0, "eval stored the stage's run"
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0 and json.loads(again.stdout)["tiers"]["full"] == figures


@pytest.mark.parametrize("system, message", [
    ("bm25>rerank:nope@5", "unknown reranker 'nope'"),
    ("bm25>rerank:ce@2", "reranker 'ce': depth 2 is below K=3"),
    ("hybird>rerank:ce@5", "reranker 'ce': base system 'hybird'"),
    ("bm25>rerank:ce", "is not a reranked system"),
    ("dense@tuned", "no tuned embedder in this project yet"),
    ("bm25@tuned", "unknown tuned system(s) ['bm25@tuned']"),
    ("bm26", "unknown retriever(s) ['bm26']"),
])
def test_eval_with_a_bad_reranked_or_tuned_name_exits_2_naming_it(rerank_project, system, message):
    before = _stored(rerank_project)
    result = CliRunner().invoke(main, ["eval", str(rerank_project), "--retrievers", f"bm25,{system}", "--tiers", "full", "--k", "3"])
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())
    assert _stored(rerank_project) == before, "nothing ran"
