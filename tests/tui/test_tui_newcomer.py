"""What a newcomer hit in the TUI (issue 10): the half-circle for partial access, whole IDs and
domains, every tier in the legend, a bad filter explained, readable key labels, `m` with one
model, text from data drawn as text, and a model call that shows its elapsed time and whose
cancel aborts the HTTP request."""

from __future__ import annotations

import re
import shutil

from textual.widgets import DataTable

from support.hostile import make_hostile_project
from screens.app import make_app
from screens.inspector import QueryScreen
from screens.modals import HelpScreen
from support.tui import text_of
from support.tui import first_near_miss_case, open_inspector, settle

SMALL = (80, 24)  # every screen must still be usable at 80×24


async def test_partial_multi_source_access_shows_the_half_circle(evaluated):
    app = make_app(evaluated)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        s = app.session
        partial = [(q, t) for q in s.project.queries if q.is_multi_source for t in s.tiers
                   if (a := s.access(app.screen.system, t.name, q.query_id)) is not None and 0 < a.sr_at_k < 1]
        assert partial, "the fixture has multi-source queries with some but not all gold in the top K"
        table = app.screen.query_one("#query-table", DataTable)
        q, _ = partial[0]
        glyphs = table.get_row(q.query_id)[[str(c.label) for c in table.columns.values()].index("tiers")]
        assert "◐" in glyphs.plain


async def test_ids_domains_and_tiers_are_not_cut_at_80_columns(evaluated):
    app = make_app(evaluated)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#query-table", DataTable)
        for q in app.session.project.queries:
            row = table.get_row(q.query_id)
            assert row[0].plain == q.query_id and row[1].plain == q.domain  # hotpot IDs are 24 characters
        legend = text_of(app.screen.query_one("#query-legend"))  # at 80×24 the rows go to queries ...
        assert f"tiers 1–{len(app.session.tiers)} in ladder order" in legend
        overview = text_of(app.screen.query_one("#overview-body"))  # ... and the Overview names every tier whole
        assert all(t.name in overview for t in app.session.tiers)


async def test_a_filter_that_can_match_nothing_says_why(evaluated):
    app = make_app(evaluated)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await pilot.press(*"d:nosuch fail:bogus")
        await pilot.pause()
        legend = text_of(app.screen.query_one("#query-legend"))
        assert "no domain matches 'nosuch'" in legend and "no tier matches 'bogus'" in legend
        assert app.screen.query_one("#query-table", DataTable).row_count == 0


async def test_help_shows_keys_as_typed_and_the_filter_syntax(evaluated):
    app = make_app(evaluated)
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        shown = " ".join(text_of(w) for w in app.screen.query("Static"))
        assert "left square bracket" not in shown and "d:DOMAIN" in shown
        assert "Model panel" in shown and "Next model" in shown  # `3` and `m` no longer share a label


async def test_m_with_one_model_says_why(evaluated):
    _, q, tier, _ = first_near_miss_case(evaluated)
    app = make_app(evaluated)
    async with app.run_test(size=SMALL) as pilot:
        await open_inspector(pilot, q.query_id, tier.name)
        await pilot.press("m")
        await pilot.pause()
        assert any("only one model" in n.message for n in app._notifications)


async def test_document_escape_sequences_are_drawn_as_text(tmp_path):
    from workbench.access.evaluate import evaluate
    from workbench.access.indexing import build_indexes
    from workbench.access.ladder import write_ladder
    from workbench.project.load import load_project
    from workbench.access.retrievers import make_retrievers

    root = make_hostile_project(tmp_path / "hostile")
    project = load_project(root)
    tiers = write_ladder(project).tiers
    build_indexes(project, tiers, kinds=("sparse",))
    evaluate(project, tiers, make_retrievers(project, ["bm25"]))
    app = make_app(root)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        if app.screen.__class__.__name__ == "ConfirmModal":
            await pilot.press("n")  # dense indexes not built: not needed here
        await open_inspector(pilot, "q1", "full")
        await pilot.press("2")
        await settle(pilot)
        screen = app.screen
        shown = "\n".join(text_of(w) for w in screen.query("Static")) + app.export_screenshot()
        assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown
        assert "␛]0;pwned␇" in shown and "[link=https://example.invalid]L[/link]" in shown


