"""`workbench open --collect`: the TUI and the receiver in one process. Production's traces, sent
by the real SDK's exporter, show in the open TUI as they are imported, and what production's users
flagged comes first (the `flagged` filter word, the feedback sort, the ! mark)."""

from __future__ import annotations

import asyncio

from collect_helpers import FEEDBACK_KEY, Changes, send_traces
from textual.widgets import DataTable, Input

from screens.app import make_app
from support.tui import settle
from workbench import session as core
from workbench.project.load import load_project


async def _until(pilot, condition, rounds: int = 600) -> None:
    """Wait for the app's poll and the reload it starts (bounded; no clock asserted)."""
    for _ in range(rounds):
        if condition():
            return
        await pilot.pause(0.05)


async def test_collected_traces_show_in_the_open_tui_flagged_first(evaluated_copy, tmp_path, monkeypatch):
    root = evaluated_copy
    queries = load_project(root).queries[:4]
    flagged, liked = queries[2], queries[0]
    feedback = {flagged.query: "thumbs_down", liked.query: "thumbs_up"}
    changes = Changes()
    live = core.start_collect(root, "live", port=0, settle_s=0.05, feedback_key=FEEDBACK_KEY, on_change=changes)
    try:
        app = make_app(root)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            table = app.screen.query_one("#query-table", DataTable)
            filt = app.screen.query_one("#filter", Input)
            filt.value = "run:live"
            await pilot.pause()
            assert table.row_count == 0  # nothing collected yet
            await asyncio.to_thread(send_traces, monkeypatch, root, tmp_path / "t.jsonl", live.url + "/v1/traces",
                                    queries, feedback)
            await asyncio.to_thread(changes.wait, lambda s: s.traces_imported == len(queries) and s.pending_traces == 0)
            await _until(pilot, lambda: table.row_count == len(queries))
            await settle(pilot)
            assert sorted(str(k.value) for k in table.rows) == sorted(q.query_id for q in queries)
            filt.value = "flagged"
            await pilot.pause()
            assert [str(k.value) for k in table.rows] == [flagged.query_id]
            assert str(table.get_cell(flagged.query_id, table.ordered_columns[0].key)).startswith("!")
            filt.value = "run:live"
            app.screen.queries.sort = "feedback"
            await pilot.pause()
            order = [str(k.value) for k in table.rows]
            assert order[0] == flagged.query_id and order[1] == liked.query_id  # flagged, then scored, then the rest
    finally:
        live.stop()
