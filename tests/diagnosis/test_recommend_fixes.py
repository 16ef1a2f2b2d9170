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
    measured = re.search(r"measured: (SR|FR)@1 at full: .* \[(-?[\d.]+), (-?[\d.]+)\], p = ([\d.]+) \(n = (\d+)\)",
                         _block(after.output, 2))
    assert measured, after.output
    judged = json.loads(CliRunner().invoke(cli, ["compare", str(project), "bm25", SYSTEM, "--tiers", "full", "--json"]).output)
    assert float(measured[4]) == pytest.approx(judged["test"]["p_value"], abs=1e-4)
    assert int(measured[5]) == judged["test"]["n"]
    assert "measured: not tried yet" in _block(after.output, 1), "hybrid is still untried"


def test_the_report_carries_them_escaped(project):
    from workbench.access.ladder import load_tiers
    from workbench.project.load import load_project
    from workbench.rerank.run import rerank

    p = load_project(project)
    rerank(p, [t for t in load_tiers(p).tiers if t.name == "full"], [SYSTEM])
    md = CliRunner().invoke(cli, ["report", str(project), "--output", "-"]).output
    block = md.split("Recommendations", 1)[1].split("\n\n", 2)[1]
    assert "2. a reranker" in block and "   - try: workbench rerank" in block and "   - judge: workbench compare" in block
    assert re.search(r"   - measured: (SR|FR)@1 at full: .*p = [\d.]+ \(n = \d+\)", block), block
    html = CliRunner().invoke(cli, ["report", str(project), "--format", "html", "--output", "-"]).output
    assert "<code>try: workbench rerank" in html
    assert re.search(r"(&#x27;|&#39;)bm25&gt;rerank:ce@100(&#x27;|&#39;)", html), "the command is escaped in HTML"
    assert "'bm25>rerank:ce@100'" not in html


def test_the_key_runs_an_untried_rerank_first_and_a_hybrid_system_is_told_it_is_hybrid():
    from workbench.diagnosis.fix_commands import RunnableFix
    from workbench.diagnosis.recommend import Recommendation, first_runnable

    def rerank(name: str, effect: str | None = None, note: str = "") -> Recommendation:
        return Recommendation("a reranker", RunnableFix("a reranker", name, "workbench rerank …", "workbench compare …",
                                                        effect, note, "rerank", ["full"]))

    tune = Recommendation("tuning", RunnableFix("tuning", "dense@tuned", "workbench tune …", "…", None, "", "tune"))
    assert first_runnable([tune]) is None, "fine-tuning has no key"
    assert first_runnable([rerank("a", note="configure one first")]) is None
    tried, untried = rerank("a", effect="SR@10 …"), rerank("b")
    assert first_runnable([tried, untried]).system == "b" and first_runnable([tried]).system == "a"
    assert Recommendation("hybrid search", None, "done: hybrid is hybrid already").lines == ["done: hybrid is hybrid already"]
