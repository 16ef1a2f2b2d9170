"""The CLI command and the TUI's action run one operation: `eval` and the TUI's evaluation reach
workbench.session.evaluation.evaluate_systems, `add-query` and the TUI's "add a query from a log"
reach workbench.session.queries.add_query, and on the same project they give the same result."""

from __future__ import annotations

import shutil

import msgspec
from click.testing import CliRunner

from support.recording import recording as _recording

from workbench.cli import main
from workbench.session import evaluation, queries
from workbench.session import add_query_from_log, evaluate_all, open_session


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
    # the CLI reaches it through the facade, which keeps a name once looked up: stopped there too,
    # and put back after the test (a kept stub would stop every later `rerank` / `tune`)
    import workbench.session as facade

    monkeypatch.setitem(facade.__dict__, name, stop)
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


# ---------------------------------------------------------------- the rest of the CLI (issue 41): one operation each


def _reached(monkeypatch, name: str) -> list:
    """Each call of the facade's operation ``name`` (and of its home module's), recorded on the way."""
    import importlib

    import workbench.session as facade

    real = getattr(facade, name)
    seen: list = []

    def through(*args, **kwargs):
        seen.append(real(*args, **kwargs))
        return seen[-1]

    monkeypatch.setattr(facade, name, through)
    monkeypatch.setattr(importlib.import_module(real.__module__), name, through)
    return seen


