"""Keys typed while the app starts (before the project has loaded) are queued, never dropped."""

from __future__ import annotations

import threading

from textual.widgets import Input

from screens.app import make_app
from screens.main import MainScreen
from support.tui import SIZE, settle
from workbench import session as core


async def test_a_filter_typed_before_the_project_loaded_takes_effect_once_it_has(evaluated, monkeypatch):
    may_load = threading.Event()  # the load waits for the keys: they surely come first
    opened = core.open_session

    def open_when_allowed(*args, **kwargs):
        assert may_load.wait(30)
        return opened(*args, **kwargs)

    monkeypatch.setattr(core, "open_session", open_when_allowed)
    app = make_app(evaluated)
    async with app.run_test(size=SIZE) as pilot:
        # `/` then a word in one burst, as a terminal delivers keys typed while the app started
        for key in ("slash", "d", "e", "m", "o", "n"):
            app.post_message(_key(key))
        await pilot.pause()
        assert app.session is None
        may_load.set()
        await settle(pilot)
        assert app.session is not None and isinstance(app.screen, MainScreen)
        filt = app.screen.query_one("#filter", Input)
        assert filt.value == "demon" and app.focused is filt
        shown = app.screen.queries.shown
        assert shown and len(shown) < len(app.session.project.queries)  # the filter applies
        assert all("demon" in (q := app.session.project.query(qid)).query.lower() + q.answer.lower() + qid for qid in shown)


def _key(name: str):
    from textual import events

    char = {"slash": "/"}.get(name, name)
    return events.Key(name, char)
