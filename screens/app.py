"""The Nearmiss Workbench TUI. `make_app(path)` is the one factory used by the CLI and the tests.

All blocking work (project loading, index building, evaluation, inspection, model calls, export)
runs in thread workers owned by the app; they post typed messages (screens.messages) and never
touch widgets. Worker failures are handled in one place (`_worker_state`).
"""

from __future__ import annotations

from pathlib import Path

from textual import on, work
from textual.app import App
from textual.binding import Binding
from textual.reactive import reactive
from textual.worker import Worker, WorkerState, get_current_worker

from screens import messages as m
from screens.commands import WorkbenchCommands
from screens.inspector import QueryScreen
from screens.keymap import KeymapError, load_keymap, unknown_ids
from screens.main import MainScreen
from screens.modals import ConfirmModal, ErrorModal, HelpScreen
from screens.session import Cancelled, Session

CSS = """
TabbedContent { height: 1fr; }
TabbedContent ContentSwitcher { height: 1fr; }
TabPane { height: 1fr; padding: 0; }
TaskBar { height: 1; dock: bottom; display: none; }
TaskBar #task-label { width: 1fr; }
TaskBar #task-progress { width: 40; }
#query-legend { height: auto; color: $text-muted; }
#filter { margin: 0; }
#q-head { height: auto; padding: 0 1; background: $boost; }
#ranking-tables { height: 1fr; }
#ranking-tables DataTable.ranking { width: 1fr; height: 1fr; border: round $primary-darken-2; }
#ranking-tables DataTable.ranking:focus { border: round $accent; }
#gold-ranks { height: auto; max-height: 8; padding: 0 1; }
#miss-head { height: auto; padding: 0 1; }
#diff-panes { height: 1fr; }
#diff-left, #diff-right { width: 1fr; border: round $primary-darken-2; padding: 0 1; }
#model-head, #model-results { height: auto; padding: 0 1; }
.dialog { width: 70; max-width: 95%; height: auto; max-height: 90%; border: thick $accent; background: $surface; padding: 1 2; }
.dialog.error { border: thick $error; }
.dialog.help { width: 90; }
.dialog-title { text-style: bold; margin-bottom: 1; }
.dialog-scroll { height: auto; max-height: 30; }
.dialog-buttons { height: auto; margin-top: 1; }
.dialog-buttons Button { margin-right: 2; }
ModalScreen { align: center middle; }
"""


