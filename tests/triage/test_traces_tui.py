"""import-traces in the TUI (through the session hooks): the query list's `run:NAME` /
`from:traces` filter and production's exact prompt beside its answer in the inspector."""

from __future__ import annotations

from textual.widgets import DataTable, Input

from screens.app import make_app
from support.traces import write_traces
from support.tui import settle
from workbench import session as core
from workbench.project.load import load_project
from click.testing import CliRunner

from workbench.cli import main


async def test_the_filter_shows_the_traced_queries_and_the_inspector_the_prompt(evaluated_copy, tmp_path):
    project = load_project(evaluated_copy)
    traced = project.queries[3:6]
    path = write_traces(evaluated_copy, tmp_path / "t.jsonl", traced)
    result = CliRunner().invoke(main, ["import-traces", str(evaluated_copy), str(path), "--name", "prod", "--no-judge"])
    assert result.exit_code == 0, result.output
    app = make_app(evaluated_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#query-table", DataTable)
        for words in ("run:prod", "from:traces", "RUN:PROD"):
            app.screen.query_one("#filter", Input).value = words
            await pilot.pause()
            assert [k.value for k in table.rows] == [q.query_id for q in traced], words
        app.screen.query_one("#filter", Input).value = "run:nothing"
        await pilot.pause()
        assert table.row_count == 0
    s, _ = core.open_session(evaluated_copy)
    q = traced[0]
    ev = core.known_results(s, s.tier("full"), q.query_id)["run:prod:answers"]
    assert "prompt as sent" in ev.note and "production trace " in ev.note
    assert f"Question: {q.query}" in ev.prompt and f"Question: {q.query}" not in ev.note  # d shows it, not the panel
