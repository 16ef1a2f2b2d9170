"""The TUI follows production live: traces imported by another process while the TUI is open
(`workbench import-traces`, `workbench collect`) show as they land — a count in the header, the
new queries marked in the list and listed by from:traces — without a restart."""

from __future__ import annotations

import asyncio

from textual.widgets import DataTable, Input

from screens.app import make_app
from support.traces import write_traces
from support.tui import settle
from workbench import session as core
from workbench.project.load import load_project


async def _until(pilot, condition, rounds: int = 2400) -> None:
    """Wait for the app's one-second poll and the reload it starts (bounded; no clock asserted)."""
    for _ in range(rounds):
        if condition():
            return
        await pilot.pause(0.05)


async def test_queries_imported_while_the_tui_is_open_show_as_new(evaluated_copy, tmp_path):
    picked = load_project(evaluated_copy).queries[:2]
    path = write_traces(evaluated_copy, tmp_path / "t.jsonl", picked, text_of=lambda q: f"{q.query} (asked in production)")
    app = make_app(evaluated_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#query-table", DataTable)
        before = table.row_count
        assert not app.arrived and "new from traces" not in str(app.sub_title)
        # as another process would: the import writes the project while the TUI holds it open
        done = await asyncio.to_thread(core.import_traces, evaluated_copy, str(path), "prod", judge=False)
        added = done.imported.added_queries
        assert len(added) == 2
        await _until(pilot, lambda: bool(app.arrived))
        await settle(pilot)
        assert app.arrived == frozenset(added)
        assert "2 new from traces" in str(app.sub_title)
        assert table.row_count == before + 2
        for qid in added:
            assert str(table.get_cell(qid, table.ordered_columns[0].key)).startswith("*")
        app.screen.query_one("#filter", Input).value = "from:traces"
        await settle(pilot)
        assert sorted(str(k.value) for k in table.rows) == sorted(added)
        # a second look at the same records brings nothing new
        app.follow_production()
        await settle(pilot)
        assert app.arrived == frozenset(added)
