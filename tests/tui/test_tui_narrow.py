"""Issue 19's leftovers on the TUI side: the footer fits 80 columns (f1 in view, nothing drawn past
the palette key), the compact header keeps "(open)" in view, and the ranking tables follow a tier
switched on another tab (they are drawn when the Rankings tab shows, not into the hidden pane)."""

from __future__ import annotations

import io

from textual.widgets import DataTable
from textual.widgets._footer import FooterKey

from screens.app import make_app
from screens.inspector import QueryScreen
from support.tui import open_inspector, settle


def screen_lines(app) -> list[str]:
    """The screen as a terminal shows it, one string per row."""
    from rich.console import Console

    console = Console(width=app.size.width, height=app.size.height, file=io.StringIO(), record=True,
                      force_terminal=True, color_system=None, legacy_windows=False)
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text().splitlines()


def footer_problems(app, width: int) -> list[str]:
    keys = list(app.screen.query(FooterKey))
    palette = [k for k in keys if k.has_class("-command-palette")]
    assert len(palette) == 1, "the palette key is shown"
    problems = [f"{k.key_display} {k.description} at {k.region}" for k in keys
                if k not in palette and not (k.region.width and k.region.right <= palette[0].region.x)]
    if palette[0].region.right > width:
        problems.append(f"palette key at {palette[0].region}")
    if "f1" not in {k.key_display for k in keys}:
        problems.append("f1 not shown")
    last = screen_lines(app)[-1].rstrip()
    if not last.endswith("^p palette"):
        problems.append(f"the footer's row ends {last[-16:]!r}")
    return problems


async def test_the_footer_fits_80_and_120_columns_with_f1_and_nothing_past_the_palette(evaluated):
    for size in ((80, 24), (120, 40)):
        app = make_app(evaluated)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            assert not footer_problems(app, size[0]), ("main screen", size, footer_problems(app, size[0]))
            await open_inspector(pilot, app.session.project.queries[0].query_id, app.session.tiers[-1].name)
            assert isinstance(app.screen, QueryScreen)
            assert not footer_problems(app, size[0]), ("inspector", size, footer_problems(app, size[0]))
            if size == (80, 24):  # widening the terminal brings the keys that did not fit back
                shown = len(app.screen.query(FooterKey))
                await pilot.resize_terminal(120, 40)
                await settle(pilot)
                assert len(app.screen.query(FooterKey)) > shown
                assert not footer_problems(app, 120)


async def test_the_compact_header_keeps_the_open_visit_in_view(evaluated_copy):
    app = make_app(evaluated_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        q = next(q for q in app.session.project.queries if q.is_labelled and q.hard_negative_ids)
        await open_inspector(pilot, q.query_id, app.session.tiers_for(q.query_id)[-1].name)
        qs = app.screen
        table = qs.query("#ranking-tables DataTable").first(DataTable)
        table.focus()
        await pilot.pause()
        await pilot.press("N")  # the highlighted document marked not relevant: the visit's version opens
        await settle(pilot)
        version = app.session.project.queries_version
        assert version != "original" and "(open)" in app.sub_title
        head = screen_lines(app)[0]
        assert f"{version} (open)" in head, head
        await pilot.resize_terminal(160, 40)  # room for both: the app's title comes back, "(open)" stays
        await settle(pilot)
        head = screen_lines(app)[0]
        assert "Nearmiss Workbench" in head and f"{version} (open)" in head, head


def shown_rows(qs: QueryScreen) -> list[list[str]]:
    tables = [t for t in qs.query("#ranking-tables DataTable").results(DataTable) if t.display]
    return [[str(t.get_row_at(i)[1]) for i in range(t.row_count)] for t in tables]


async def test_ranking_tables_follow_a_tier_switched_on_another_tab(sample_project):
    app = make_app(sample_project)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_inspector(pilot, "finance-05", "full")
        qs = app.screen
        assert isinstance(qs, QueryScreen)
        drawn = list(qs.query("#ranking-tables DataTable").results(DataTable))
        full_rows = shown_rows(qs)
        # a look at the next tier's near misses and back: full's tables are still the ones drawn
        for key in ("2", "right_square_bracket", "left_square_bracket", "1"):
            await pilot.press(key)
            await settle(pilot)
        assert qs.tier == "full" and list(qs.query("#ranking-tables DataTable").results(DataTable)) == drawn
        assert shown_rows(qs) == full_rows
        await pilot.press("3")
        await pilot.press("right_square_bracket")  # full is the last tier: the next is the first
        await settle(pilot)
        assert qs.tier != "full" and qs.inspection is not None and qs.inspection.tier == qs.tier
        # the labelling keys act on the row a fresh table of this tier starts on, before it is drawn
        first = qs.inspection.systems[0]
        assert qs.highlighted_doc() == first.rows[0].doc_id
        await pilot.press("1")
        await settle(pilot)
        rows = shown_rows(qs)
        assert rows[0][: len(first.rows)] == [str(r.doc_id) for r in first.rows] and rows != full_rows


async def test_the_overview_keeps_every_figure_whole_at_80_and_120_columns(sample_project):
    """The tiers table cut "15,556" tokens to "15,5…" at 80 columns: now it drops the domains and
    joins the two index columns there, and every figure of every tier reads whole at both sizes."""
    from screens.panes.overview import OverviewPane
    from support.tui import text_of

    app = make_app(sample_project)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        for width in (80, 120):
            await pilot.resize_terminal(width, 40)
            await settle(pilot)
            body = text_of(app.screen.query_one(OverviewPane).query_one("#overview-body"))
            rows = {line.split("│")[1].strip(): line for line in body.splitlines() if line.count("│") > 3}
            for t in app.session.tiers:
                cells = [c.strip() for c in rows[t.name].split("│")]
                assert f"{t.tokens:,}" in cells and f"{len(t.doc_ids):,}" in cells and str(len(t.query_ids)) in cells, (width, t.name)
                assert "ok" in cells and "…" not in rows[t.name], (width, rows[t.name])  # the indexes' states, whole
            assert ("domains" in body) == (width >= 100)


async def test_the_overview_of_a_project_without_tiers_says_so(tmp_path):
    from screens.panes.overview import OverviewPane
    from support.llm_project import make_tiny_project
    from support.tui import text_of

    from screens.modals import ConfirmModal

    app = make_app(make_tiny_project(tmp_path / "tiny"))  # not built: no tiers, no indexes
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ConfirmModal)  # "build now?"
        await pilot.press("escape")  # not now
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        pane = app.screen.query_one(OverviewPane)
        body = text_of(pane.query_one("#overview-body"))
        assert pane.view is not None and not pane.view.tiers_built
        assert "no tiers yet" in body and f"{pane.view.documents:,} documents" in body and "Models" in body
