"""Rank movement: where each gold document and each near miss was before and after, counted per
query × tier, in `workbench compare`, in the report's line per tried fix, and for the inspector."""

from __future__ import annotations

import json

import msgspec
from click.testing import CliRunner

from workbench.access.ladder import load_tiers
from workbench.access.runs import RunStore
from workbench.cli import main
from workbench.diagnosis.verdicts import VerdictReader
from workbench.inspection.movement import count_moves, movement, query_moves
from workbench.project.load import load_project
from workbench.records import Query
from workbench.rerank.run import rerank

SYSTEM = "bm25>rerank:ce@5"


def test_counts_follow_the_definitions():
    q = Query("q", "?", "a", [1, 2], [3, 4, 9], "d", "multi")
    before = [3, 5, 1, 4, 6, 7, 8, 2]  # 3 and 4 above gold 2; 9 unranked
    after = [1, 3, 2, 4, 9]  # 3 still above gold 2; 4 and 9 now below both
    moves = query_moves(q, "full", before, after)
    assert {(m.doc_id, m.role, m.before, m.after) for m in moves} == {
        (1, "gold", 3, 1), (2, "gold", 8, 3), (3, "near_miss", 1, 2), (4, "near_miss", 4, 4), (9, "near_miss", None, 5)}
    c = count_moves(moves, k=3)
    assert (c.gold_promoted, c.gold_demoted) == (1, 0)  # 2: #8 → #3; 1 was already in the top 3
    assert (c.near_misses_demoted, c.near_misses_promoted) == (1, 0)  # 4 fell below both gold; 3 did not
    back = movement("b", "a", [(q, "full", after, before)], 3).counts
    assert (back.gold_demoted, back.near_misses_promoted) == (1, 1), "the reverse pair counts the reverse"


def _reranked(root):
    project = load_project(root)
    full = [t for t in load_tiers(project).tiers if t.name == "full"]
    rerank(project, full, [SYSTEM], k=3)
    return project, full


def test_compare_reports_the_movement_of_a_reranker_over_its_base(rerank_project):
    project, full = _reranked(rerank_project)
    out = CliRunner().invoke(main, ["compare", str(rerank_project), "bm25", SYSTEM, "--tiers", "full", "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    store = RunStore(project)
    a, b = store.load("bm25", "full"), store.load(SYSTEM, "full")
    pairs = [(q, "full", a.ranking(q.query_id), b.ranking(q.query_id)) for q in project.queries]
    want = movement("bm25", SYSTEM, pairs, VerdictReader(project).k)
    assert doc["movement"]["counts"] == msgspec.to_builtins(want.counts)
    assert len(doc["movement"]["moves"]) == sum(len(q.gold_doc_ids) + len(q.hard_negative_ids) for q in project.queries)
    text = CliRunner().invoke(main, ["compare", str(rerank_project), "bm25", SYSTEM, "--tiers", "full"])
    assert text.exit_code == 0 and "rank movement:" in text.output and "near miss" in text.output


def test_a_side_on_one_level_keeps_the_depth_in_its_name(rerank_project):
    _reranked(rerank_project)
    out = CliRunner().invoke(main, ["compare", str(rerank_project), "bm25@full", f"{SYSTEM}@full", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["b"] == f"{SYSTEM}@full"  # the missing rankings are computed first, progress on stderr


def test_the_report_states_each_tried_fix_with_interval_p_and_movement(rerank_project):
    from workbench.report.build import build_report
    from workbench.report.markdown import report_markdown

    project, _ = _reranked(rerank_project)
    tiers = load_tiers(project).tiers
    report = build_report(project, tiers)
    fix = next(f for f in report.fixes if f.system == SYSTEM)
    assert fix.base == "bm25" and fix.level == "full"
    assert fix.metric in ("FR@10", "SR@10") and fix.before.n == fix.after.n == fix.test.n > 0
    assert "near miss(es) below their gold" in fix.line and "p = " in fix.line
    assert "## Tried fixes" in report_markdown(report)


def test_the_inspector_gets_each_documents_rank_before_the_rerank(rerank_project):
    from workbench.session import open_session, ranks_before

    project, _ = _reranked(rerank_project)
    session, _ = open_session(rerank_project)
    q = project.queries[0].query_id
    before = ranks_before(session, q, "full", SYSTEM)
    base = RunStore(project).load("bm25", "full").ranking(q)
    assert before == {d: n for n, d in enumerate(base, 1)}
    assert ranks_before(session, q, "full", "bm25") is None


def test_the_inspection_carries_each_shown_documents_rank_before(rerank_project):
    from workbench.inspection.rankings import inspect_stored

    project, full = _reranked(rerank_project)
    q = project.queries[2]
    ins = inspect_stored(project, full[0], q, k=3)
    base = {d: n for n, d in enumerate(RunStore(project).load("bm25", "full").ranking(q.query_id), 1)}
    mine = ins.system(SYSTEM)
    assert mine is not None and mine.before == {d: base.get(d) for d in [r.doc_id for r in mine.rows] + sorted(q.gold_doc_ids)}
    assert ins.system("bm25").before == {}


def test_each_access_fix_carries_its_command_its_judge_and_once_run_its_effect(rerank_project):
    from workbench.diagnosis.fix_commands import runnable_fixes

    project = load_project(rerank_project)
    tiers = load_tiers(project).tiers
    fixes = runnable_fixes(project, "bm25", tiers)
    assert [f.system for f in fixes] == ["hybrid", "bm25>rerank:ce@100", "dense@tuned"]
    assert all(f.effect is None for f in fixes), "nothing tried yet"
    assert fixes[1].command.startswith("workbench rerank ") and "compare" in fixes[1].judge
    rerank(project, tiers, ["bm25>rerank:ce@100"], k=3)
    tried = runnable_fixes(load_project(rerank_project), "bm25", tiers)[1]
    assert tried.effect is not None and "p = " in tried.effect and "at full" in tried.effect
