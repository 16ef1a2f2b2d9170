"""Production triage in the TUI (Textual pilot): a query added from the command line without gold is
listed, opened, labelled key by key (one query-set version per inspector visit), undone inside the
visit, given an answer; a later visit makes the next version;
and a query added from the add-query form opens in the inspector."""

from __future__ import annotations

import shutil

from click.testing import CliRunner
from textual.widgets import DataTable, Input

from screens.app import make_app
from screens.inspector import QueryScreen
from screens.triage_forms import AddQueryModal, AnswerModal
from support.tui import text_of
from support.tui import settle
from workbench.cli import main
from workbench.project.load import load_project
from workbench.project.versions import list_versions, read_labels

SIZE = (160, 45)


def row_of(table: DataTable, doc_id: int) -> int:
    keys = [k.value for k in table.rows]
    return next(i for i, k in enumerate(keys) if k.rsplit(":", 1)[1] == str(doc_id))


async def move_to(pilot, table: DataTable, doc_id: int) -> None:
    table.focus()
    await pilot.pause()
    table.move_cursor(row=0)
    await pilot.press(*["down"] * row_of(table, doc_id))


async def test_label_an_unlabelled_query_in_the_inspector(evaluated, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_USER", "pilot")
    root = tmp_path / "proj"
    shutil.copytree(evaluated, root)
    source = load_project(root).queries[0]
    text = source.query.replace("?", " (from the log)?")
    result = CliRunner().invoke(main, ["add-query", str(root), "--query", text, "--id", "log-1", "--no-run"])
    assert result.exit_code == 0, result.output
    gold = source.gold_doc_ids

    app = make_app(root, auto_build=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=8)
        await pilot.press("slash", *"unlabelled", "enter")
        table = app.screen.query_one("#query-table", DataTable)
        assert [k.value for k in table.rows] == ["log-1"]
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QueryScreen) and screen.query_id == "log-1"
        assert "unlabelled" in text_of(screen.query_one("#q-head"))
        bm25 = screen.query("#ranking-tables DataTable").first(DataTable)
        assert bm25.row_count >= 10  # listed with its rankings although it has no gold

        for doc in gold:
            await move_to(pilot, screen.query("#ranking-tables DataTable").first(DataTable), doc)
            await pilot.press("G")
            await settle(pilot)
            assert app.session.project.queries_version == "labels-1"  # the visit's one version, amended
            assert "queries labels-1 (open)" in app.sub_title
        head = text_of(screen.query_one("#q-head"))
        assert f"gold in top 10 at {screen.tier}: bm25 2/2" in head  # figures recomputed for this query at once
        verdict = app.session.diagnosis.at("log-1", screen.tier) if app.session.diagnosis else None
        assert verdict is not None and f"verdict {verdict.verdict}" in head  # and its verdict, under the new labels
        assert [v.name for v in list_versions(root)] == ["original", "labels-1"]
        records = read_labels(root, "labels-1")
        assert [(r.action, r.doc_id, r.by, r.method) for r in records] == [
            ("add_gold", d, "user:pilot", "tui") for d in gold]
        assert all(r.created for r in records)

        bm25 = screen.query("#ranking-tables DataTable").first(DataTable)
        other = next(int(k.value.rsplit(":", 1)[1]) for k in bm25.rows if int(k.value.rsplit(":", 1)[1]) not in gold)
        await move_to(pilot, bm25, other)
        await pilot.press("H")
        await settle(pilot)
        assert app.session.project.query("log-1").hard_negative_ids == [other]
        await pilot.press("u")
        await settle(pilot)
        assert app.session.project.query("log-1").hard_negative_ids == []
        assert app.session.project.query("log-1").gold_doc_ids == gold
        assert app.session.project.queries_version == "labels-1"  # undone inside the visit: no new version
        assert len(read_labels(root, "labels-1")) == len(gold)

        await pilot.press("A")
        await pilot.pause()
        assert isinstance(app.screen, AnswerModal)
        await pilot.press(*source.answer, "enter")
        await settle(pilot, rounds=6)
        assert load_project(root).query("log-1").answer == source.answer  # queries.jsonl, logged
        assert app.session.project.query("log-1").answer == source.answer
        assert app.session.project.query("log-1").gold_doc_ids == gold  # the labels survive the edit
        assert [v.name for v in list_versions(root)] == ["original", "labels-1"]  # the answer joined the visit's version
        records = read_labels(root, "labels-1")
        assert [r.label for r in records] == ["answer", *["gold"] * len(gold)]

        await pilot.press("escape")  # leaving closes the visit: the next one makes the next version
        await settle(pilot)
        assert "queries labels-1 (" in app.sub_title and "(open)" not in app.sub_title
        app.open_query("log-1")  # labelled now: the "unlabelled" filter no longer lists it
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QueryScreen)
        await move_to(pilot, screen.query("#ranking-tables DataTable").first(DataTable), gold[0])
        await pilot.press("N")
        await settle(pilot)
        assert [v.name for v in list_versions(root)] == ["original", "labels-1", "labels-2"]
        assert app.session.project.queries_version == "labels-2" and "queries labels-2 (open)" in app.sub_title
        assert read_labels(root, "labels-1") == records  # the closed version is never changed


async def test_add_query_form_adds_runs_and_opens_it(evaluated, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_USER", "pilot")
    root = tmp_path / "proj"
    shutil.copytree(evaluated, root)
    app = make_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=6)
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, AddQueryModal)
        await pilot.press("enter")  # an empty query text is refused, the form stays
        await pilot.pause()
        assert isinstance(app.screen, AddQueryModal)
        app.screen.query_one("#new-query", Input).value = "Which magazine was started first?"
        app.screen.query_one("#new-query", Input).focus()
        await pilot.press("enter", "enter", "enter", "enter")  # answer, gold IDs, domain: all optional
        await settle(pilot, rounds=8)
        screen = app.screen
        assert isinstance(screen, QueryScreen) and screen.query_id == "added-1"
        assert screen.query("#ranking-tables DataTable").first(DataTable).row_count >= 10
        assert load_project(root).query("added-1").gold_doc_ids == []
