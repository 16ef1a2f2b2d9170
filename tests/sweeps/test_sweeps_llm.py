"""A tiny end-to-end sweep of each stored kind against the real embedded SmolLM2 server."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.project.load import load_project
from workbench.report.sweeps import sweeps_dict
from workbench.sweeps.store import SweepStore
from support.paths import REPO


pytestmark = pytest.mark.llm


@pytest.fixture
def sample_copy(tmp_path) -> Path:
    dst = tmp_path / "sample"
    shutil.copytree(REPO / "sample_corpus", dst, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    return dst


def test_tiny_volume_and_distribution_sweeps_end_to_end(local_server, sample_copy):
    runner = CliRunner()
    args = ["--lengths", "384,768", "--max-tokens", "24", "--seed", "1"]
    r = runner.invoke(main, ["sweep", "volume", str(sample_copy), "--families", "needle,two-hop", "--cases", "1", "--repeats", "1", *args])
    assert r.exit_code == 0, r.output
    assert "Volume sweep" in r.output and "Scored by" in r.output
    r = runner.invoke(main, ["sweep", "distribution", str(sample_copy), "--distributions", "uniform", "--facts", "1", "--absent", "1",
                             "--lengths", "768", "--max-tokens", "24", "--seed", "1"])
    assert r.exit_code == 0, r.output
    project = load_project(sample_copy)
    store = SweepStore(project)
    metas = {m.spec.kind: m for m in store.list()}
    assert set(metas) == {"volume", "distribution"}
    vol = store.results(metas["volume"].sweep_id)
    assert len(vol) == metas["volume"].arms == 1 * 2 + 1 * 2 + 1  # needle, two-hop at 2 lengths + gold-only
    assert all(r.latency_s > 0 and r.prompt_tokens > 0 for r in vol.values())
    data = sweeps_dict(project)
    assert data["distribution"]["by_variant"]["strict"]["faithfulness"]["n"] == 1
    assert data["volume"]["latency"][0]["n"] == 2
    # rerunning a finished sweep calls nothing new and keeps every result
    r = runner.invoke(main, ["sweep", "volume", str(sample_copy), "--families", "needle,two-hop", "--cases", "1", "--repeats", "1", *args])
    assert r.exit_code == 0 and "5 already done" in r.output
