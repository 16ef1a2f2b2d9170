"""The TUI shows the project's K (never a literal one) and its palette offers every tab."""

from __future__ import annotations

import re

import msgspec
from textual.widgets import DataTable, TabbedContent, TabPane

from screens.app import make_app
from screens.commands import palette_entries
from screens.main import MainScreen
from support.tui import SIZE, settle, text_of
from workbench.project.files import load_config, write_config

K = 3  # not the default: a literal K anywhere in the TUI shows


async def test_a_k3_project_shows_and_computes_k3_in_the_list_and_the_diagnosis_tab(evaluated_copy):
    config = load_config(evaluated_copy)
    assert config.retrievers.k != K
    write_config(evaluated_copy, msgspec.structs.replace(config, retrievers=msgspec.structs.replace(config.retrievers, k=K)))
    app = make_app(evaluated_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        s = app.session
        assert s.k == K and s.results
        assert all(r.summary.k == K for r in s.results)  # computed at K, not only labelled so
        legend = text_of(app.screen.query_one("#query-legend"))
        assert f"all gold in top {K} " in legend and f"top {config.retrievers.k}" not in legend
        await pilot.press("3")
        diagnosis = text_of(app.screen.query_one("#diagnosis-body"))
        assert f"Access (K={K}) and use per tier" in diagnosis
        assert f"SR@{K}" in diagnosis and f"FR@{K}" in diagnosis
        # the default K nowhere (a rerank's depth, @100, is no K)
        assert not re.search(rf"K={config.retrievers.k}\b|[SF]R@{config.retrievers.k}\b", diagnosis)


async def test_the_palette_offers_every_tab_of_the_main_screen(evaluated):
    app = make_app(evaluated)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        ms = app.screen
        assert isinstance(ms, MainScreen)
        tabbed = ms.query_one("#tabs", TabbedContent)
        tabs = {str(p.id): tabbed.get_tab(p).label.plain for p in tabbed.query(TabPane)}  # from the widgets, not a list
        assert "sweeps" in tabs and len(tabs) >= 4
        # each tab's key, from the bindings (its title is the tab's label)
        offered = {e.title.split(":")[0]: e.callback for e in palette_entries(app, ms) if e.binding_ids}
        for tab_id, title in tabs.items():
            assert title in offered, f"the palette leaves out the {title} tab"
            app.call_later(offered[title])
            await settle(pilot)
            assert tabbed.active == tab_id
        app.call_later(offered["Queries"])
        await settle(pilot)
        assert app.focused is ms.query_one("#query-table", DataTable)
