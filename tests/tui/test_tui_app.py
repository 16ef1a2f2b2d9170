"""Pilot-driven tests of each screen's main flow, on a small real hotpot project."""

from __future__ import annotations

import shutil
import threading

import pytest
from textual.command import CommandPalette
from textual.widgets import DataTable, Input, Static, TabbedContent

from screens.app import make_app
from screens.inspector import QueryScreen
from screens.main import MainScreen
from screens.modals import ConfirmModal, ErrorModal, HelpScreen
from support.tui import SIZE, first_near_miss_case, open_inspector, settle, text_of, until, until_set





async def test_open_lists_queries_with_access_rows(evaluated):
    app = make_app(evaluated)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        await settle(pilot)
        table = app.screen.query_one("#query-table", DataTable)
        assert table.row_count == len(app.session.project.queries)
        assert {"bm25", "dense", "hybrid"} <= set(app.session.systems)
        assert "queries" in text_of(app.screen.query_one("#query-legend"))
        await pilot.press("1")
        assert app.screen.query_one("#tabs", TabbedContent).active == "overview"
        assert "Tiers" in text_of(app.screen.query_one("#overview-body"))
        await pilot.press("3")
        diagnosis = text_of(app.screen.query_one("#diagnosis-body"))
        assert f"Access (K={app.session.k}) and use per tier" in diagnosis and "Provisional reading" not in diagnosis
        # no model answers: nothing decided, so no reading (a reading needs MIN_DECIDED decided verdicts)
        assert f"Diagnosis {app.session.diagnosis.primary}: no reading yet (0 decided verdicts" in diagnosis
        assert "Verdicts per tier level" in diagnosis
        for tier in app.session.tiers:
            assert tier.name in diagnosis


async def test_filter_and_sort(evaluated):
    app = make_app(evaluated)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        s = app.session
        await pilot.press("slash")
        await pilot.press(*"multi fail")
        await settle(pilot)  # the list is read by a worker
        table = app.screen.query_one("#query-table", DataTable)
        ids = [k.value for k in table.rows]
        assert ids, "the fixture has failing multi-source queries"
        for qid in ids:
            q = s.project.query(qid)
            assert q.is_multi_source and s.breaks_at("hybrid", q) is not None
        await pilot.press("enter")  # back to the table
        assert app.focused is table
        app.screen.query_one("#filter", Input).value = "d:comparison"
        await settle(pilot)
        assert all(s.project.query(k.value).domain == "comparison" for k in table.rows)
        app.screen.query_one("#filter", Input).value = ""
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        order = [s.breaks_at("hybrid", s.project.query(k.value)) for k in table.rows]
        n = len(s.tiers)
        keys = [o if o is not None else n + 1 for o in order]
        assert keys == sorted(keys)


async def test_inspector_tiers_near_misses_and_export(evaluated, tmp_path):
    p, q, tier, ins = first_near_miss_case(evaluated)
    app = make_app(evaluated, export_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # Enter on the list opens the inspector
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, QueryScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
        app.open_query(q.query_id, tier.name)
        await settle(pilot)
        qs = app.screen
        assert qs.tier == tier.name and qs.inspection is not None
        tables = qs.query("#ranking-tables DataTable")
        assert len(tables) == 1  # at 100 columns one system's table, readable; y shows the next system's
        first = tables.first(DataTable).border_title
        await pilot.press("y")
        await settle(pilot)
        assert qs.query("#ranking-tables DataTable").first(DataTable).border_title != first
        assert "gold rank" in text_of(qs.query_one("#gold-ranks"))
        # step through near misses
        await pilot.press("n")
        assert qs.query_one("#inspector-tabs", TabbedContent).active == "nearmiss"
        head = text_of(qs.query_one("#miss-head"))
        assert f"Near miss 1/{len(ins.near_misses)}" in head and "imitates gold" in head
        assert "DISTRACTOR" in text_of(qs.query_one("#diff-left-text"))
        if len(ins.near_misses) > 1:
            await pilot.press("n")
            assert "Near miss 2/" in text_of(qs.query_one("#miss-head"))
            await pilot.press("p")
            assert "Near miss 1/" in text_of(qs.query_one("#miss-head"))
        # switch tier: inspection reloads for the new tier
        before = qs.tier
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert qs.tier != before or len(qs.tiers) == 1
        assert qs.inspection is not None and qs.inspection.tier == qs.tier
        # model tab shows prompt sizes before running
        await pilot.press("3")
        await settle(pilot)
        assert "tokens" in text_of(qs.query_one("#model-head"))
        await pilot.press("e")
        await settle(pilot)
        md = tmp_path / f"evidence-{q.query_id}.md"
        assert md.exists() and (tmp_path / f"evidence-{q.query_id}.json").exists()
        assert q.query in md.read_text()


async def test_bad_project_shows_a_modal_not_a_traceback(tmp_path):
    (tmp_path / "workbench.toml").write_text("name = [broken")
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ErrorModal)
        assert "malformed TOML" in text_of(app.screen.query_one(".dialog-body"))
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


