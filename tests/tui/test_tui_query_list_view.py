"""The query list takes its data as a message (issue 42): a worker filters and sorts every query and
reads what the filter words need from disk (production's feedback, the trace imports' sources, the
unjudged documents) into an immutable QueryListView; the pane draws the latest one it asked for
and reads nothing on the UI thread."""

from __future__ import annotations

import threading

from textual.widgets import DataTable, Input

from screens.app import make_app
from screens.panes.queries import QueryListPane, QueryListReady
from support.tui import settle, until
from workbench import session as core
from workbench.session import query_list


async def test_the_list_is_read_in_a_worker_whatever_the_key(evaluated, monkeypatch):
    calls: list[tuple[str, str]] = []

    def recording(name, fn):
        def wrapper(*args, **kwargs):
            calls.append((name, threading.current_thread().name))
            return fn(*args, **kwargs)
        return wrapper

    for name in ("production_feedback", "query_sources", "has_answer_bearing_unjudged"):  # what reads the disk
        monkeypatch.setattr(query_list, name, recording(name, getattr(query_list, name)))
    monkeypatch.setattr(core, "read_query_list", recording("read_query_list", query_list.read_query_list))
    app = make_app(evaluated)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pane = app.screen.query_one(QueryListPane)
        assert pane.shown and pane.view is not None and [r.query_id for r in pane.view.rows] == pane.shown
        await pilot.press("2", "slash", *"d:comparison")
        await settle(pilot)
        shown = pane.shown
        assert 0 < len(shown) < len(app.session.project.queries)
        assert all(app.session.project.query(q).domain == "comparison" for q in shown)
        for words in ("from:traces", "v:unjudged", "run:none", ""):
            pane.query_one("#filter", Input).value = words
            await settle(pilot)
        pane.table.focus()
        for key in ("s", "s", "y"):  # the breaks sort, production's feedback sort, the next system
            await pilot.press(key)
            await settle(pilot)
        assert pane.view.sort == "feedback" and len(pane.shown) == len(app.session.project.queries)
        names = {name for name, _ in calls}
        assert names == {"production_feedback", "query_sources", "has_answer_bearing_unjudged", "read_query_list"}
        assert {thread for _, thread in calls}.isdisjoint({threading.main_thread().name}), calls


async def test_a_view_read_for_an_older_request_is_not_drawn(evaluated):
    app = make_app(evaluated)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pane = app.screen.query_one(QueryListPane)
        rows = pane.shown
        older = core.read_query_list(app.session, pane.system, "d:comparison", "ladder", 500)
        assert [r.query_id for r in older.rows] != rows
        pane.post_message(QueryListReady(older, pane._serial - 1))  # a read a newer request overtook
        await settle(pilot)
        assert pane.view.filter_text == "" and pane.shown == rows  # not drawn: the list of the inputs is
        pane.post_message(QueryListReady(older, pane._serial))  # the latest request's answer is drawn
        await settle(pilot)
        assert pane.view is older and pane.shown == [r.query_id for r in older.rows]
        assert app.screen.query_one("#query-table", DataTable).row_count == len(older.rows)


def hold_reads(monkeypatch) -> threading.Event:
    """From now on the list's reads wait until the returned event is set (a slow machine, held)."""
    gate = threading.Event()
    real = query_list.read_query_list

    def held(*args, **kwargs):
        gate.wait(60)
        return real(*args, **kwargs)

    monkeypatch.setattr(core, "read_query_list", held)
    return gate


async def test_enter_typed_while_the_list_is_read_opens_the_row_it_was_typed_for(evaluated, monkeypatch):
    """"/ID Enter Enter" typed faster than the list is read: the second Enter waits for the filtered
    list and opens its first row, not the first row of the list still shown."""
    from screens.inspector import QueryScreen
    from screens.main import MainScreen

    app = make_app(evaluated)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pane = app.screen.query_one(QueryListPane)
        target = pane.shown[-1]
        assert target != pane.shown[0]
        gate = hold_reads(monkeypatch)
        await pilot.press("slash", *target, "enter", "enter")
        assert isinstance(app.screen, MainScreen) and pane.shown[0] != target  # the list is still being read
        gate.set()
        await settle(pilot)
        assert isinstance(app.screen, QueryScreen) and app.screen.query_id == target


async def test_keys_typed_while_the_list_is_read_start_one_read_after_it_not_one_each(evaluated, monkeypatch):
    calls: list[str] = []
    app = make_app(evaluated)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pane = app.screen.query_one(QueryListPane)
        target = pane.shown[-1]
        gate = hold_reads(monkeypatch)
        held = core.read_query_list

        def counted(s, system, filter_text, *args):
            calls.append(filter_text)
            return held(s, system, filter_text, *args)

        monkeypatch.setattr(core, "read_query_list", counted)
        await pilot.press("slash", *target)
        await until(pilot, lambda: bool(calls), "the first key's read started")
        await pilot.pause()
        assert calls == [target[:1]]  # the first key's read, held; the others wait for it
        gate.set()
        await settle(pilot)
        assert calls == [target[:1], target] and pane.shown == [target]  # then one read, of the filter as typed


async def test_a_batch_asked_while_the_list_is_read_runs_on_the_filter_just_typed(evaluated, monkeypatch):
    app = make_app(evaluated)
    batches: list[tuple[list[str], str]] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        monkeypatch.setattr(app, "run_batch", lambda ids, task: batches.append((list(ids), task)))
        ms = app.screen
        pane = ms.query_one(QueryListPane)
        target = pane.shown[-1]
        gate = hold_reads(monkeypatch)
        pane.query_one("#filter", Input).value = target
        await pilot.pause()
        ms.action_batch("oracle")  # the palette's "Batch: …" entry
        assert batches == []  # not over the list still shown
        gate.set()
        await settle(pilot)
        assert batches == [([target], "oracle")]


def _key(name: str):
    from textual import events

    return events.Key(name, {"slash": "/", "enter": "\r", "minus": "-"}.get(name, name if len(name) == 1 else None))


async def test_a_filter_and_two_enters_typed_in_one_burst_open_the_query_it_names(sample_project):
    """`/hr-07 Enter Enter` as a terminal delivers it pasted or typed fast: "/" moves the focus before
    the next key is read (a priority binding), the first Enter ends the filter behind the keys typed
    before it, the second opens the first row of the list the filter keeps; a "/" typed in the filter
    is a character of it."""
    from screens.inspector import QueryScreen

    app = make_app(sample_project)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pane = app.screen.query_one(QueryListPane)
        assert pane.shown[0] != "hr-07"
        for name in ("slash", "h", "r", "minus", "0", "7", "enter", "enter"):  # no turn of the loop between them
            app.post_message(_key(name))
        await settle(pilot)
        assert isinstance(app.screen, QueryScreen) and app.screen.query_id == "hr-07"
        await pilot.press("escape")
        await settle(pilot)
        for name in ("slash", "a", "slash", "b"):
            app.post_message(_key(name))
        await settle(pilot)
        assert pane.query_one("#filter", Input).value == "a/b" and app.focused is pane.query_one("#filter", Input)
