"""The Nearmiss Workbench TUI. `make_app(path)` is the one factory used by the CLI and the tests.

Blocking work runs in thread workers that call the application layer (workbench.session) and
post typed messages (screens.messages); they never touch widgets. The app owns the project-wide
workers (load, build, evaluate, use); the query inspector owns its own (inspect, estimate, model
run, export). Worker outcomes of both go through one place, `track_worker`, and a failure a
user can cause (WorkbenchError) is shown in one modal with its hint.
"""

from __future__ import annotations

import gc
import os
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.reactive import reactive, var
from textual.worker import Worker, WorkerState, get_current_worker

from workbench import session as core

from screens import messages as m
from screens.commands import WorkbenchCommands
from screens.inspector import QueryScreen
from screens.held_keys import HeldKeysApp
from screens.keymap import KeymapError, load_keymap, unknown_ids
from screens.main import MainScreen
from screens.modals import ConfirmModal, ErrorModal, HelpScreen
from screens.render import TOAST_CSS
from workbench.safe_text import visible
from workbench.session import Cancelled, Progress, Session, WorkbenchError, os_error

CSS = """
/* what every screen shares; each pane and screen owns its own (DEFAULT_CSS) */
TabbedContent { height: 1fr; }
TabbedContent ContentSwitcher { height: 1fr; }
TabPane { height: 1fr; padding: 0; }
.dialog { width: 70; max-width: 95%; height: auto; max-height: 90%; border: thick $accent; background: $surface; padding: 1 2; }
.dialog.error { border: thick $error; }
.dialog.help { width: 90; }
.dialog-title { text-style: bold; margin-bottom: 1; }
.dialog-scroll { height: auto; max-height: 30; }
.dialog.text { height: 90%; }  /* a long text: the dialog fills the screen, its text scrolls, its last line in view at 24 rows */
.dialog.text .dialog-scroll { height: 1fr; max-height: 100%; }
.dialog-buttons { height: auto; margin-top: 1; }
.dialog-buttons Button { margin-right: 2; }
ModalScreen { align: center middle; }
""" + TOAST_CSS


