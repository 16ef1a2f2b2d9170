"""Under the inspector the query list draws no rows (a label there changes every verdict, and
drawing the whole list would hold up the inspector's keys): its ids still follow at once (the
inspector's j/k), and the rows are drawn as the list shows again."""

from __future__ import annotations

from textual.widgets import Input

from screens.app import make_app
from screens.inspector import QueryScreen
from screens.main import MainScreen
from screens.panes.queries import NEW_MARK
from support.tui import SIZE, settle


def _row_ids(ms: MainScreen) -> list[str]:
    return [str(k.value) for k in ms.queries.table.rows]


def _cell(ms: MainScreen, qid: str) -> str:
    return ms.queries.table.get_row(qid)[0].plain


async def test_the_list_follows_changes_made_under_the_inspector_once_it_shows(evaluated):
    app = make_app(evaluated)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        ms = app.main_screen()
        assert ms is not None and app.screen is ms
        first = _row_ids(ms)[0]
        assert NEW_MARK not in _cell(ms, first)
        app.open_query(first)
        await settle(pilot)
        assert isinstance(app.screen, QueryScreen)
        shown = _row_ids(ms)
        assert len(shown) > 1
        # two of the list's inputs change while the inspector covers it: a mark, and the filter
        app.arrived = frozenset({first})
        ms.query_one("#filter", Input).value = first
        await settle(pilot)
        assert NEW_MARK not in _cell(ms, first) and _row_ids(ms) == shown  # not drawn while covered
        assert app.listed == (first,)  # the ids (j/k) follow at once
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is ms
        assert NEW_MARK in _cell(ms, first)  # drawn as it shows
        assert _row_ids(ms) == [first]


async def test_the_diagnosis_tab_waits_under_the_inspector_and_follows_once_it_shows(evaluated):
    """A model answer under the inspector changes the verdicts: the Diagnosis tab is not made again
    while covered (its worker would take the interpreter from the inspector's keys), and is as the
    main screen shows again."""
    from screens.panes.diagnosis import DiagnosisPane

    app = make_app(evaluated)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        ms = app.main_screen()
        pane = ms.query_one(DiagnosisPane)
        before = pane.view
        assert before is not None
        app.open_query(_row_ids(ms)[0])
        await settle(pilot)
        assert isinstance(app.screen, QueryScreen)
        app.verdicts_changed()  # what an installed model answer does
        await settle(pilot)
        assert pane.view is before and not any(w.group == "recommend" for w in app.workers if not w.is_finished)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is ms and pane.view is not before  # made again as it shows
