"""The CLI command and the TUI's action run one operation: `eval` and the TUI's evaluation reach
workbench.session.evaluation.evaluate_systems, `add-query` and the TUI's "add a query from a log"
reach workbench.session.queries.add_query, and on the same project they give the same result."""

from __future__ import annotations

import shutil

import msgspec
from click.testing import CliRunner

from workbench.cli import main
from workbench.session import evaluation, queries
from workbench.session import add_query_from_log, evaluate_all, open_session


def _recording(monkeypatch, module, name: str) -> list:
    """Each call's result, recorded on the way through the real function."""
    real, seen = getattr(module, name), []

    def through(*args, **kwargs):
        seen.append(real(*args, **kwargs))
        return seen[-1]

    monkeypatch.setattr(module, name, through)
    return seen


def _figures(results) -> list:
    return sorted((r.tier, r.system, msgspec.to_builtins(r.summary)) for r in results)


def test_eval_and_the_tui_evaluation_are_one_operation_with_one_result(evaluated_copy, monkeypatch):
    seen = _recording(monkeypatch, evaluation, "evaluate_systems")
    res = CliRunner().invoke(main, ["eval", str(evaluated_copy), "--json"])
    assert res.exit_code == 0, res.output
    assert len(seen) == 1  # the CLI reached it
    session, _ = open_session(evaluated_copy)
    tui = evaluate_all(session)
    assert len(seen) == 2 and seen[1] is tui  # the TUI reached it too
    assert _figures(seen[0]) == _figures(tui) and tui  # same systems, tiers and figures


def test_add_query_and_the_tui_add_are_one_operation_with_one_query(built_project, tmp_path, monkeypatch):
    cli_root, tui_root = tmp_path / "cli", tmp_path / "tui"
    shutil.copytree(built_project, cli_root)
    shutil.copytree(built_project, tui_root)
    seen = _recording(monkeypatch, queries, "add_query")
    text = "Which year did the [bold]museum[/] open?"
    res = CliRunner().invoke(main, ["add-query", str(cli_root), "--query", text, "--answer", "1931", "--no-run"])
    assert res.exit_code == 0, res.output
    assert len(seen) == 1
    session, _ = open_session(tui_root)
    relabelled = add_query_from_log(session, text, "1931")
    assert len(seen) == 2 and relabelled.query_id == seen[1].query_id
    assert msgspec.to_builtins(seen[0]) == msgspec.to_builtins(seen[1])  # same id, domain, labels
    assert (cli_root / "queries.jsonl").read_bytes() == (tui_root / "queries.jsonl").read_bytes()


def test_add_query_and_the_tui_add_rank_through_one_step_with_one_result(built_project, tmp_path, monkeypatch):
    cli_root, tui_root = tmp_path / "cli", tmp_path / "tui"
    shutil.copytree(built_project, cli_root)
    shutil.copytree(built_project, tui_root)
    seen = _recording(monkeypatch, queries, "rank_queries")
    text = "Which year did the museum open?"
    res = CliRunner().invoke(main, ["add-query", str(cli_root), "--query", text, "--answer", "1931"])
    assert res.exit_code == 0, res.output
    assert len(seen) == 1
    session, _ = open_session(tui_root)
    add_query_from_log(session, text, "1931")
    assert len(seen) == 2  # the TUI's add ranked through it too
    assert _figures(seen[0][2]) == _figures(seen[1][2]) and seen[1][2]  # same systems, tiers and figures


class _Reached(Exception):
    """Raised by a recorded operation: the caller got there (the work itself is tested elsewhere)."""


def _stopping(monkeypatch, module, name: str) -> list:
    seen: list = []

    def stop(*args, **kwargs):
        seen.append((args, kwargs))
        raise _Reached(name)

    monkeypatch.setattr(module, name, stop)
    return seen


def test_rerank_tune_and_the_diagnosis_tabs_try_a_fix_are_the_same_operations(built_project, monkeypatch):
    from workbench.session import RunnableFix, fixes, run_fix

    session, _ = open_session(built_project)
    tier = session.tiers[-1].name
    for kind, name, argv in (("rerank", "rerank", ["rerank", str(built_project), "hybrid>rerank:ce@20", "--tiers", tier]),
                             ("tune", "tune", ["tune", str(built_project), "--tiers", tier])):
        seen = _stopping(monkeypatch, fixes, name)
        res = CliRunner().invoke(main, argv)
        assert isinstance(res.exception, _Reached), res.output
        fix = RunnableFix(fix="x", system="hybrid>rerank:ce@20" if kind == "rerank" else "dense@tuned", command="",
                          judge="", kind=kind, tiers=[tier])  # type: ignore[arg-type]
        try:
            run_fix(session, fix)
        except _Reached:
            pass
        assert len(seen) == 2, kind  # the command and the tab's key reached the one operation
        cli_tiers, tab_tiers = seen[0][0][1], seen[1][0][1]
        assert [t.name for t in cli_tiers] == [t.name for t in tab_tiers] == [tier]