class WorkbenchApp(HeldKeysApp):
    TITLE = "Nearmiss Workbench"
    CSS = CSS
    COMMANDS = App.COMMANDS | {WorkbenchCommands}
    BINDINGS = [
        # a tooltip says in the command palette (and on hover) what the footer's word cannot
        Binding("q", "quit", "Quit", id="app.quit", tooltip="leave the workbench"),
        Binding("f1,question_mark", "help", "Help", id="app.help", tooltip="every key, with the id a keymap file uses"),
        Binding("ctrl+b", "build", "Build indexes", id="app.build", show=False,
                tooltip="build the tiers and indexes that are missing or stale, in the background"),
        Binding("ctrl+r", "reevaluate", "Reload", id="app.reevaluate", show=False,
                tooltip="read the project again (queries, labels, answers, imports) and re-evaluate (stored runs are reused)"),
        Binding("x", "cancel", "Cancel task", id="app.cancel", show=False,
                tooltip="the index build, evaluation, model or batch run"),
    ]
    LONG_TASKS = frozenset({"build", "eval", "model", "add_query", "batch", "calibrate", "fix"})  # shown in the task bar, cancelled by x

    task_state: reactive[tuple[str, int, int]] = reactive(("", 0, 0))
    # What the screens show, as data they watch (the app never calls a screen's refresh): the session
    # (loaded, or changed wholesale by a label), and a revision per kind of change within it.
    session: var[Session | None] = var(None, always_update=True)
    verdicts: var[int] = var(0)  # access results, verdicts or the verdict system changed
    access: var[int] = var(0)  # new access results (an open inspector reads its rankings again)
    use: var[int] = var(0)  # the use table changed
    indexes: var[int] = var(0)  # a build made indexes usable, or finished
    build_note: var[str] = var("")  # what a running build has made usable so far ("" when none runs)
    listed: var[tuple[str, ...]] = var(())  # the query list's ids, in its order (the inspector's j/k)
    arrived: var[frozenset[str]] = var(frozenset())  # production queries imported while the TUI was open

    def __init__(self, project_path: Path, auto_build: bool = False, export_dir: Path | None = None,
                 queries_version: str | None = None) -> None:
        super().__init__()
        if "TEXTUAL_ANIMATIONS" not in os.environ:
            # a tab's sliding underline redraws the screen ~20 times per switch (40-50 ms of the UI
            # thread on 2 loaded cores): every key that shows a tab answers without it
            self.animation_level = "none"
        self.project_path = Path(project_path)
        self.queries_version = queries_version  # the query-set version shown (None: the original)
        self.auto_build = auto_build
        self.export_dir = export_dir
        self._busy_groups: set[str] = set()
        self._evaluate_again = False
        self._task_labels: dict[str, tuple[str, int, int]] = {}  # group -> its latest progress
        self.indexes_ready: dict[str, set[str]] = {}  # kind -> tiers usable so far, while a build runs
        self._stamp: tuple | None = None  # the project's stamp last seen (core.project_stamp; None: not loaded yet)
        self._restamp = False  # one of our own writes ended: the next poll takes the stamp as it is, no reload
        self._warmed = False  # the embedder's warm-up started (core.warm_up, once the first figures show)

    def get_default_screen(self) -> MainScreen:
        """The main screen is the app's first screen, there before any key is read: a key typed
        while the app starts (`/` and a filter, before the project has loaded) reaches it, where a
        screen pushed from on_mount would come after the first keys, which the default screen drops."""
        return MainScreen()

    def on_mount(self) -> None:
        self.apply_user_keymap()
        self.sub_title = visible(self.project_path.name, one_line=True)
        self.load_project()
        self.set_interval(FOLLOW_EVERY_S, self.follow_project)

    def loading(self) -> bool:
        return self.session is None and any(w.group == "load" and not w.is_finished for w in self.workers)

    def apply_user_keymap(self) -> None:
        try:
            self.user_keymap = load_keymap()
        except KeymapError as exc:
            self.notify(str(exc), title="Keymap ignored", severity="error", timeout=10)
            return
        known = {b.id for _, bindings in self.binding_sets() for b in bindings if b.id}
        unknown = unknown_ids(self.user_keymap, known)
        if unknown:
            self.notify(f"unknown binding id(s) {unknown}: f1 lists them", title="Keymap", severity="warning")
        self.set_keymap(self.user_keymap)

    # ------------------------------------------------------------------ helpers

    @property
    def current(self) -> Session:
        """The loaded session (workers and screens run only once it is)."""
        assert self.session is not None, "no project loaded yet"
        return self.session

    def main_screen(self) -> MainScreen | None:
        return next((s for s in self.screen_stack if isinstance(s, MainScreen)), None)

    def query_screen(self) -> QueryScreen | None:
        return next((s for s in reversed(self.screen_stack) if isinstance(s, QueryScreen)), None)

    def progress_reporter(self, label_prefix: str = "") -> Progress:
        """The progress + cancel callback for the calling worker thread: feeds the task bar, and
        raises Cancelled once the worker is cancelled (x)."""
        worker = get_current_worker()

        def progress(stage: str, done: int, total: int) -> None:
            if worker.is_cancelled:
                raise Cancelled(f"{label_prefix or stage} cancelled")
            self.post_message(m.TaskProgress(f"{label_prefix}{stage}", done, total, worker))

        return progress

    # ------------------------------------------------------------------ workers

    @work(thread=True, exclusive=True, exit_on_error=False, group="load")
    def load_project(self) -> None:
        session, stale = core.open_session(self.project_path, self.queries_version)
        self.post_message(m.ProjectLoaded(session, stale, core.project_stamp(session.project)))

    @work(thread=True, exclusive=True, exit_on_error=False, group="build")
    def build(self) -> None:
        def ready(kind: str, tiers: list[str]) -> None:
            self.post_message(m.IndexesReady(kind, tiers))

        report = self.progress_reporter("building indexes: ")

        def progress(stage: str, done: int, total: int) -> None:
            report(build_stage(stage), done, total)

        s = self.current
        tierset = core.ladder_of(s.project, progress)
        self.post_message(m.TiersReady(s, tierset))  # installed by the UI thread before any index is ready
        summary = core.build_indexes_of(s.project, list(tierset.tiers), progress, ready=ready)
        self.post_message(m.IndexesBuilt(summary))

    @work(thread=True, exclusive=True, exit_on_error=False, group="eval")
    def evaluate(self) -> None:
        s = self.current
        results = core.evaluate_all(s, self.progress_reporter("evaluating "))
        self.post_message(m.AccessReady(results))
        self.post_message(m.UseReady(core.use_table(s.project, s.tiers)))
        d = core.read_diagnosis(s)  # read here, installed by the UI thread (on_diagnosis_ready)
        system, recs = core.read_recommendations(s, d)  # each access fix's command, judge and measured effect
        self.post_message(m.DiagnosisReady(d, system, recs))

    @work(thread=True, exclusive=True, exit_on_error=False, group="warm")
    def warm_up(self) -> None:
        self.post_message(m.WarmedUp(core.warm_up(self.current)))

    @work(thread=True, exclusive=True, exit_on_error=False, group="use")
    def refresh_use(self) -> None:
        s = self.current
        self.post_message(m.UseReady(core.use_table(s.project, s.tiers)))

    @work(thread=True, exclusive=True, exit_on_error=False, group="batch")
    def run_batch(self, query_ids: list[str], task: str) -> None:
        """A task on every query of the filter, one after another (resumable: stored answers are kept)."""
        s = self.current
        model = s.models()[0][0]

        def each(qid: str, ev: core.ModelEvidence | None) -> None:  # read here, kept by the UI thread
            self.post_message(m.QueryAnswered(qid, ev, core.diagnosis_with(s, qid)))

        ran, kept, skipped = core.run_batch(s, query_ids, model, task, self.progress_reporter("batch: "), on_each=each)
        self.call_from_thread(self.refresh_use)
        self.call_from_thread(self.notify, f"{core.TASKS[task].label}: {ran} run, {kept} already stored, {skipped} cannot "
                                  "run (no gold, no tier or no ranking)", title="Batch finished", timeout=8, markup=False)

    # ------------------------------------------------------------------ one place for worker outcomes

    @on(Worker.StateChanged)
    def _worker_state(self, event: Worker.StateChanged) -> None:
        self.track_worker(event.worker, event.state)

    def track_worker(self, w: Worker, state: WorkerState) -> None:
        """Every worker's state change, the app's and the screens' alike."""
        if state == WorkerState.RUNNING and w.group in self.LONG_TASKS:
            self._busy_groups.add(w.group)
        if state in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            # what is still running, asked afresh (a worker replaced by an exclusive one reports nothing)
            self._busy_groups = {x.group for x in self.workers
                                 if x is not w and x.is_running and x.group in self.LONG_TASKS}
            if w.group in self.LONG_TASKS and not self._busy_groups:
                self.task_state = ("", 0, 0)
        if w.group in WRITERS and w.is_finished:
            self._restamp = True  # what we wrote is installed by its worker: not a change made elsewhere
        if w.group == "build" and w.is_finished:
            self.indexes_ready = {}
        if w.group == "build" and (state == WorkerState.RUNNING or w.is_finished):
            self.build_note = self.describe_build()  # the legend says what builds
        if w.group == "eval" and w.is_finished and self._evaluate_again:
            self._evaluate_again = False  # indexes became ready while that evaluation ran
            self.evaluate()
        if w.group == "load" and w.is_finished and self.session is None:
            self.replay_held_keys()  # the project did not load: what was typed still reaches the screen
        if state == WorkerState.ERROR:
            self.worker_failed(w.group, w.error)
        if state == WorkerState.CANCELLED and w.group in self.LONG_TASKS:
            self.notify(f"{w.group} cancelled", timeout=3)

    def node_closed(self, node: object) -> None:
        """A screen went away: Textual cancels its workers, and their state changes no longer
        reach us, so the task bar forgets them here."""
        self._busy_groups = {w.group for w in self.workers
                             if w.is_running and w.group in self.LONG_TASKS and w.node is not node}
        if not self._busy_groups:
            self.task_state = ("", 0, 0)

    def worker_failed(self, group: str, error: BaseException | None) -> None:
        if isinstance(error, Cancelled):
            self.notify(visible(str(error)), timeout=3, markup=False)
            return
        if isinstance(error, OSError) and not isinstance(error, WorkbenchError):
            error = os_error(error)  # read-only, full disk, permission: the path and what to do
        if isinstance(error, WorkbenchError):
            self.push_screen(ErrorModal(visible(error.title), visible(str(error)), visible(error.hint)))
            return
        what = {"load": "Opening the project", "build": "Building indexes", "eval": "Evaluating",
                "inspect": "Inspecting the query", "estimate": "Counting prompt tokens", "model": "The model run",
                "export": "Exporting", "use": "Reading use results", "label": "Saving the label",
                "add_query": "Adding the query", "diagnose": "Diagnosing",
                "batch": "The batch run", "calibrate": "Calibrating the judge",
                "fix": "Trying the fix", "recommend": "Reading the fixes' effects"}.get(group, group)
        text = f"{type(error).__name__}: {error}" if error else "unknown error"
        self.notify(visible(text[:500]), title=f"{what} failed", severity="error", timeout=10, markup=False)

    # ------------------------------------------------------------------ message handlers

    def switch_queries_version(self, name: str) -> None:
        """The picker's action: reload the project with another query-set version's queries (the
        tiers and stored rankings are shared, so only scoring is redone)."""
        if self.session is not None and self.session.project.queries_version == name:
            return
        while len(self.screen_stack) > 1:  # back to the main screen: an open query may not exist there
            self.pop_screen()
        self.queries_version = name
        self.load_project()

    def follow_project(self) -> None:
        """Each second: did another process change the project (an import, `add-query`, labels, a
        model run)? A worker stats its files and, when they moved, reads it again and says what
        changed. Not while we load or write it ourselves: our own writes are installed by their
        workers, and their stamp is taken as the new baseline once they end."""
        if self.session is None or self._stamp is None or any(
                not w.is_finished for w in self.workers if w.group in ("load", "follow") or w.group in WRITERS):
            return
        self.poll_project(self._stamp, self._restamp)
        self._restamp = False

    @work(thread=True, exclusive=True, exit_on_error=False, group="follow")
    def poll_project(self, seen: tuple, restamp: bool = False, force: bool = False) -> None:
        s = self.current
        stamp = core.project_stamp(s.project)
        if restamp or (stamp == seen and not force):
            if stamp != seen:
                self.post_message(m.ProjectFollowed(stamp, None))
            return
        # the version the session shows now (a labelling visit may have made one since the TUI opened)
        self.post_message(m.ProjectFollowed(stamp, core.reload_production(s, s.project.queries_version, seen, stamp), force))

    def follow_production(self) -> None:
        """A look now (as the poll's next tick would)."""
        self.follow_project()

    def on_project_followed(self, msg: m.ProjectFollowed) -> None:
        self._stamp = msg.stamp
        r = msg.reloaded
        if r is None:
            return
        if not r.changed and not msg.asked:
            return  # a file was rewritten the same (or only production's feedback moved): nothing to show
        core.install_reload(self.current, r)
        if r.arrived:
            self.arrived = self.arrived | frozenset(r.arrived)
        said = core.changes_said(r)
        self.notify(visible(said or "nothing changed on disk; re-evaluating"), title="Project changed elsewhere" if said else "Reloaded",
                    timeout=8, markup=False)
        self.refresh_header()
        self.mutate_reactive(WorkbenchApp.session)  # the list, the overview and the diagnosis follow
        if r.stale:
            self.notify(visible(f"{r.stale[0]}: Ctrl+B builds it"), severity="warning", timeout=8, markup=False)
        elif r.tierset is not None:
            self.request_evaluation()  # new queries, labels or answers decide verdicts again (stored runs are reused)

    def on_project_loaded(self, msg: m.ProjectLoaded) -> None:
        self.session = msg.session
        self._stamp = msg.stamp
        self.refresh_header()
        self.replay_held_keys()  # typed while it loaded: they act on the loaded project (after the list has drawn)
        if msg.stale:
            reason = "; ".join(msg.stale)
            if self.auto_build:
                self.build()
                return

            def answered(yes: bool | None) -> None:
                if yes:
                    self.build()
                else:
                    self.notify("Tiers/indexes not built: Ctrl+B builds them.", timeout=5)

            self.push_screen(ConfirmModal("Indexes or tiers need building", f"{reason}.\n\nBuild them now? It runs in the "
                                          "background; you can keep browsing.", yes="Build"), answered)
        else:
            self.evaluate()

    def on_task_progress(self, msg: m.TaskProgress) -> None:
        if msg.worker is not None and (msg.worker.is_cancelled or msg.worker.is_finished):
            return  # queued before its worker ended: the task bar must not come back
        group = msg.worker.group if msg.worker is not None else ""
        self._task_labels[group] = (msg.label, msg.done, msg.total)
        self._task_labels = {g: v for g, v in self._task_labels.items()
                             if g in self._busy_groups or g == group}  # tasks that ended drop out
        # a build and an evaluation at once: the bar is the build's, the evaluation is named beside it
        lead = "build" if "build" in self._task_labels else group
        first = self._task_labels[lead]
        others = [v[0] for g, v in self._task_labels.items() if g != lead]
        self.task_state = (" · ".join([first[0], *others]), first[1], first[2])

    @property
    def building(self) -> bool:
        return any(w.group == "build" and not w.is_finished for w in self.workers)

    def describe_build(self) -> str:
        """What the screens say while indexes build: what is usable so far, and what figures show."""
        if not self.building:
            return ""
        n = len(self.session.tiers) if self.session else 0
        sparse, dense = (len(self.indexes_ready.get(k, ())) for k in ("sparse", "dense"))
        return (f"building indexes: sparse ready on {sparse}/{n} tiers, dense on {dense}/{n}; each tier's figures "
                "come from the best retriever built there until the chosen one is ready")

    def on_tiers_ready(self, msg: m.TiersReady) -> None:
        s = msg.session
        if s is not self.session or s.tierset == msg.tierset:
            return  # another project since, or the tiers it had: nothing to show again
        s.tierset = msg.tierset
        self.mutate_reactive(WorkbenchApp.session)  # every view: the tiers exist now (or changed)

    def on_indexes_ready(self, msg: m.IndexesReady) -> None:
        """Part of a running build is usable: its systems join the figures now (BM25 in seconds,
        dense tier by tier), the rest follows as it is built."""
        self.indexes_ready.setdefault(msg.kind, set()).update(msg.tiers)
        self.indexes += 1
        self.build_note = self.describe_build()  # the legend counts the tiers ready
        self.request_evaluation()

    def on_indexes_built(self, msg: m.IndexesBuilt) -> None:
        self.notify(msg.summary, title="Indexes ready", timeout=4)
        self.indexes += 1
        self.request_evaluation()

    def request_evaluation(self) -> None:
        """Evaluate now, or right after the evaluation that is running (restarting it would throw
        its work away and flash "cancelled")."""
        if any(w.group == "eval" and not w.is_finished for w in self.workers):
            self._evaluate_again = True
        else:
            self.evaluate()

    def on_access_ready(self, msg: m.AccessReady) -> None:
        self.current.set_results(msg.results)
        self.verdicts_changed()
        self.access += 1

    def on_diagnosis_ready(self, msg: m.DiagnosisReady) -> None:
        s = self.current
        if core.install_diagnosis(s, msg.diagnosis):
            core.keep_recommendations(s, msg.system, msg.recommendations)
        self.verdicts_changed()
        if not self._warmed:  # the first figures are on screen: load what the first Why needs
            self._warmed = True
            self.warm_up()

    @work(thread=True, exit_on_error=False, group="verdicts")
    def reread_query_verdicts(self, query_id: str) -> None:
        self.post_message(m.QueryAnswered(query_id, None, core.diagnosis_with(self.current, query_id)))

    def on_query_answered(self, msg: m.QueryAnswered) -> None:
        ev = msg.evidence
        if ev is not None:
            self.current.merge_results(msg.query_id, ev.tier, {ev.system: ev})
        self.install_query_verdicts(msg.query_id, msg.diagnosis)

    def install_query_verdicts(self, query_id: str, diagnosis: core.LiveDiagnosis | None) -> None:
        """A query's verdicts read afresh after a model answer: installed, and every view follows;
        read from a diagnosis another one replaced since (two runs ending together, an evaluation):
        read again from the one shown, so neither's news is lost."""
        if diagnosis is None or core.install_diagnosis(self.current, diagnosis):
            self.verdicts_changed()
        elif diagnosis.project is self.current.project:
            self.reread_query_verdicts(query_id)

    def on_warmed_up(self, msg: m.WarmedUp) -> None:
        # torch and the model add ~450,000 objects that live as long as the app; a full collection
        # walking them took ~190 ms of the UI thread, at a moment no key chooses. Frozen, they are
        # no longer walked (still freed by reference counting).
        gc.freeze()

    def refresh_header(self) -> None:
        """The header names what every view shows: the query-set version and the verdict system."""
        s = self.session
        if s is None:
            return
        p = s.project
        system = core.verdict_system(s)
        ranking = core.figures_system(s) if system else ""
        # what changes first (it stays in view at 80 columns), the project's name last
        # the verdict system and the query-set version before the rest: both stay in view at 80 columns
        shown = f"verdicts {system} · " if system else ""
        rankings = f"{ranking} rankings · " if system and ranking != system else ""
        arrived = f"{len(self.arrived)} new from traces · " if self.arrived else ""
        self.sub_title = visible(f"{shown}queries {core.version_shown(s)} ({len(p.queries)}) · {arrived}{rankings}{p.config.name}",
                                 one_line=True)

    def verdicts_changed(self) -> None:
        """Every view of the verdicts follows: the header here, the query list, the Diagnosis tab and
        an open inspector's head through `verdicts`."""
        self.refresh_header()
        self.verdicts += 1

    def on_labels_changed(self, msg: m.LabelsChanged) -> None:
        """A labelling change (from the inspector or the add-query form): installed, shown everywhere."""
        change = msg.change
        if change is None:
            self.notify("no change: the document already has that mark", timeout=3)
            return
        core.apply_relabelled(self.current, change)
        self.refresh_header()
        self.notify(change.note, title="Saved", timeout=6, markup=False)
        self.mutate_reactive(WorkbenchApp.session)  # every view: labels change figures, verdicts and tiers
        if msg.opened:
            self.open_query(change.query_id)

    def on_use_ready(self, msg: m.UseReady) -> None:
        self.current.use = msg.use
        self.use += 1

    # ------------------------------------------------------------------ actions (also in the command palette)

    def open_query(self, query_id: str, tier: str | None = None) -> None:
        if self.session is None or self.session.tierset is None:
            self.notify("No tiers yet: build them first (Ctrl+B).", severity="warning")
            return
        self.push_screen(QueryScreen(query_id, tier))

    def binding_sets(self) -> list[tuple[str, list[Binding]]]:
        def bindings(items: list[BindingType]) -> list[Binding]:
            return [b for b in items if isinstance(b, Binding)]  # ours are all Binding (with ids)

        return [("Everywhere", bindings(self.BINDINGS)), ("Main screen", bindings(MainScreen.BINDINGS)),
                ("Query inspector", bindings(QueryScreen.BINDINGS))]

    def keys_shown(self, b: Binding) -> str:
        """The keys of a binding as a user types them ("[" rather than "left square bracket")."""
        keys = self.user_keymap.get(b.id or "") or b.key
        if keys == b.key and b.key_display:
            return b.key_display
        return ", ".join(self.get_key_display(Binding(k.strip(), "")) for k in keys.split(","))

    def action_help(self) -> None:
        """Keys as they are now (user keymap applied), each with the id a keymap file uses."""
        sections: list[tuple[str, list[tuple[str, str]]]] = []
        for title, bindings in self.binding_sets():
            rows = [(self.keys_shown(b), f"{b.description}  [dim]{b.id}[/]") for b in bindings]
            sections.append((title, rows))
        sections[1][1].append(("enter", "open the selected query"))
        verdict_words = " ".join(f"v:{w}" for w in core.FILTER_WORDS)
        sections[1][1].append(("filter", "words (in id, query, answer) · d:DOMAIN · multi · single · unlabelled · fail "
                                         "(breaks somewhere) · fail:TIER (misses gold on that tier of its own: fail:base is "
                                         f"its domain's base) · v:WORD (the verdict shown: {verdict_words}) · run:NAME / "
                                         "from:traces (imported by) · flagged (production's user flagged the answer: !); "
                                         "all must hold"))
        sections[1][1].append(("marks", "* arrived from production while open (import-traces, collect) · ! flagged by "
                                        "production's user; s sorts by that feedback"))
        sections[1][1].append(("tabs", "1 Overview · 2 Queries · 3 Diagnosis · 4 Sweeps (the latest sweep of each kind)"))
        sections[2][1].append(("tabs", "1 Rankings · 2 Near misses (the stepper and its word diff) · 3 Model"))
        sections[2][1].append(("palette", "Batch: a task on every query of the list's filter · Copy the gold DocIDs · "
                                          "Copy the suggested command · Calibrate the judge"))
        sections[0][1].append(("ctrl+p", "command palette"))
        self.push_screen(HelpScreen(sections))

    def action_build(self) -> None:
        if self.session is None:
            self.notify("The project is not loaded.", severity="warning")
            return
        self.build()

    def action_calibrate(self) -> None:
        if self.session is None:
            self.notify("The project is not loaded.", severity="warning")
            return
        self.calibrate()

    @work(thread=True, exclusive=True, exit_on_error=False, group="calibrate")
    def calibrate(self) -> None:
        s = self.current
        verdict = core.calibrate_judge(s, s.models()[0][0], self.progress_reporter())
        self.call_from_thread(self.notify, visible(verdict), title="Judge calibration", timeout=10, markup=False)
        self.post_message(m.UseReady(core.use_table(s.project, s.tiers)))

    def action_reevaluate(self) -> None:
        """ctrl+r: the project read again from disk (whatever changed elsewhere, said), then evaluated."""
        if self.session is not None and self._stamp is not None:
            self.poll_project(self._stamp, force=True)

    def action_cancel(self) -> None:
        cancelled = 0
        for w in self.workers:
            if w.group in self.LONG_TASKS and w.is_running:
                w.cancel()
                cancelled += 1
        if not cancelled:
            self.notify("nothing to cancel", timeout=2)


FOLLOW_EVERY_S = 1.0  # how often the project's files are looked at (a change elsewhere shows within about a second)
WRITERS = frozenset({"label", "add_query", "model", "batch", "calibrate", "fix", "build"})  # our own writes to the project


def build_stage(stage: str) -> str:
    """A build stage in words ("embed" → "embedding chunks (dense)")."""
    kind, _, tier = stage.partition(" ")
    words = {"ladder": "laying out the tiers", "chunk": "chunking documents (dense)",
             "embed": "embedding chunks (dense)", "bm25": f"sparse index of {tier}", "dense": f"dense index of {tier}"}
    return words.get(kind, stage)


def make_app(project_path: Path | str, **kwargs: Any) -> WorkbenchApp:
    return WorkbenchApp(Path(project_path), **kwargs)


def run_app(project_path: Path, auto_build: bool = False, queries_version: str | None = None) -> None:
    make_app(project_path, auto_build=auto_build, queries_version=queries_version).run()