async def test_stale_index_offers_to_build(evaluated, tmp_path):
    root = tmp_path / "proj"
    shutil.copytree(evaluated, root)
    shutil.rmtree(root / ".workbench" / "index" / "sparse")
    app = make_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("y")
        await settle(pilot, rounds=6)
        assert isinstance(app.screen, MainScreen)
        assert app.session.results  # built, then evaluated
        from workbench.access.indexing import index_status

        assert all(index_status(app.session.project, t)["sparse"] == "ok" for t in app.session.tiers)


async def test_help_and_command_palette(evaluated):
    app = make_app(evaluated)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
        # the app's own commands are offered by its provider
        from screens.commands import palette_entries

        names = [e.title for e in palette_entries(app, app.screen)]
        assert any(n.startswith("Build indexes: ") for n in names) and any(n.startswith("Sort: ") for n in names)
        assert any(n.startswith("Open query ") for n in names)


def test_bindings_have_ids_and_can_be_remapped():
    from screens.app import WorkbenchApp

    for cls in (WorkbenchApp, MainScreen, QueryScreen):
        assert all(b.id for b in cls.BINDINGS), cls


async def test_keys_answered_while_a_model_call_is_in_flight(evaluated, monkeypatch):
    """A fake model that runs until cancelled: the UI answers keys meanwhile, shows live results,
    and x cancels it through the progress callback (the one way to cancel)."""
    import workbench.session as core

    fake, updated, stopped = endless_model_fake()
    monkeypatch.setattr(core, "run_model_task", fake)
    p, q, tier, _ = first_near_miss_case(evaluated)
    app = make_app(evaluated)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, q.query_id, tier.name)
        qs = app.screen
        await pilot.press("o")  # oracle QA
        await until_set(pilot, updated, "the fake model's first result")
        await pilot.pause()  # the ModelUpdate message is handled
        assert "partial" in text_of(qs.query_one("#model-results"))  # arrived live
        await pilot.press("1")
        # answered while the model call is still running: it cannot end on its own
        assert qs.query_one("#inspector-tabs", TabbedContent).active == "rankings"
        assert any(w.group == "model" and w.is_running for w in app.workers) and not stopped.is_set()
        await pilot.press("x")
        await settle(pilot)
        assert stopped.is_set() and not any(w.group == "model" and w.is_running for w in app.workers)
        assert app.task_state[0] == ""  # progress cleared after cancel
        assert isinstance(app.screen, QueryScreen)
        assert any("cancelled" in n.message for n in app._notifications)


def endless_model_fake():
    """A model run that only ends when its progress callback raises Cancelled."""
    from workbench.inspection.evidence import ModelEvidence

    updated, stopped = threading.Event(), threading.Event()

    def run(session, tier, query, model, task, on_update, progress, on_note=None):
        on_update(ModelEvidence(system=f"model:{model}:{task}", tier=tier.name, task=task, answer="partial"))
        updated.set()
        try:
            while True:
                progress(task, 0, 1)
                threading.Event().wait(0.01)
        finally:
            stopped.set()

    return run, updated, stopped


async def test_leaving_the_inspector_cancels_its_model_run(evaluated, monkeypatch):
    import workbench.session as core

    fake, updated, stopped = endless_model_fake()
    monkeypatch.setattr(core, "run_model_task", fake)
    p, q, tier, _ = first_near_miss_case(evaluated)
    app = make_app(evaluated)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, q.query_id, tier.name)
        await pilot.press("o")
        await until_set(pilot, updated, "the fake model's first result")
        await pilot.pause()
        assert app.task_state[0]  # the task bar shows the run
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
        await until_set(pilot, stopped, "the run stops with its screen")
        await settle(pilot)
        assert app.task_state[0] == "" and not any(w.group == "model" and w.is_running for w in app.workers)


async def test_model_failure_is_a_modal_with_the_hint(evaluated, monkeypatch):
    import workbench.session as core
    from workbench.llm.server import LocalServerError

    def down(*args, **kwargs):
        raise LocalServerError("llama.cpp's server is not installed", hint="pip install 'llama-cpp-python[server]'")

    monkeypatch.setattr(core, "run_model_task", down)
    p, q, tier, _ = first_near_miss_case(evaluated)
    app = make_app(evaluated)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, q.query_id, tier.name)
        await pilot.press("o")
        await settle(pilot)
        # a user-causable error: one modal with its title, message and hint
        assert isinstance(app.screen, ErrorModal)
        assert "not installed" in text_of(app.screen.query_one(".dialog-body"))
        assert "llama-cpp-python[server]" in str(app.screen.query_one(".dialog-hint", Static).content)  # not markup
        await pilot.press("escape")
        assert isinstance(app.screen, QueryScreen)
        assert "running" not in text_of(app.screen.query_one("#model-head"))