def _sample_with_stub(tmp_path, server):
    from support.paths import REPO

    root = tmp_path / "sample"
    shutil.copytree(REPO / "sample_corpus", root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    (root / "workbench.toml").write_text((root / "workbench.toml").read_text()
                                         + f'\n[models.stub]\nmodel = "fault"\nbase_url = "{server.base_url}"\ncontext_window = 8192\n')
    return root


def test_sweep_show_and_the_sweeps_tab_read_the_same_sweeps(tmp_path, fault_server, monkeypatch):
    from workbench.session import SweepRequest, run_sweep, sweep_panels
    from workbench.sweeps import summary

    root = _sample_with_stub(tmp_path, fault_server)
    runner = CliRunner()
    res = runner.invoke(main, ["sweep", "volume", str(root), "--model", "stub", "--judge", "stub", "--lengths", "1K",
                               "--cases", "1", "--repeats", "1", "--families", "needle"])
    assert res.exit_code == 0, res.output
    again = run_sweep(root, SweepRequest(kind="volume", model="stub", judge="stub", lengths=[1024],
                                         params=dict(families=["needle"], repeats=1, cases=1)))
    assert again.summary_markdown in res.output  # the command is the operation: the same sweep, nothing rerun

    shown = _reached(monkeypatch, "show_sweeps")
    read = _recording(monkeypatch, summary, "sweeps_dict")
    res = runner.invoke(main, ["sweep", "show", str(root)])
    assert res.exit_code == 0, res.output
    assert len(shown) == 1 and shown[0] in res.output and "### Volume sweep" in shown[0]
    session, _ = open_session(root)
    panels = sweep_panels(session)
    assert len(read) == 2 and panels  # the CLI and the tab read through one selection: the latest of each kind
    assert read[0] == read[1] and list(read[0]) == ["volume"]

    listed = _reached(monkeypatch, "list_sweeps")
    res = runner.invoke(main, ["sweep", "list", str(root)])
    assert res.exit_code == 0 and len(listed) == 1
    assert [line.split()[0] for line in res.output.splitlines()] == [s.sweep_id for s in listed[0].sweeps] == [again.sweep_id]


def test_collide_score_prints_the_operation_s_figures(built_project, tmp_path, monkeypatch):
    import json

    truth = tmp_path / "truth.jsonl"
    rows = [msgspec.to_builtins(q) for q in open_session(built_project)[0].project.queries]
    for i, row in enumerate(rows):  # the true hard negatives: documents of the neighbouring query
        row["hard_negative_ids"] = rows[(i + 1) % len(rows)]["gold_doc_ids"]
    truth.write_text("".join(json.dumps(r) + "\n" for r in rows))
    seen = _reached(monkeypatch, "collide_score")
    res = CliRunner().invoke(main, ["collide-score", str(built_project), "--truth", str(truth), "--recall-at", "5,10", "--json"])
    assert res.exit_code == 0, res.output
    assert len(seen) == 1 and seen[0].report is None  # the original set: no verdicts to score
    printed = json.loads(res.stdout)
    assert printed == {"recall_at": json.loads(json.dumps(msgspec.to_builtins(seen[0].recall_at))), "report": None}
    assert set(printed["recall_at"]) == {"dense", "bm25", "dense+bm25"} and printed["recall_at"]["dense"]["10"] is not None


def test_production_imports_print_the_operations_results(evaluated_copy, tmp_path, monkeypatch):
    """import-run, import-answers, import-traces, export-labels and add-query: each command reaches its one
    operation, and what it prints is that operation's result."""
    import json

    from support.traces import write_traces

    from workbench.session.imports import export_trec

    runner = CliRunner()
    project = open_session(evaluated_copy)[0].project
    ranking = next(p for p in export_trec(evaluated_copy, "full", tmp_path / "trec") if "bm25" in p.name)
    seen = _reached(monkeypatch, "run_imported")
    res = runner.invoke(main, ["import-run", str(evaluated_copy), str(ranking), "--name", "prod", "--tier", "full"])
    assert res.exit_code == 0, res.output
    assert len(seen) == 1 and seen[0].report.queries == len(project.queries)
    row = seen[0].figures[0]
    assert row.tier.name == "full" and f"SR@{seen[0].k}" in res.output and f"{row.summaries[0].sr_at_k:.3f}" in res.output

    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"query_id": q.query_id, "answer": q.answer if i % 2 else "I do not know",
                                           "context_doc_ids": [str(d) for d in q.gold_doc_ids]}) + "\n"
                               for i, q in enumerate(project.queries[:6])))
    seen = _reached(monkeypatch, "answers_imported")
    res = runner.invoke(main, ["import-answers", str(evaluated_copy), str(answers), "--name", "prod", "--no-judge"])
    assert res.exit_code == 0, res.output
    s = seen[0].summary
    assert (s.n, s.right, s.wrong, s.undecided, s.refusals) == (6, 3, 3, 0, 3) and (s.gold_in_context, s.gold_in_context_n) == (6, 6)
    assert "right 3, wrong 3, undecided 0 (n=6; deterministic rule" in res.output and "6/6" in res.output

    traces = write_traces(evaluated_copy, tmp_path / "t.jsonl", project.queries[:4], with_ids=True)
    seen = _reached(monkeypatch, "traces_imported")
    res = runner.invoke(main, ["import-traces", str(evaluated_copy), str(traces), "--name", "tr", "--no-judge"])
    assert res.exit_code == 0, res.output
    assert seen[0].runs == ["tr", "tr>rerank"] and seen[0].figures and "run:tr, run:tr>rerank" in res.output
    assert seen[0].traces.imported.imported == 4 and "imported 4 queries" in res.output

    seen = _reached(monkeypatch, "export_labels")
    res = runner.invoke(main, ["export-labels", str(evaluated_copy), "--out", str(tmp_path / "labels")])
    assert res.exit_code == 0 and all(p in res.output for p in seen[0].paths) and seen[0].version == "original"

    seen = _reached(monkeypatch, "add_and_rank")
    res = runner.invoke(main, ["add-query", str(evaluated_copy), "--query", "Who wrote it?", "--gold", str(project.queries[0].gold_doc_ids[0])])
    assert res.exit_code == 0, res.output
    added = seen[0]
    assert added.query.is_labelled and added.ranks and f"added query {added.query.query_id}" in res.output
    assert all(r.system in res.output and r.tier in res.output for r in added.ranks)
    assert all(f"{doc_id} " in res.output for r in added.ranks for doc_id, _ in r.top)


def test_tiers_and_query_sets_show_what_the_tui_opens_on(evaluated_copy, monkeypatch):
    """`tiers` and the TUI's overview read one ladder; `query-sets` and the palette's versions one list."""
    import json

    from workbench.session import list_versions

    seen = _reached(monkeypatch, "tier_table")
    res = CliRunner().invoke(main, ["tiers", str(evaluated_copy), "--json"])
    assert res.exit_code == 0, res.output
    assert len(seen) == 1
    session, _ = open_session(evaluated_copy)
    assert [(t["name"], t["docs"], t["queries"]) for t in json.loads(res.stdout)] \
        == [(t.name, t.docs, t.queries) for t in seen[0].tiers] \
        == [(t.name, len(t.doc_ids), len(t.query_ids)) for t in session.tiers]
    assert all(t.multi_source_queries <= t.queries for t in seen[0].tiers)

    seen = _reached(monkeypatch, "query_sets")
    res = CliRunner().invoke(main, ["query-sets", str(evaluated_copy), "--json"])
    assert res.exit_code == 0, res.output
    assert [v["name"] for v in json.loads(res.stdout)] == [v.info.name for v in seen[0]] \
        == [v.name for v in list_versions(evaluated_copy)]
