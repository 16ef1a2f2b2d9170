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


async def test_the_evaluate_worker_posts_the_diagnosis_and_the_ui_thread_installs_it(tmp_path, monkeypatch):
    """Building, evaluating and evaluating again: every tier set, diagnosis and recommendation the
    session keeps is set on the UI thread; a worker only reads and posts (TiersReady, DiagnosisReady)."""
    from workbench.session.state import Session

    set_on: list[tuple[str, str]] = []
    plain = Session.__setattr__

    def recording(self, name, value):
        if name in ("diagnosis", "recommended", "tierset") and value is not None:
            set_on.append((name, threading.current_thread().name))
        plain(self, name, value)

    monkeypatch.setattr(Session, "__setattr__", recording)
    root = failing_project(tmp_path / "tiny")
    app = make_app(root, auto_build=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, rounds=8)
        first = app.session.diagnosis
        assert first is not None and app.session.recommended is not None
        app.request_evaluation()  # what a finished build, a tier run or ctrl+r asks for
        await settle(pilot, rounds=8)
        assert app.session.diagnosis is not first  # read afresh, installed whole
        assert {name for name, _ in set_on} == {"diagnosis", "recommended", "tierset"}  # the build's ladder too
        assert {thread for _, thread in set_on} == {threading.main_thread().name}, set_on


def test_a_diagnosis_read_before_a_label_change_is_not_installed(tmp_path):
    """read_diagnosis leaves the session as it was; one read for a project a label replaced since is
    refused (the change installed its own)."""
    import copy

    session, _ = core.open_session(failing_project(tmp_path / "tiny"))
    core.build(session)
    core.diagnose(session)
    shown = session.diagnosis
    read = core.read_diagnosis(session)
    assert read is not shown and session.diagnosis is shown
    session.project = copy.copy(session.project)  # what a label change does: another Project
    assert core.install_diagnosis(session, read) is False and session.diagnosis is shown
