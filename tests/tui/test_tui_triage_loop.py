"""The workbench as a user lives in it (issue 19, the TUI side): progress in view, figures that stand
in per tier, one verdict system, nothing lost, the triage loop inside the inspector, layouts that
show the difference. Pilot-driven, on the small hotpot project and the bundled demo."""

from __future__ import annotations

import json

from textual.command import CommandPalette
from textual.widgets import DataTable, Footer, Input, Static
from textual.widgets._footer import FooterKey

from screens.app import make_app
from screens.inspector import QueryScreen
from screens.main import MainScreen
from screens.modals import HelpScreen
from screens.widgets import TaskBar
from support.paths import REPO
from support.tui import open_inspector, settle, until
from workbench import session as core


def text_of(widget: Static) -> str:
    from rich.console import Console

    console = Console(width=200, record=True, file=open("/dev/null", "w"))
    console.print(widget.content)
    return console.export_text()


def notes(app) -> str:
    return "\n".join(str(n.message) for n in app._notifications)


def cell_text(table: DataTable, row: int, column: int) -> str:
    cell = table.get_cell_at((row, column))
    return cell.plain if hasattr(cell, "plain") else str(cell)


# ---------------------------------------------------------------- 1. progress in view, footer fits


async def test_progress_has_its_own_row_and_f1_stays_in_view(evaluated):
    for size in ((80, 24), (120, 40)):
        app = make_app(evaluated)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            app.task_state = ("building indexes: embedding chunks (dense)", 3, 10)
            await pilot.pause()
            bar, footer = app.screen.query_one(TaskBar), app.screen.query_one(Footer)
            assert bar.display and bar.region.height == 1
            assert bar.region.bottom <= footer.region.y, (size, bar.region, footer.region)  # never under the footer
            f1 = [k for k in footer.query(FooterKey) if k.key == "f1"]
            assert f1 and f1[0].region.width > 0 and f1[0].region.right <= size[0], size
            app.open_query(app.session.project.queries[0].query_id)
            await settle(pilot)
            footer = app.screen.query_one(Footer)
            f1 = [k for k in footer.query(FooterKey) if k.key == "f1"]
            assert f1 and f1[0].region.right <= size[0], ("inspector", size)


def test_build_stages_are_said_in_words():
    from screens.app import build_stage

    assert build_stage("embed") == "embedding chunks (dense)"
    assert build_stage("bm25 base:finance") == "sparse index of base:finance"
    assert build_stage("dense full") == "dense index of full"


# ---------------------------------------------------------------- 3. figures per tier from the best built retriever


async def test_figures_stand_in_per_tier_while_the_chosen_retriever_is_missing(evaluated):
    app = make_app(evaluated)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        s, ms = app.session, app.screen
        assert isinstance(ms, MainScreen) and ms.system == "hybrid"
        first = s.tiers[0].name
        for system in ("hybrid", "dense"):  # mid-build: dense and hybrid exist on the first tier only
            s.per_query[system] = {first: s.per_query[system][first]}
        app.verdicts_changed()  # the session's figures changed: every view follows
        await pilot.pause()
        for t in s.tiers[1:]:
            for qid in t.query_ids:
                q = s.project.query(qid)
                assert s.figure("hybrid", t.name, q) == s.figure("bm25", t.name, q) is not None
        table = ms.query_one("#query-table", DataTable)
        for row, key in enumerate(table.rows):
            q = s.project.query(str(key.value))
            b = s.breaks_at("hybrid", q)
            later = next((n for n, t in enumerate(s.tiers) if n > 0 and q.query_id in t.query_ids
                          and (f := s.figure("bm25", t.name, q)) is not None and f < 1), None)
            if b is None or b > 0:  # beyond the first tier the breaks column is bm25's
                assert b == later, q.query_id
            glyphs = cell_text(table, row, 4)
            assert "·" not in "".join(g for g, t in zip(glyphs, s.tiers) if q.query_id in t.query_ids)
        legend = text_of(ms.query_one("#query-legend"))
        assert f"until hybrid is ready there: bm25 stands in on tiers 2–{len(s.tiers)}" in legend


# ---------------------------------------------------------------- 4. one verdict system, visible, y switches both


