"""`report --since`: the report of a collection window — the production queries whose trace began
since a time — for "what failed in production today, and why"."""

from __future__ import annotations

import json
import time

import pytest
from click.testing import CliRunner

from support.traces import write_traces
from workbench.cli import main
from workbench.errors import BadInput
from workbench.project.load import load_project
from workbench.session import production_since, since_ns


def test_since_reads_iso_times_today_and_spans_back():
    now = 1_764_662_400 * 10**9  # 2025-12-02T08:00:00Z
    assert since_ns("2025-12-02", now) == 1_764_633_600 * 10**9
    assert since_ns("2025-12-02T09:30Z", now) == since_ns("2025-12-02T10:30+01:00", now) == 1_764_667_800 * 10**9
    assert since_ns("today", now) == 1_764_633_600 * 10**9
    assert since_ns("2h", now) == now - 7200 * 10**9 and since_ns("90m", now) == now - 5400 * 10**9
    with pytest.raises(BadInput, match="not a time"):
        since_ns("yesterday-ish", now)


def test_the_report_of_a_window_holds_the_queries_traced_in_it(evaluated_copy, tmp_path):
    root = evaluated_copy
    early, late = load_project(root).queries[:2], load_project(root).queries[2:5]
    write_traces(root, tmp_path / "a.jsonl", early)
    res = CliRunner().invoke(main, ["import-traces", str(root), str(tmp_path / "a.jsonl"), "--name", "morning", "--no-judge"])
    assert res.exit_code == 0, res.output
    between = time.time_ns()
    write_traces(root, tmp_path / "b.jsonl", late)
    res = CliRunner().invoke(main, ["import-traces", str(root), str(tmp_path / "b.jsonl"), "--name", "afternoon", "--no-judge"])
    assert res.exit_code == 0, res.output
    p = load_project(root)
    assert production_since(p, between).query_ids == [q.query_id for q in late]
    assert production_since(p, 0).query_ids == [q.query_id for q in [*early, *late]]
    since = f"{between / 1e9:.6f}"
    from datetime import datetime, timezone

    iso = datetime.fromtimestamp(float(since), timezone.utc).isoformat()
    res = CliRunner().invoke(main, ["report", str(root), "--since", iso, "--format", "json", "-o", "-"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert sorted(q["query_id"] for q in report["queries"]) == sorted(q.query_id for q in late)
    assert "3 production queries traced since" in res.stderr
    res = CliRunner().invoke(main, ["report", str(root), "--since", "2999-01-01"])
    assert res.exit_code == 0 and "no report written" in res.stderr
    assert not (root / "reports").exists()
