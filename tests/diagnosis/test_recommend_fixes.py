"""Each recommendation of the diagnosis carries the command that tries it on this project, the
`compare` that judges it and, once it ran, its measured effect (interval and p-value): in
`workbench diagnose` and in the report (Markdown and HTML), with data text escaped."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from support.recommend import failing_project
from workbench.cli import main as cli

SYSTEM = "bm25>rerank:ce@100"


@pytest.fixture(scope="module")
def cross_encoder(tmp_path_factory):
    from support.rerank import make_cross_encoder

    return make_cross_encoder(tmp_path_factory.mktemp("ce") / "minilm-ce")


@pytest.fixture
def project(tmp_path, cross_encoder):
    root = failing_project(tmp_path / "tiny", ce={"backend": "cross-encoder", "model": str(cross_encoder), "batch_size": 2})
    ran = CliRunner().invoke(cli, ["eval", str(root), "--retrievers", "bm25"])
    assert ran.exit_code == 0, ran.output
    return root


def _block(text: str, n: int) -> str:
    """Recommendation n's lines (up to the next one)."""
    return re.split(r"\n\s*\d+\. ", text.split("Recommendations", 1)[1])[n]


def test_diagnose_lists_each_fix_with_its_command_judge_and_once_run_its_effect(project):
    before = CliRunner().invoke(cli, ["diagnose", str(project)])
    assert before.exit_code == 0, before.output
    rerank = _block(before.output, 2)
    assert rerank.startswith("a reranker") and f"try: workbench rerank {project} '{SYSTEM}' --tiers full" in rerank
    assert f"judge: workbench compare {project} bm25 '{SYSTEM}' --tiers full" in rerank
    assert "measured: not tried yet" in rerank
    assert "workbench tune" in _block(before.output, 3) and "held-out" in _block(before.output, 3)

    tried = CliRunner().invoke(cli, ["rerank", str(project), SYSTEM, "--tiers", "full"])
    assert tried.exit_code == 0, tried.output
    after = CliRunner().invoke(cli, ["diagnose", str(project)])
    measured = re.search(r"measured: (SR|FR)@1 at full: ([\d.]+) → ([\d.]+), difference (-?[\d.]+) \[(-?[\d.]+), (-?[\d.]+)\], "
                         r"p = ([\d.]+) \(n = (\d+)( multi-source)? queries\); gold into the top 1 (\d+), out (\d+); "
                         r"near misses below their gold (\d+), above (\d+)", " ".join(_block(after.output, 2).split()))
    assert measured, after.output
    assert measured[1] == "FR", "the level has a multi-source query: FR@K, as the report says it"
    report = json.loads(CliRunner().invoke(cli, ["report", str(project), "--format", "json", "--output", "-"]).output)
    effect = next(f for f in report["fixes"] if f["system"] == SYSTEM)
    assert float(measured[7]) == pytest.approx(effect["test"]["p_value"], abs=1e-4)
    assert int(measured[8]) == effect["test"]["n"] and effect["metric"] == "FR@1"
    assert float(measured[2]) == pytest.approx(effect["before"]["mean"], abs=1e-3)
    assert int(measured[12]) == effect["movement"]["near_misses_demoted"]
    # diagnose ranks every built-in retriever that has no stored ranking (rankings need no model): hybrid is measured
    assert re.search(r"measured: (SR|FR)@1 at full", " ".join(_block(after.output, 1).split())), _block(after.output, 1)


