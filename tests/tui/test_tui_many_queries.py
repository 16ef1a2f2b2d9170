"""A live collection grows the project to 100,000 production queries: the list draws at most
LIST_CAP rows of what its filter and sort choose and says so; the filter still runs over every query."""

from __future__ import annotations

from textual.widgets import DataTable, Input, Static

from screens.app import make_app
from screens.panes import queries as pane
from support.tui import settle


async def test_the_list_draws_at_most_its_cap_and_says_so_and_the_filter_reaches_every_query(evaluated, monkeypatch):
    monkeypatch.setattr(pane, "LIST_CAP", 5)
    app = make_app(evaluated)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        queries = app.session.project.queries
        assert len(queries) > 5
        table = app.screen.query_one("#query-table", DataTable)
        legend = str(app.screen.query_one("#query-legend", Static).render())
        assert table.row_count == 5 and f"{len(queries)}/{len(queries)} queries (the first 5 listed: / narrows)" in legend
        last = queries[-1]  # past the cap: found by the filter
        app.screen.query_one("#filter", Input).value = last.query_id
        await settle(pilot)
        assert [str(k.value) for k in table.rows] == [last.query_id]
        assert "listed" not in str(app.screen.query_one("#query-legend", Static).render())