@pytest.mark.llm
@pytest.mark.slow
async def test_model_panel_on_the_local_server(evaluated_copy):
    p, q, tier, _ = first_near_miss_case(evaluated_copy)
    app = make_app(evaluated_copy)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, q.query_id, tier.name)
        await pilot.press("o")
        await settle(pilot)
        results = app.session.model_results.get((q.query_id, tier.name), {})
        ev = results.get("model:local:oracle")
        assert ev is not None and ev.answer and ev.judge_score is not None
        assert "judge" in text_of(app.screen.query_one("#model-results"))


async def test_the_query_set_picker_switches_versions(project_copy):
    """The palette's "Queries: version …" entries reload the project with that version; the
    near-miss stepper then reads that version's hard negatives."""
    import msgspec

    from workbench.project.load import load_project
    from workbench.project.versions import write_version

    p = load_project(project_copy)
    write_version(p, [msgspec.structs.replace(q, hard_negative_ids=[]) for q in p.queries[3:]], [], made_by="test", name="v")
    app = make_app(project_copy, auto_build=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.session.project.queries_version == "original" and "queries original" in app.sub_title
        from screens.commands import palette_entries

        entries = [e.title for e in palette_entries(app, app.screen)]
        assert "Queries: version original (shown)" in entries and "Queries: version v" in entries
        app.switch_queries_version("v")
        await settle(pilot)
        assert app.session.project.queries_version == "v" and "queries v (" in app.sub_title
        assert len(app.session.project.queries) == len(p.queries) - 3
        table = app.screen.query_one("#query-table", DataTable)
        assert table.row_count == len(p.queries) - 3


async def test_verdicts_in_the_list_filter_and_inspector(evaluated):
    """The list's verdict column, the v: filter and the inspector's verdict line say the same."""
    from workbench.session import VERDICTS

    app = make_app(evaluated)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        d = app.session.diagnosis
        assert d is not None and d.primary is not None
        qid = app.session.project.queries[0].query_id
        v = d.summary(qid)
        word = {"USE-UNDER-DISTRACTORS": "distractors"}.get(v.verdict, v.verdict.lower())
        await pilot.press("slash")
        await pilot.press(*f"v:{word}")
        table = app.screen.query_one("#query-table", DataTable)
        expected = [q.query_id for q in app.session.project.queries if d.summary(q.query_id).verdict == v.verdict]
        assert [k.value for k in table.rows] == expected and qid in expected
        assert str(table.get_row_at(0)[[str(c.label) for c in table.columns.values()].index("verdict")]) in (v.verdict, "USE-DISTR")
        others = [x for x in VERDICTS if x != v.verdict and x not in ("USE-UNDER-DISTRACTORS",)]
        assert all(d.summary(q).verdict != others[0] for q in expected)
        tier = v.tier
        await open_inspector(pilot, qid, tier)
        head = text_of(app.screen.query_one("#q-head"))
        assert f"verdict {v.verdict}" in head and f"{v.verdict} at {tier} ({d.primary}, rule {v.rule})" in head


async def test_bm25_is_usable_while_the_dense_indexes_still_build(project_copy, monkeypatch):
    """A project opened before its indexes exist lists its queries with BM25 figures as soon as
    the sparse indexes are built (seconds); dense and hybrid join once their indexes are."""
    import workbench.access.indexing as ix

    shutil.rmtree(project_copy / ".workbench" / "index")
    release = threading.Event()
    real_build_dense = ix.build_dense

    def held_dense(*args, **kwargs):
        release.wait(60)  # dense stays unbuilt until the test has looked at the BM25-only state
        return real_build_dense(*args, **kwargs)

    monkeypatch.setattr(ix, "build_dense", held_dense)
    app = make_app(project_copy, auto_build=True)
    shown: list[str] = []  # what the task bar was given to show
    post = app.post_message

    def recording_post(message):
        if type(message).__name__ == "TaskProgress":
            shown.append(message.label)
        return post(message)

    app.post_message = recording_post  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        try:
            await until(pilot, lambda: app.session is not None and bool(getattr(app.session, "results", None)),
                        "figures before the dense indexes are built")
            tiers = [t.name for t in app.session.tiers]
            assert {(r.system, r.tier) for r in app.session.results} == {("bm25", t) for t in tiers}
            table = app.screen.query_one("#query-table", DataTable)
            await until(pilot, lambda: table.row_count == len(app.session.project.queries), "the query list")
            # the build's stages reach the task bar: the sparse indexes, then the first tier's chunks for dense
            assert any(label.startswith("building indexes: sparse index of ") for label in shown)
            await until(pilot, lambda: "building indexes: chunking documents (dense)" in shown,
                        "the dense build's progress in the task bar")
        finally:
            release.set()
        await settle(pilot)
        shown = {(r.system, r.tier) for r in app.session.results}
        assert {(s, t) for s in ("bm25", "dense", "hybrid") for t in tiers} <= shown
