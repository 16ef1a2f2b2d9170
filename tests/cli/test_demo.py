"""The demo project does its job: access falls as tiers grow and FR@10 sits below SR@10.

`workbench demo --no-tui` is the README's first command without a terminal."""

from __future__ import annotations

from click.testing import CliRunner

import workbench.cli
import workbench.cli.tui
from workbench.access.evaluate import evaluate
from workbench.access.ladder import load_tiers
from workbench.project.load import load_project
from workbench.access.retrievers import make_retrievers


def test_demo_prints_the_evaluation(sample_project, monkeypatch):
    monkeypatch.setattr(workbench.cli.tui, "demo_project_path", lambda: sample_project)
    result = CliRunner().invoke(workbench.cli.main, ["demo", "--no-tui"])
    assert result.exit_code == 0, result.output
    for expected in ("Evidence access", "base:finance", "mix:travel:16000", "shared", "global:128000", "full", "hybrid"):
        assert expected in result.output


def test_near_misses_make_access_fall_as_the_ladder_grows(sample_project):
    project = load_project(sample_project)
    tiers = {t.name: t for t in load_tiers(project).tiers}
    wanted = [tiers["shared"], tiers["global:64000"], tiers["global:128000"], tiers["full"]]
    results = evaluate(project, wanted, make_retrievers(project, ["bm25", "dense", "hybrid"]), include_models=False)
    by = {(r.system, r.tier): r.summary for r in results}
    for system in ("bm25", "dense", "hybrid"):
        shared, full = by[(system, "shared")], by[(system, "full")]
        assert full.sr_at_k < shared.sr_at_k and full.fr_at_k < shared.fr_at_k, system
        for tier in ("shared", "global:64000", "global:128000", "full"):
            s = by[(system, tier)]
            assert s.fr_at_k < s.sr_at_k, (system, tier)  # the multi-source gap exists on every shared tier
        assert full.multi_gap >= shared.multi_gap - 0.02, system  # and does not close as distractors grow