def test_the_report_carries_them_escaped(project):
    from workbench.access.ladder import load_tiers
    from workbench.project.load import load_project
    from workbench.rerank.run import rerank

    p = load_project(project)
    rerank(p, [t for t in load_tiers(p).tiers if t.name == "full"], [SYSTEM])
    md = CliRunner().invoke(cli, ["report", str(project), "--output", "-"]).output
    block = md.split("Recommendations", 1)[1].split("\n\n", 2)[1]
    assert "2. a reranker" in block and "   - try: workbench rerank" in block and "   - judge: workbench compare" in block
    assert re.search(r"   - measured: (SR|FR)@1 at full: .*p = [\d.]+ \(n = \d+( multi-source)? queries\)", block), block
    html = CliRunner().invoke(cli, ["report", str(project), "--format", "html", "--output", "-"]).output
    assert "<code>try: workbench rerank" in html
    assert re.search(r"(&#x27;|&#39;)bm25&gt;rerank:ce@100(&#x27;|&#39;)", html), "the command is escaped in HTML"
    assert "'bm25>rerank:ce@100'" not in html


def test_the_key_runs_an_untried_rerank_first_and_a_hybrid_system_is_told_it_is_hybrid():
    from workbench.diagnosis.fix_commands import RunnableFix
    from workbench.diagnosis.recommend import Recommendation, first_runnable

    def rerank(name: str, effect: str | None = None, note: str = "", skipped: str = "") -> Recommendation:
        return Recommendation("a reranker", RunnableFix("a reranker", name, "workbench rerank …", "workbench compare …",
                                                        effect, note, "rerank", ["full"], skipped=skipped))

    tune = Recommendation("tuning", RunnableFix("tuning", "dense@tuned", "workbench tune …", "…", None, "", "tune"))
    assert first_runnable([tune]).system == "dense@tuned", "fine-tuning runs from the key"
    assert first_runnable([rerank("a", note="configure one first")]) is None
    assert first_runnable([rerank("a", skipped="too costly here"), tune]).system == "dense@tuned"
    tried, untried = rerank("a", effect="SR@10 …"), rerank("b")
    assert first_runnable([tried, untried]).system == "b" and first_runnable([tried]).system == "a"
    assert first_runnable([untried, tune]).system == "b", "the method's order: the reranker before fine-tuning"
    assert Recommendation("hybrid search", None, "done: hybrid is hybrid already").lines == ["done: hybrid is hybrid already"]


def test_an_embedded_model_rerank_too_costly_for_the_key_says_so_and_names_the_fix_that_runs_next(tmp_path, monkeypatch):
    """The demo's case: the `llm` reranker on the embedded CPU model over more pairs than a key
    press should start; the recommendation keeps its place and says what the key runs instead."""
    import workbench.diagnosis.fix_commands as fc
    from workbench.access.ladder import load_tiers
    from workbench.diagnosis.verdicts import VerdictReader
    from workbench.diagnosis.overview import ACCESS_FIXES, Reading
    from workbench.diagnosis.recommend import first_runnable, recommendations
    from workbench.project.load import load_project

    root = failing_project(tmp_path / "tiny", local={"backend": "llm", "model": "local"})
    assert CliRunner().invoke(cli, ["eval", str(root), "--retrievers", "hybrid"]).exit_code == 0
    project = load_project(root)
    tiers = load_tiers(project).tiers
    reading = Reading("hybrid", "overall", {}, 0, "retrieval-bound", "", list(ACCESS_FIXES))
    cheap = recommendations(project, reading, "hybrid", tiers, VerdictReader(project))
    assert first_runnable(cheap).system == "hybrid>rerank:local@2", "a few pairs: the key runs the rerank"
    monkeypatch.setattr(fc, "EMBEDDED_LLM_KEY_PAIRS", 1)
    recs = recommendations(project, reading, "hybrid", tiers, VerdictReader(project))
    assert [r.text for r in recs] == ACCESS_FIXES, "the method's order is kept"
    note = next(line for line in recs[1].lines if "not run by the key" in line)
    pairs = recs[1].fix.pairs
    assert pairs == 2 * len(project.tier_query_ids(tiers[-1])) and f"{pairs:,} pointwise calls" in note
    assert "the key runs 3 (hybrid@tuned) next" in note
    assert first_runnable(recs).system == "hybrid@tuned"
    assert any("held-out queries only" in line for line in recs[2].lines)
