"""Done-when of import-traces: traces of a small pipeline over all of hotpotqa-100, made by the
real OpenTelemetry SDK, import; eval, diagnose and report show production beside bm25/dense/hybrid;
export-trec + import-run give the same figures."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from support.hotpot100 import evaluated_hotpot100
from support.traces import write_traces
from workbench.cli import main
from workbench.project.load import load_project


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def hotpot100(tmp_path_factory) -> Path:
    return evaluated_hotpot100(tmp_path_factory.mktemp("h100") / "hotpot")


@pytest.mark.slow
def test_traces_over_hotpotqa_100_stand_beside_the_built_in_systems(hotpot100, tmp_path):
    root = hotpot100
    project = load_project(root)
    path = write_traces(root, tmp_path / "prod.otlp.jsonl")
    result = cli("import-traces", root, path, "--name", "prod", "--no-judge")
    assert result.exit_code == 0, result.output
    assert f"imported {len(project.queries)} queries: 0 matched by id, {len(project.queries)} by text, 0 added" in result.output

    doc = json.loads(cli("eval", root, "--json").stdout)
    for tier, systems in doc["tiers"].items():
        assert {"bm25", "dense", "hybrid", "run:prod", "run:prod>rerank"} <= set(systems), tier
    assert doc["tiers"]["full"]["run:prod"]["n_queries"] == len(project.queries)
    assert "run:prod:answers" in json.dumps(doc["use"])

    verdicts = json.loads(cli("diagnose", root, "--json").stdout)
    production = [s["name"] for s in verdicts["systems"] if s["name"].startswith("run:prod") or s.get("access") == "run:prod"]
    assert production
    full = {v["query_id"] for v in verdicts["verdicts"] if v["system"] == production[0] and v["tier"] == "full"}
    assert full == {q.query_id for q in project.queries}

    out = tmp_path / "report.md"
    assert cli("report", root, "-o", out).exit_code == 0
    text = out.read_text()
    assert "run:prod" in text and "bm25" in text and "hybrid" in text

    trec = tmp_path / "trec"
    assert cli("export-trec", root, "--out", trec).exit_code == 0
    assert cli("import-run", root, next(trec.glob("full.run_prod~*.run")),
               "--name", "prod-trec", "--tier", "full").exit_code == 0
    again = json.loads(cli("eval", root, "--json", "--tiers", "full").stdout)
    assert again["tiers"]["full"]["run:prod-trec"] == again["tiers"]["full"]["run:prod"]
    assert again["queries"]["full"]["run:prod-trec"] == again["queries"]["full"]["run:prod"]
    assert msgspec.json.decode(json.dumps(again["tiers"]["full"]["run:prod"]))["n_queries"] == len(project.queries)
