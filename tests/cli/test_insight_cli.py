"""`stealers`, `unjudged` and `positions` on the project whose rankings are fixed by construction
(tests/support/insight.py), and the effective sizes `eval` and `diagnose` print."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from support.insight import make_insight_project
from workbench.cli import main


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return make_insight_project(tmp_path_factory.mktemp("insight-cli") / "p")


def run(*args: str):
    res = CliRunner().invoke(main, list(args))
    assert res.exit_code == 0, res.output
    return res.output


def test_stealers_lists_the_most_frequent_first(root):
    out = run("stealers", str(root), "--tiers", "full")
    assert "7 steals over 1 tier(s)" in out
    assert out.index("1. 5 Pear tart displaces 3 gold in 2 queries") < out.index("2. 2 Lyon")
    assert "vs gold 4 Apple pie: stealer has Pear" in out
    doc = json.loads(run("stealers", str(root), "--tiers", "full", "--json", "--limit", "1"))
    assert doc["steals"] == 7 and [s["doc_id"] for s in doc["stealers"]] == [5]


def test_stealers_of_one_query(root):
    doc = json.loads(run("stealers", str(root), "--tiers", "full", "--query", "q1", "--json"))
    assert {(s["system"], s["stealer"], s["score_gap"]) for s in doc} == {("hybrid", 3, 2.0), ("hybrid", 2, 1.0), ("bm25", 7, 1.0)}


def test_unjudged_names_the_answer_bearing_document(root):
    out = run("unjudged", str(root))
    assert "q1: 7 Paris museums (bm25 #1 at full) contains “Paris”: likely missing gold" in out
    rows = {r["system"]: r for r in json.loads(run("unjudged", str(root), "--json"))}
    assert (rows["bm25"]["unjudged"], rows["bm25"]["answer_bearing"], rows["hybrid"]["unjudged"]) == (2, 1, 1)


def test_positions_without_a_long_context_run_says_how_to_make_one(root):
    assert "no stored long-context run" in run("positions", str(root))
    assert json.loads(run("positions", str(root), "--json")) == []


def test_diagnose_prints_the_effective_sizes(root):
    out = run("diagnose", str(root))
    # the rankings are the same on every tier: each system keeps its figures over the whole ladder
    assert "Effective corpus size" in out and "hybrid" in out and "never" in out
