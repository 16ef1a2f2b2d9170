"""A model run's verdicts, as the TUI keeps them (issue 42): the worker that ran the model reads the
query's new verdicts into a new diagnosis and posts it; only the UI thread installs it (and keeps the
answer), so no screen ever sees a diagnosis half updated. A diagnosis derived from one another
replaced since is refused and read again, so two runs ending together both count."""

from __future__ import annotations

import shutil
import threading

from textual.widgets import DataTable

from screens.app import make_app
from screens.inspector import QueryScreen
from screens.main import MainScreen
from support.llm_project import fault_server  # noqa: F401  (fixture)
from support.recommend import failing_project
from support.tui import open_inspector, settle, until
from workbench import session as core
from workbench.diagnosis.live import LiveDiagnosis
from workbench.project.load import load_project
from workbench.session.state import Session

QUERY = "hr-07"  # two-hop: hybrid loses its gold on every tier of its domain's ladder (ACCESS? until an oracle answer)
VERDICT_COLUMN = 3  # screens/panes/queries.py: query, dom, S/M, verdict, …


def _verdicts(d: LiveDiagnosis) -> dict:
    return {(v.query_id, v.tier, v.system): (v.verdict, v.stage) for v in d.qv.verdicts}


def _record_threads(monkeypatch) -> list[tuple[str, bool, str]]:
    """(what, whether it touched the installed diagnosis or the session, thread) of every write."""
    seen: list[tuple[str, bool, str]] = []
    plain_set, plain_update, plain_merge = Session.__setattr__, LiveDiagnosis.update_query, Session.merge_results
    installed: list[LiveDiagnosis] = []

    def setting(self, name, value):
        if name == "diagnosis" and value is not None:
            installed.append(value)
            seen.append(("install", True, threading.current_thread().name))
        plain_set(self, name, value)

    def updating(self, query_id):
        seen.append(("update_query", any(self is d for d in installed), threading.current_thread().name))
        plain_update(self, query_id)

    def merging(self, *args):
        seen.append(("merge_results", True, threading.current_thread().name))
        plain_merge(self, *args)

    monkeypatch.setattr(Session, "__setattr__", setting)
    monkeypatch.setattr(LiveDiagnosis, "update_query", updating)
    monkeypatch.setattr(Session, "merge_results", merging)
    return seen


async def test_an_oracle_run_in_the_inspector_is_read_in_its_worker_and_installed_by_the_ui_thread(
        sample_project, tmp_path, fault_server, monkeypatch):  # noqa: F811
    root = tmp_path / "sample"
    shutil.copytree(sample_project, root)
    answer = load_project(root).query(QUERY).answer
    # production's chat model stands in as a scripted endpoint: it answers with the gold, the judge agrees
    fault_server.responder = lambda m: "Score: 5" if "Gold answer:" in m[-1]["content"] else answer
    toml = root / "workbench.toml"
    toml.write_text(toml.read_text() + f'\n[models.local]\nmodel = "fault"\nbase_url = "{fault_server.base_url}"\n'
                    "context_window = 1000000\nmax_retries = 1\ntimeout_s = 30\n")
    seen = _record_threads(monkeypatch)
    app = make_app(root)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, rounds=6)
        s = app.session
        lost = [t.name for t in s.tiers_for(QUERY) if (v := s.diagnosis.at(QUERY, t.name)) is not None and v.verdict == "ACCESS?"]
        assert lost, "the fixture's query waits for an oracle answer"
        shown = s.diagnosis
        await open_inspector(pilot, QUERY, lost[0])
        assert isinstance(app.screen, QueryScreen)
        await pilot.press("o")
        await until(pilot, lambda: s.diagnosis is not shown, "the run's verdicts installed")
        await settle(pilot)
        assert s.diagnosis.at(QUERY, lost[0]).verdict == "ACCESS"  # the oracle answered right: the access failure is confirmed
        assert any(ev.answer == answer for ev in s.model_results[(QUERY, lost[0])].values())  # the answer kept
        # what was installed is what a reading of every stored result gives, for every query
        assert _verdicts(s.diagnosis) == _verdicts(core.read_diagnosis(s))
        main = threading.main_thread().name
        assert {w for w, _, _ in seen} >= {"install", "update_query", "merge_results"}
        assert [x for x in seen if x[1] and x[2] != main] == [], "the installed state is written off the UI thread"
        assert any(w == "update_query" and not touched and t != main for w, touched, t in seen)  # read in the worker
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        table = app.screen.query_one("#query-table", DataTable)
        row = app.screen.queries.shown.index(QUERY)
        assert str(table.get_cell_at((row, VERDICT_COLUMN))).strip() == "ACCESS"  # the list follows


def test_a_diagnosis_derived_from_a_replaced_one_is_refused_and_the_shown_one_is_untouched(tmp_path):
    session, _ = core.open_session(failing_project(tmp_path / "tiny"))
    core.build(session)
    core.diagnose(session)
    shown = session.diagnosis
    qv = shown.qv
    first, second = core.diagnosis_with(session, "q1"), core.diagnosis_with(session, "q2")
    assert first is not shown and shown.qv is qv  # derived into a new object: the shown one is as it was
    assert core.install_diagnosis(session, first) is True and session.diagnosis is first and first.base is None
    # derived from the one `first` replaced: installing it would drop first's news
    assert core.install_diagnosis(session, second) is False and session.diagnosis is first
    again = core.diagnosis_with(session, "q2")
    assert core.install_diagnosis(session, again) is True and session.diagnosis is again


async def test_a_batch_keeps_its_answers_and_verdicts_on_the_ui_thread(tmp_path, fault_server, monkeypatch):  # noqa: F811
    root = failing_project(tmp_path / "tiny")
    fault_server.responder = lambda m: "Score: 1" if "Gold answer:" in m[-1]["content"] else "I cannot tell"
    toml = root / "workbench.toml"
    toml.write_text(toml.read_text() + f'\n[models.local]\nmodel = "fault"\nbase_url = "{fault_server.base_url}"\n'
                    "context_window = 1000000\nmax_retries = 1\ntimeout_s = 30\n")
    seen = _record_threads(monkeypatch)
    app = make_app(root, auto_build=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, rounds=8)
        s = app.session
        ms = app.screen
        assert isinstance(ms, MainScreen) and s.diagnosis is not None
        ids = ms.queries.shown
        ms.action_batch("oracle")
        await until(pilot, lambda: not any(w.group == "batch" for w in app.workers if w.is_running) and bool(s.model_results),
                    "the batch ends")
        await settle(pilot, rounds=6)
        answered = {qid for qid, _ in s.model_results}
        assert answered and answered <= set(ids)
        assert _verdicts(s.diagnosis) == _verdicts(core.read_diagnosis(s))
        main = threading.main_thread().name
        assert [x for x in seen if x[1] and x[2] != main] == []
        assert sum(w == "merge_results" for w, _, _ in seen) >= len(answered)