class WorkbenchApp(App):
    TITLE = "Nearmiss Workbench"
    CSS = CSS
    COMMANDS = App.COMMANDS | {WorkbenchCommands}
    BINDINGS = [
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("f1,question_mark", "help", "Help", id="app.help"),
        Binding("ctrl+b", "build", "Build indexes", id="app.build", show=False),
        Binding("ctrl+r", "reevaluate", "Re-evaluate", id="app.reevaluate", show=False),
        Binding("x", "cancel", "Cancel task", id="app.cancel", show=False),
    ]

    task_state: reactive[tuple[str, int, int]] = reactive(("", 0, 0))

    def __init__(self, project_path: Path, auto_build: bool = False, export_dir: Path | None = None) -> None:
        super().__init__()
        self.project_path = Path(project_path)
        self.session: Session | None = None
        self.auto_build = auto_build
        self.export_dir = export_dir
        self._busy_groups: set[str] = set()
        self.user_keymap: dict[str, str] = {}

    def on_mount(self) -> None:
        self.apply_user_keymap()
        self.push_screen(MainScreen())
        self.sub_title = self.project_path.name
        self.load_project()

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

    def main_screen(self) -> MainScreen | None:
        return next((s for s in self.screen_stack if isinstance(s, MainScreen)), None)

    def query_screen(self) -> QueryScreen | None:
        return next((s for s in reversed(self.screen_stack) if isinstance(s, QueryScreen)), None)

    def _progress(self, label_prefix: str = ""):
        worker = get_current_worker()

        def progress(stage: str, done: int, total: int) -> None:
            if worker.is_cancelled:
                raise Cancelled(f"{label_prefix or stage} cancelled")
            self.post_message(m.TaskProgress(f"{label_prefix}{stage}", done, total))

        return progress

    # ------------------------------------------------------------------ workers

    @work(thread=True, exclusive=True, exit_on_error=False, group="load")
    def load_project(self) -> None:
        from screens.session import open_session

        session, stale = open_session(self.project_path)
        self.post_message(m.ProjectLoaded(session, stale))

    @work(thread=True, exclusive=True, exit_on_error=False, group="build")
    def build(self) -> None:
        from screens.session import build_all

        summary = build_all(self.session, self._progress())
        self.post_message(m.IndexesBuilt(summary))

    @work(thread=True, exclusive=True, exit_on_error=False, group="eval")
    def evaluate(self) -> None:
        from screens.session import evaluate_all, use_table

        results = evaluate_all(self.session, self._progress("evaluating "))
        self.post_message(m.AccessReady(results))
        self.post_message(m.UseReady(use_table(self.session.project, self.session.tiers)))

    @work(thread=True, exclusive=True, exit_on_error=False, group="use")
    def refresh_use(self) -> None:
        from screens.session import use_table

        self.post_message(m.UseReady(use_table(self.session.project, self.session.tiers)))

    @work(thread=True, exclusive=True, exit_on_error=False, group="inspect")
    def inspect(self, query_id: str, tier_name: str) -> None:
        from screens.session import known_results
        from workbench.inspect import inspect_stored
        from workbench.worddiff import word_diff

        s = self.session
        tier, query = s.tier(tier_name), s.project.query(query_id)
        ins = inspect_stored(s.project, tier, query)
        docs = s.project.documents
        diffs = {}
        for nm in ins.near_misses:
            a, b = docs[nm.doc_id], docs[nm.imitates]
            diffs[nm.doc_id] = word_diff(f"{a.title}\n{a.text}", f"{b.title}\n{b.text}")
        known = known_results(s, tier, query_id)
        self.call_from_thread(self._merge_results, query_id, tier_name, known)
        self.post_message(m.InspectionReady(query_id, tier_name, (ins, diffs)))

    @work(thread=True, exclusive=True, exit_on_error=False, group="estimate")
    def estimate(self, query_id: str, tier_name: str, model: str) -> None:
        from screens.session import estimate_prompts

        s = self.session
        cfg = dict(s.models())[model]
        est = estimate_prompts(s, s.tier(tier_name), s.project.query(query_id), model, cfg)
        self.post_message(m.PromptEstimates(query_id, tier_name, model, est))

    @work(thread=True, exclusive=True, exit_on_error=False, group="model")
    def run_model(self, query_id: str, tier_name: str, model: str, task: str) -> None:
        from screens.session import run_model_task

        worker = get_current_worker()
        s = self.session
        cfg = dict(s.models())[model]
        self.post_message(m.TaskProgress(f"{model}: {task} on {tier_name} (starting the model server if needed)", 0, 0))
        ev = run_model_task(
            s, s.tier(tier_name), s.project.query(query_id), model, cfg, task,
            on_update=lambda e: self.post_message(m.ModelUpdate((query_id, e), final=False)),
            is_cancelled=lambda: worker.is_cancelled,
        )
        if ev is not None:
            self.post_message(m.ModelUpdate((query_id, ev), final=True))
        else:
            self.post_message(m.ModelUpdate((query_id, None), final=True))

    @work(thread=True, exclusive=True, exit_on_error=False, group="export")
    def export_evidence(self, query_id: str) -> None:
        from workbench.evidence import evidence_dict, write_evidence
        from workbench.inspect import inspect_stored

        s = self.session
        query = s.project.query(query_id)
        tiers = s.tiers_for(query_id)
        inspections = [inspect_stored(s.project, t, query) for t in tiers]
        models = [ev for t in tiers for ev in s.model_results.get((query_id, t.name), {}).values()]
        doc = evidence_dict(s.project, query, inspections, models)
        out = self.export_dir or (s.root / "exports")
        out.mkdir(parents=True, exist_ok=True)
        self.post_message(m.Exported(list(write_evidence(out, doc))))

    # ------------------------------------------------------------------ one place for worker outcomes

    @on(Worker.StateChanged)
    def _worker_state(self, event: Worker.StateChanged) -> None:
        w = event.worker
        long_tasks = {"build", "eval", "model"}
        if event.state == WorkerState.RUNNING and w.group in long_tasks:
            self._busy_groups.add(w.group)
        if event.state in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            self._busy_groups.discard(w.group)
            if w.group in long_tasks and not self._busy_groups:
                self.task_state = ("", 0, 0)
        if event.state == WorkerState.ERROR:
            self._worker_failed(w.group, w.error)
        if event.state == WorkerState.CANCELLED and w.group in long_tasks:
            self.notify(f"{w.group} cancelled", timeout=3)

    def _worker_failed(self, group: str, error: BaseException | None) -> None:
        from workbench.indexing import StaleIndexError
        from workbench.ladder import StaleTiersError
        from workbench.project import ProjectError

        if isinstance(error, Cancelled):
            self.notify(str(error), timeout=3)
            if group == "model":
                qs = self.query_screen()
                if qs:
                    qs.render_model()
            return
        if isinstance(error, ProjectError):
            self.push_screen(ErrorModal("This project cannot be opened", f"{len(error.problems)} problem(s):\n\n{error}"))
            return
        if isinstance(error, (StaleIndexError, StaleTiersError)):
            self.notify(f"{error}\nPress Ctrl+B to build.", title="Index stale", severity="warning", timeout=8)
            return
        what = {"load": "Opening the project", "build": "Building indexes", "eval": "Evaluating",
                "inspect": "Inspecting the query", "estimate": "Counting prompt tokens", "model": "The model run",
                "export": "Exporting", "use": "Reading use results"}.get(group, group)
        text = f"{type(error).__name__}: {error}" if error else "unknown error"
        self.notify(text[:500], title=f"{what} failed", severity="error", timeout=10)
        if group == "model":
            qs = self.query_screen()
            if qs:
                qs.render_model()

    # ------------------------------------------------------------------ message handlers

    def on_project_loaded(self, msg: m.ProjectLoaded) -> None:
        self.session = msg.session
        self.sub_title = msg.session.project.config.name
        ms = self.main_screen()
        if ms:
            ms.refresh_all()
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
        self.task_state = (msg.label, msg.done, msg.total)

    def on_indexes_built(self, msg: m.IndexesBuilt) -> None:
        self.notify(msg.summary, title="Indexes ready", timeout=4)
        ms = self.main_screen()
        if ms:
            ms.refresh_overview()
        self.evaluate()

    def on_access_ready(self, msg: m.AccessReady) -> None:
        self.session.set_results(msg.results)
        ms = self.main_screen()
        if ms:
            ms.refresh_queries()
            ms.refresh_diagnosis()
        qs = self.query_screen()
        if qs:
            qs.render_head()
            qs.load()

    def on_use_ready(self, msg: m.UseReady) -> None:
        self.session.use = msg.use
        ms = self.main_screen()
        if ms:
            ms.refresh_diagnosis()

    def on_inspection_ready(self, msg: m.InspectionReady) -> None:
        qs = self.query_screen()
        if qs and qs.query_id == msg.query_id:
            ins, diffs = msg.inspection
            qs.show_inspection(ins, diffs)
            qs.render_model()

    def on_prompt_estimates(self, msg: m.PromptEstimates) -> None:
        qs = self.query_screen()
        if qs and qs.query_id == msg.query_id:
            qs.show_estimates(msg.tier, msg.model, msg.estimates)

    def _merge_results(self, query_id: str, tier: str, results: dict) -> None:
        self.session.model_results.setdefault((query_id, tier), {}).update(results)

    def on_model_update(self, msg: m.ModelUpdate) -> None:
        query_id, ev = msg.evidence
        if ev is not None:
            self._merge_results(query_id, ev.tier, {ev.system: ev})
        qs = self.query_screen()
        if qs and qs.query_id == query_id:
            qs.render_model(running=None if msg.final else (ev.task if ev else None))
        if msg.final:
            self.refresh_use()

    def on_exported(self, msg: m.Exported) -> None:
        self.notify("\n".join(str(p) for p in msg.paths), title="Evidence exported", timeout=8)

    # ------------------------------------------------------------------ actions (also in the command palette)

    def open_query(self, query_id: str, tier: str | None = None) -> None:
        if self.session is None or self.session.tierset is None:
            self.notify("No tiers yet: build them first (Ctrl+B).", severity="warning")
            return
        self.push_screen(QueryScreen(query_id, tier))

    def binding_sets(self) -> list[tuple[str, list[Binding]]]:
        return [("Everywhere", self.BINDINGS), ("Main screen", MainScreen.BINDINGS),
                ("Query inspector", QueryScreen.BINDINGS)]

    def action_help(self) -> None:
        """Keys as they are now (user keymap applied), each with the id a keymap file uses."""
        sections: list[tuple[str, list[tuple[str, str]]]] = []
        for title, bindings in self.binding_sets():
            rows = [(self.user_keymap.get(b.id, b.key).replace("_", " "), f"{b.description}  [dim]{b.id}[/]")
                    for b in bindings]
            sections.append((title, rows))
        sections[1][1].append(("enter", "open the selected query"))
        sections[0][1].append(("ctrl+p", "command palette"))
        self.push_screen(HelpScreen(sections))

    def action_build(self) -> None:
        if self.session is None:
            self.notify("The project is not loaded.", severity="warning")
            return
        self.build()

    def action_reevaluate(self) -> None:
        if self.session and self.session.tierset:
            self.evaluate()

    def action_cancel(self) -> None:
        cancelled = 0
        for w in self.workers:
            if w.group in ("build", "eval", "model") and w.is_running:
                w.cancel()
                cancelled += 1
        if not cancelled:
            self.notify("nothing to cancel", timeout=2)


def make_app(project_path: Path | str, **kwargs) -> WorkbenchApp:
    return WorkbenchApp(Path(project_path), **kwargs)


def run_app(project_path: Path) -> None:
    make_app(project_path).run()
