"""Issue 42: the TUI follows every change to the project made elsewhere, not only imports. A query
added by `workbench add-query` in another process appears in the open TUI's list, with a notice of
what changed; ctrl+r reads the project again on demand."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import msgspec

from textual.widgets import DataTable

from screens.app import make_app
from support.tui import settle, until
from workbench.triage.queries import write_queries
from workbench.project.load import load_project


def notices(app) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app._notifications]


async def test_a_query_added_by_the_cli_in_another_process_shows_with_a_notice(evaluated_copy):
    app = make_app(evaluated_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#query-table", DataTable)
        before = table.row_count
        doc = next(iter(load_project(evaluated_copy).documents))
        cli = await asyncio.create_subprocess_exec(
            str(Path(sys.executable).parent / "workbench"), "add-query", str(evaluated_copy), "--query",
            "Which magazine was started first, Arthur's or First for Women?", "--gold", str(doc), "--no-run",
            env={**os.environ, "NO_COLOR": "1"}, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        out, _ = await cli.communicate()
        assert cli.returncode == 0, out.decode()
        # the app's own poll (each second) sees the change; nothing here calls it
        await until(pilot, lambda: "added-1" in {str(k.value) for k in table.rows}, "the added query is listed")
        assert table.row_count == before + 1
        assert any("Project changed elsewhere" in n and "1 query added (added-1)" in n for n in notices(app)), notices(app)
        assert app.session.project.query("added-1").gold_doc_ids == [doc]


async def test_an_edit_elsewhere_is_said_and_ctrl_r_reloads_on_demand(evaluated_copy):
    app = make_app(evaluated_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+r")  # asked for: said even when nothing changed
        await until(pilot, lambda: any(n.startswith("Reloaded:") for n in notices(app)), "ctrl+r says it reloaded")
        q = app.session.project.queries[0]

        def edit_elsewhere() -> None:  # as another process rewrites queries.jsonl (the add's own writer)
            project = load_project(evaluated_copy)
            write_queries(project, [msgspec.structs.replace(x, answer="a new answer") if x.query_id == q.query_id else x
                                    for x in project.queries])

        await asyncio.to_thread(edit_elsewhere)
        await until(pilot, lambda: app.session.project.query(q.query_id).answer == "a new answer", "the edit is read")
        assert any(f"1 query edited ({q.query_id})" in n for n in notices(app)), notices(app)
