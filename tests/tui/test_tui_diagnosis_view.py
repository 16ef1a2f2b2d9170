"""The Diagnosis tab takes its data as a message: a worker reads the recommendations and draws the
tab's parts into an immutable view record (DiagnosisView) that it posts; the pane shows the record
it holds, and only the UI thread keeps the recommendations on the session (the worker mutates
nothing and calls no render)."""

from __future__ import annotations

import threading

from screens.app import make_app
from screens.panes.diagnosis import DiagnosisPane, DiagnosisView
from support.recommend import failing_project
from support.tui import settle, text_of
from workbench import session as core


async def test_the_diagnosis_tab_shows_the_view_its_worker_posted(tmp_path, monkeypatch):
    kept_on: list[str] = []
    keep = core.keep_recommendations

    def recording_keep(session, system, recs):
        kept_on.append(threading.current_thread().name)
        keep(session, system, recs)

    monkeypatch.setattr(core, "keep_recommendations", recording_keep)
    root = failing_project(tmp_path / "tiny")  # its multi-source query fails access: access fixes are recommended
    app = make_app(root, auto_build=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, rounds=8)
        await pilot.press("3")
        await settle(pilot)
        pane = app.screen.query_one(DiagnosisPane)
        view = pane.view
        assert isinstance(view, DiagnosisView) and view.session is app.session and view.recommendations
        # what the pane shows is the record's parts, and the record's recommendations are the kept ones
        shown = text_of(pane.query_one("#diagnosis-body"))
        assert f"1. {view.recommendations[0].text}" in shown
        assert app.session.recommended == (view.system, list(view.recommendations))
        assert kept_on and set(kept_on) == {threading.main_thread().name}
        # the verdict system changes (y): a new record, drawn for that system
        assert len(core.verdict_systems(app.session)) > 1
        await pilot.press("y")
        await settle(pilot)
        assert pane.view is not view and pane.view.system == core.verdict_system(app.session) != view.system
        assert f"Diagnosis {pane.view.system}" in text_of(pane.query_one("#diagnosis-body"))