async def test_y_switches_verdicts_and_figures_together_and_the_header_names_them(evaluated):
    app = make_app(evaluated)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        s, ms = app.session, app.screen
        before = core.verdict_system(s)
        assert before and f"verdicts {before}" in app.sub_title
        assert len(core.verdict_systems(s)) > 1
        await pilot.press("y")
        await pilot.pause()
        after = core.verdict_system(s)
        assert after != before and f"verdicts {after}" in app.sub_title
        assert ms.system == core.figures_system(s)
        table = ms.query_one("#query-table", DataTable)
        for row, key in enumerate(table.rows):
            v = s.diagnosis.summary(str(key.value), after)
            shown = cell_text(table, row, 3)
            assert v is not None and shown == (v.verdict if v.verdict != "USE-UNDER-DISTRACTORS" else "USE-DISTR")
        await pilot.press("3")
        assert f"Diagnosis {after}: no reading yet" in text_of(ms.query_one("#diagnosis-body"))  # nothing decided here
        app.open_query(str(next(iter(table.rows)).value))
        await settle(pilot)
        assert f"({after}, rule" in text_of(app.screen.query_one("#q-head"))


# ---------------------------------------------------------------- 6. filters


async def test_fail_base_is_the_own_domains_base_tier_and_v_bogus_explains(sample_project):
    app = make_app(sample_project)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        s, ms = app.session, app.screen
        system = ms.system
        expected = set()
        for q in s.project.queries:
            for t in s.tiers:
                a = s.per_query[system].get(t.name, {}).get(q.query_id)
                if t.name.startswith("base") and q.query_id in t.query_ids and a is not None and a.sr_at_k < 1:
                    expected.add(q.query_id)
        ms.query_one("#filter", Input).value = "fail:base"
        await settle(pilot)
        table = ms.query_one("#query-table", DataTable)
        assert {str(k.value) for k in table.rows} == expected
        assert 0 < len(expected) < len(s.project.queries)
        ms.query_one("#filter", Input).value = "v:bogus"
        await settle(pilot)
        assert table.row_count == 0
        legend = text_of(ms.query_one("#query-legend"))
        assert "no verdict word 'bogus'" in legend and "access" in legend


# ---------------------------------------------------------------- 5. nothing lost


async def test_header_names_the_version_a_label_made(evaluated_copy):
    app = make_app(evaluated_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "queries original" in app.sub_title
        q = next(q for q in app.session.project.queries if q.is_labelled)
        await open_inspector(pilot, q.query_id, app.session.tiers_for(q.query_id)[-1].name)
        qs = app.screen
        table = qs.query("#ranking-tables DataTable").first(DataTable)
        table.focus()
        await pilot.pause()
        row = next(i for i in range(table.row_count) if cell_text(table, i, 1).isdigit()
                   and int(cell_text(table, i, 1)) in q.hard_negative_ids)
        table.move_cursor(row=0)
        await pilot.press(*["down"] * row)
        assert qs.highlighted_doc() == int(cell_text(table, row, 1))
        await pilot.press("N")  # a hard negative marked not relevant: a new version
        await settle(pilot)
        version = app.session.project.queries_version
        assert version != "original" and f"queries {version} (" in app.sub_title


def test_demo_restart_keeps_a_query_the_user_added(tmp_path):
    from workbench.project.demo import prepare_demo

    home = prepare_demo(REPO / "sample_corpus", tmp_path / "demo")
    bundled = (REPO / "sample_corpus" / "queries.jsonl").read_text().splitlines()
    mine = {"query_id": "prod-1", "query": "Which savings account paid 4.0% in 2020?", "answer": "", "domain": "finance",
            "gold_doc_ids": [], "kind": "production"}
    with open(home / "queries.jsonl", "a") as f:
        f.write(json.dumps(mine) + "\n")
    prepare_demo(REPO / "sample_corpus", home)  # `workbench demo` again
    lines = (home / "queries.jsonl").read_text().splitlines()
    assert lines[: len(bundled)] == bundled and json.loads(lines[-1])["query_id"] == "prod-1"
    assert len(lines) == len(bundled) + 1


async def test_added_query_takes_a_domain_and_o_says_why_it_cannot_run(evaluated_copy):
    app = make_app(evaluated_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        domain = app.session.project.domains[-1]
        await pilot.press("a")
        await pilot.pause()
        for field, value in (("#new-query", "which film came out first?"), ("#new-answer", ""), ("#new-gold", ""),
                             ("#new-domain", domain)):
            app.screen.query_one(field, Input).value = value
            app.screen.query_one(field, Input).focus()
            await pilot.press("enter")
        await settle(pilot, rounds=8)
        await until(pilot, lambda: isinstance(app.screen, QueryScreen), "the added query opens")
        await settle(pilot)
        qs = app.screen
        added = app.session.project.query(qs.query_id)
        assert added.domain == domain and not added.gold_doc_ids
        await pilot.press("o")
        await pilot.pause()
        assert "has none: mark one gold (G) first" in notes(app) or "is on no tier yet" in notes(app)
        assert qs.running is None


# ---------------------------------------------------------------- 7. the triage loop inside the inspector


async def test_j_k_step_through_the_filter_and_slash_goes_to_it(evaluated):
    app = make_app(evaluated)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        ms = app.screen
        ms.query_one("#filter", Input).value = "multi"
        await settle(pilot)
        ids = [str(k.value) for k in ms.query_one("#query-table", DataTable).rows]
        assert len(ids) > 2
        assert app.listed == tuple(ids)  # what the list shows reaches the inspector as data, not by reading its table
        await open_inspector(pilot, ids[0], None)
        qs = app.screen
        assert isinstance(qs, QueryScreen)
        await pilot.press("j")
        await settle(pilot)
        assert app.screen is qs and qs.query_id == ids[1]
        assert qs.inspection is not None and qs.inspection.query_id == ids[1]
        assert ids[1] in text_of(qs.query_one("#q-head"))
        await pilot.press("k", "k")
        await settle(pilot)
        assert qs.query_id == ids[-1]  # wraps around
        await pilot.press("slash")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen) and app.focused is ms.query_one("#filter", Input)


async def test_copy_docid_and_command_and_view_a_whole_document(evaluated, monkeypatch):
    from screens.modals import TextModal

    app = make_app(evaluated)
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        q = next(q for q in app.session.project.queries if q.is_labelled)
        await open_inspector(pilot, q.query_id, app.session.tiers_for(q.query_id)[-1].name)
        qs = app.screen
        table = qs.query("#ranking-tables DataTable").first(DataTable)
        table.focus()
        table.move_cursor(row=1)
        await pilot.press("c")
        doc = qs.highlighted_doc()
        assert copied == [str(doc)] and f"copied DocID: {doc}" in notes(app)
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, TextModal)
        body = text_of(app.screen.query_one("#text-body"))
        assert app.session.project.documents[doc].text.split()[-1] in body
        await pilot.press("escape")
        await pilot.press("2")  # the near-miss tab: c copies the command that fills a NOT-YET, else the gold IDs
        await pilot.press("c")
        assert copied[-1] == (qs.suggested_command() or " ".join(str(g) for g in sorted(q.gold_doc_ids)))


