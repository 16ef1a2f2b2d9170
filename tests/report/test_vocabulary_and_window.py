"""Issue 40: one vocabulary, and a production window's report that leads with production.

- "undecided" names one thing, an answer no rule decides (the verdict UNDECIDED): the funnel's stage
  of a query with no answer yet is "no answer yet" (`no_answer`), in `diagnose --json`, its text,
  the report and the TUI's legend alike.
- `report --since` said "N production queries traced since …" then led with the whole project's
  access figures and an oracle batch for `hybrid+local`: it leads with production's own ranking,
  funnel, stealers and next action."""

from __future__ import annotations

import json
import time

import pytest
from click.testing import CliRunner

from support.traces import write_traces
from workbench.cli import main
from workbench.diagnosis.funnel import STAGE_LABELS, STAGES
from workbench.project.load import load_project


def _diagnose_json(root) -> dict:
    res = CliRunner().invoke(main, ["diagnose", str(root), "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def _check_vocabulary(doc: dict) -> None:
    not_yet = [v for v in doc["verdicts"] if v["verdict"] == "NOT-YET"]
    assert not_yet, "the case the issue names: verdicts waiting for an answer"
    assert not [v for v in not_yet if v["stage"] == "undecided"]
    assert {v["stage"] for v in not_yet} <= {"no_answer", "unknown"}
    for v in doc["verdicts"]:
        if v["stage"] == "undecided":
            assert v["answer"] is not None and v["answer"]["decision"] == "undecided"  # an answer no rule decides
    for f in doc["funnels"]:
        assert set(f["funnel"]) == set(STAGES) and sum(f["funnel"].values()) == f["n"]


def test_diagnose_json_with_no_answers_puts_no_not_yet_verdict_in_a_stage_named_undecided(evaluated_copy):
    _check_vocabulary(_diagnose_json(evaluated_copy))
    res = CliRunner().invoke(main, ["diagnose", str(evaluated_copy)])
    assert res.exit_code == 0, res.output
    legend = " ".join(res.stdout.split()).split("Where the gold is lost")[1].split("):")[0]
    assert ". no answer yet" in legend and "? undecided" not in legend
    assert STAGE_LABELS["no_answer"] == "no answer yet" and STAGE_LABELS["undecided"] == "answer undecided"
    res = CliRunner().invoke(main, ["report", str(evaluated_copy), "-o", "-"])
    assert res.exit_code == 0, res.output
    assert "## NOT-YET: waiting for what is missing (" in res.stdout and "Not decided yet" not in res.stdout
    assert ". no answer yet" in res.stdout and "? undecided" not in res.stdout  # the report's funnel legend


@pytest.mark.slow
def test_the_issue_case_on_hotpotqa_100(tmp_path_factory):
    from support.hotpot100 import evaluated_hotpot100

    root = evaluated_hotpot100(tmp_path_factory.mktemp("vocab") / "hotpot")
    doc = _diagnose_json(root)
    _check_vocabulary(doc)
    assert len({v["query_id"] for v in doc["verdicts"]}) == 100


def test_report_since_leads_with_production(evaluated_copy, tmp_path):
    root = evaluated_copy
    queries = load_project(root).queries
    write_traces(root, tmp_path / "a.jsonl", queries[:3])
    res = CliRunner().invoke(main, ["import-traces", str(root), str(tmp_path / "a.jsonl"), "--name", "morning", "--no-judge"])
    assert res.exit_code == 0, res.output
    between = time.time_ns()
    window = queries[3:9]
    write_traces(root, tmp_path / "b.jsonl", window)
    res = CliRunner().invoke(main, ["import-traces", str(root), str(tmp_path / "b.jsonl"), "--name", "prod", "--no-judge"])
    assert res.exit_code == 0, res.output
    write_traces(root, tmp_path / "c.jsonl", queries[9:11])  # another production name in the same window
    res = CliRunner().invoke(main, ["import-traces", str(root), str(tmp_path / "c.jsonl"), "--name", "canary", "--no-judge"])
    assert res.exit_code == 0, res.output
    from datetime import datetime, timezone

    iso = datetime.fromtimestamp(between / 1e9, timezone.utc).isoformat()
    res = CliRunner().invoke(main, ["report", str(root), "--since", iso, "--format", "json", "-o", "-"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["primary"] == "run:prod:answers" and doc["focus"] == "production"
    assert doc["access_first"] is None or doc["access_first"]["system"] == "run:prod"  # its own ranking, never hybrid's
    prod = [f for f in doc["funnels"] if f["system"] == "run:prod:answers"]
    assert sum(f["n"] for f in prod) == 6  # the window's six served queries, each once
    if doc["next_action"] is not None:  # production's own next step, never hybrid+local's oracle batch
        assert "run:prod:answers" in doc["next_action"]["text"] and "hybrid+local" not in doc["next_action"]["text"]
    assert doc["lead_stealers"] is not None  # its own ranking's stealers (possibly none), not the project's
    assert all(s["queries"] and set(s["queries"]) <= {q.query_id for q in window} for s in doc["lead_stealers"])
    res = CliRunner().invoke(main, ["report", str(root), "--since", iso, "-o", "-"])
    assert res.exit_code == 0, res.output
    md = res.stdout
    head = md.split("\n## ")[0]
    # the two canary queries are in the window but not served by run:prod: said so, never counted as its failures
    assert head.index("Production (run:prod:answers): 6 queries served in this window (2 more of the window not served by it)") \
        < head.index("Use:")
    assert "Access (hybrid" not in head and "hybrid+local" not in head
    funnel = md.split("## Where the gold is lost")[1].split("```")[1]
    assert funnel.strip().splitlines()[0].startswith("run:prod:answers @ ")  # its funnel first