async def test_a_model_call_shows_elapsed_time_and_x_aborts_the_request(evaluated, tmp_path, fault_server):
    root = tmp_path / "p"
    shutil.copytree(evaluated, root)
    toml = root / "workbench.toml"
    toml.write_text(toml.read_text() + f'\n[models.fault]\nmodel = "fault"\nbase_url = "{fault_server.base_url}"\n'
                    "context_window = 1000000\nmax_retries = 0\ntimeout_s = 600\n")
    fault_server.default = ("delay", 300)  # a model that would take five minutes
    _, q, tier, _ = first_near_miss_case(root)
    app = make_app(root)
    async with app.run_test(size=SMALL) as pilot:
        await open_inspector(pilot, q.query_id, tier.name)
        qs = app.screen
        assert isinstance(qs, QueryScreen)
        await pilot.press("l")  # localize: one call, no judge
        while not fault_server.requests:
            await pilot.pause()
        head = text_of(qs.query_one("#model-head"))
        assert re.search(r"running localize… \d+ s \(x to cancel\)", head), head  # elapsed time shown
        await pilot.press("x")
        await settle(pilot)
        assert not any(w.group == "model" and w.is_running for w in app.workers)
        assert "running" not in text_of(qs.query_one("#model-head"))  # the state is cleared
        assert fault_server.disconnected.wait(30)  # the HTTP request was aborted: the server stops
        assert not qs.session.model_results.get((q.query_id, tier.name))  # nothing arrived after the cancel
        await pilot.resize_terminal(140, 40)  # a redraw must not bring a stale "running…" back
        await settle(pilot)
        assert "running" not in text_of(qs.query_one("#model-head"))


async def test_the_footer_fits_120_columns_with_help_in_view(evaluated):
    """Every key the footer shows is inside 120 columns, f1 among them, on the main screen and in
    the inspector; the labelling keys are named on the focused ranking table instead."""
    from textual.widgets._footer import FooterKey

    from screens.inspector import LABEL_KEYS

    def footer_keys() -> list[FooterKey]:
        keys = list(app.screen.query(FooterKey))
        assert keys, "the footer shows keys"
        return keys

    app = make_app(evaluated)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for where in ("main screen", "inspector"):
            keys = footer_keys()
            cut = [f"{k.key_display} {k.description}" for k in keys if k.region.right > 120 or not k.region.width]
            assert not cut, f"{where}: cut from the footer: {cut}"
            assert "f1" in {k.key_display for k in keys}, where
            if where == "main screen":
                await open_inspector(pilot, app.session.project.queries[0].query_id, app.session.tiers[-1].name)
        assert {"G", "H", "N"}.isdisjoint(k.key_display for k in footer_keys())
        await pilot.press("tab")
        await settle(pilot)
        focused = app.focused
        assert focused is not None and "ranking" in focused.classes and focused.border_subtitle == LABEL_KEYS


def test_a_gold_rank_says_none_when_the_system_named_no_document():
    """A localization that returned no DocID: its gold is "none", not ">0" (nor a made-up depth)."""
    from screens.render import rank_text

    assert rank_text(None, 10, 0).plain == "none"
    assert rank_text(None, 10, 100).plain == ">100"
    assert rank_text(3, 10, 100).plain == "#3"


async def test_ranking_titles_use_the_width_there_is(sample_project):
    """At 200 columns a ranking's titles are not cut at ~24 characters: the late word that tells a
    gold document from its hard negative ("Select" / "Plus") stays in view."""
    app = make_app(sample_project)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        s = app.session
        await open_inspector(pilot, s.project.queries[0].query_id, s.tiers[0].name)
        tables = list(app.screen.query("#ranking-tables DataTable").results(DataTable))
        cells = [t.get_row_at(i)[2].plain for t in tables for i in range(t.row_count)]
        assert cells and max(len(c) for c in cells) > 36, cells[:3]
        for t in tables:  # and the score column stays in view beside them
            assert t.virtual_size.width <= t.scrollable_content_region.width, (t.border_title, t.virtual_size, t.region)


async def test_chart_labels_are_whole_tier_names(evaluated):
    """The Diagnosis tab's chart labels each bar with its whole tier name (they were cut at 14
    characters, so mix:comparison:12000 and mix:bridge:12000 read alike)."""
    from support.tui import text_of

    app = make_app(evaluated)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        lines = text_of(app.screen.query_one("#diagnosis-body")).splitlines()
        names = [t.name for t in app.session.tiers]
        assert max(map(len, names)) > 14
        for name in names:
            assert any(line.startswith(f"{name} ") for line in lines), name


async def test_the_inspector_is_usable_at_80x24(evaluated):
    """At 80×24 the inspector still shows ranked rows in every system's table, the near-miss
    stepper's head and diff, and the way to the palette."""
    from textual.widgets._footer import FooterKey

    p, q, tier, ins = first_near_miss_case(evaluated)
    app = make_app(evaluated)
    async with app.run_test(size=SMALL) as pilot:
        await open_inspector(pilot, q.query_id, tier.name)
        screen = app.screen
        tables = list(screen.query("#ranking-tables DataTable"))
        assert len(tables) == 1  # one system's table at 80 columns; y switches system
        before = tables[0].border_title
        await pilot.press("y")
        await settle(pilot)
        assert list(screen.query("#ranking-tables DataTable"))[0].border_title != before
        tables = list(screen.query("#ranking-tables DataTable"))
        for t in tables:
            assert t.row_count and t.region.height >= 4 and t.region.bottom <= SMALL[1], (t.border_title, t.region)
        assert any(k.region.right <= SMALL[0] and k.region.width for k in screen.query(FooterKey))
        await pilot.press("n")
        await settle(pilot)
        head = screen.query_one("#miss-head")
        assert head.region.height >= 1 and head.region.bottom <= SMALL[1]
        assert screen.query_one("#diff-left-text").region.height >= 2