async def test_palette_offers_the_current_screens_own_entries(evaluated):
    app = make_app(evaluated)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        q = app.session.project.queries[0]
        await open_inspector(pilot, q.query_id, None)
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"Export evidence")
        await until(pilot, lambda: "export this query's evidence" in " ".join(
            str(o.prompt) for o in app.screen.query_one("CommandList").options), "the inspector's entry is offered")
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Batch: oracle")
        await until(pilot, lambda: "Batch: oracle QA" in " ".join(
            str(o.prompt) for o in app.screen.query_one("CommandList").options), "the batch entry is offered")


# ---------------------------------------------------------------- 8. layouts that show the difference


async def test_ranking_titles_show_what_differs_and_tables_re_lay_out(sample_project):
    app = make_app(sample_project)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_inspector(pilot, "finance-05", "full")
        qs = app.screen
        ins = qs.inspection
        hn = [m for m in ins.near_misses if "2019" in m.title]
        assert hn, "the demo's finance-05 has a 2019 near miss of a 2020 gold document"
        rows = []
        for table in qs.query("#ranking-tables DataTable").results(DataTable):
            rows += [cell_text(table, i, 2) for i in range(table.row_count) if cell_text(table, i, 1) == str(hn[0].doc_id)]
        assert rows and all("2019" in r for r in rows), rows
        assert len(qs.query("#ranking-tables DataTable")) == 2  # two tables of readable width at 120 columns
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        tables = list(qs.query("#ranking-tables DataTable").results(DataTable))
        assert len(tables) == 1 and tables[0].border_title == core.system_label(ins.systems[0].system)
        assert "score" in " ".join(str(c.label) for c in tables[0].columns.values())
        await pilot.press("y")
        await settle(pilot)
        tables = list(qs.query("#ranking-tables DataTable").results(DataTable))
        assert len(tables) == 1 and tables[0].border_title == core.system_label(ins.systems[1].system)
        assert tables[0].row_count >= 10 and tables[0].region.height >= 12  # the rankings keep the rows at 80×24


# ---------------------------------------------------------------- 9. help complete


async def test_help_names_every_tab_and_filter_word(evaluated):
    app = make_app(evaluated)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = " ".join(text_of(s) for s in app.screen.query(Static))
        for word in ("Sweeps", "Near misses", "v:WORD", "fail:TIER", "d:DOMAIN", "unlabelled", "Next query"):
            assert word in text, word
        for word in core.FILTER_WORDS:
            assert f"v:{word}" in text, word
    tui = (REPO / "docs" / "reference" / "tui.md").read_text()  # the README's TUI section, moved (issue 41)
    for needle in ("`4` sweeps", "`2` near misses", "`j`/`k`", "`v:fail`",
                   "`c` copy", "`d` the whole document", "Batch:", "Calibrate the judge"):
        assert needle in tui, needle
