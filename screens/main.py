"""The main screen: project overview, query list, diagnosis, sweeps — one tab each, one pane
widget each (screens/panes). The panes take their data through reactive attributes bound to this
screen's, which follow the app's (WorkbenchApp.session, .verdicts, .use, .indexes, .build_note)."""

from __future__ import annotations

from functools import partial

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.reactive import var
from textual.widgets import DataTable, Input, TabbedContent, TabPane
from textual.worker import Worker

from screens import messages as m
from screens.base import PaletteCommand, WorkbenchScreen
from screens.panes import DiagnosisPane, OverviewPane, QueryListPane, SweepsPane
from screens.panes.queries import QueryListShown
from screens.render import paths_text, toast_room
from screens.triage_forms import AddQueryModal, NewQuery, field_errors
from screens.widgets import KeyFooter, TaskBar, WorkbenchHeader
from workbench import session as core
from workbench.safe_text import visible
from workbench.session import Session

# what takes focus when a tab is shown (a focused widget left in a hidden pane would pull the tab back)
TAB_FOCUS = {"overview": "#overview-pane", "queries": "#query-table", "diagnosis": "#diagnosis-pane", "sweeps": "#sweeps-pane"}


class FixMeasured(Message):
    """A fix was tried: its measured effect is stored (the Diagnosis tab shows it)."""


class MainScreen(WorkbenchScreen):
    AUTO_FOCUS = "#query-table"
    BINDINGS = [
        # first, so that f1 heads the footer and stays in view at 80 columns (the app's own f1 is the same)
        Binding("f1", "app.help", "Help", id="main.help"),
        Binding("1", "tab('overview')", "Overview", id="main.overview", show=False, tooltip="show the Overview tab"),
        Binding("2", "tab('queries')", "Queries", id="main.queries", show=False, tooltip="show the Queries tab"),
        Binding("3", "tab('diagnosis')", "Diagnosis", id="main.diagnosis", show=False, tooltip="show the Diagnosis tab"),
        Binding("4", "tab('sweeps')", "Sweeps", id="main.sweeps", show=False, tooltip="show the Sweeps tab"),
        # priority: the app runs it as it reads the key, so the keys typed right after "/" reach the filter
        Binding("slash", "focus_filter", "Filter", id="main.filter", priority=True, tooltip="type in the query list's filter"),
        Binding("s", "cycle_sort", "Sort", id="main.sort",
                tooltip="sort the queries: ladder order, where they break, production's feedback"),
        Binding("y", "cycle_system", "System", id="main.system", tooltip="the next verdict system: its verdicts and figures"),
        Binding("a", "add_query", "Add query", id="main.add_query",
                tooltip="a query from a log, with its reference answer and gold documents"),
        Binding("r", "export_report", "Report", id="main.report",
                tooltip="export the diagnosis report (Markdown, self-contained HTML, JSON)"),
        Binding("t", "try_fix", "Try fix", id="main.try_fix", show=False,
                tooltip="run the Diagnosis tab's first runnable recommendation"),
    ]

    session: var[Session | None] = var(None, always_update=True)  # the app's, mirrored for the panes' data_bind
    verdicts: var[int] = var(0)
    use: var[int] = var(0)
    indexes: var[int] = var(0)
    build_note: var[str] = var("")
    arrived: var[frozenset[str]] = var(frozenset())

    def __init__(self) -> None:
        super().__init__()
        self._resolver: tuple[object, core.DocIdResolver] | None = None  # (the project it was built on, the gold IDs)

    def compose(self) -> ComposeResult:
        yield WorkbenchHeader()
        with TabbedContent(initial="queries", id="tabs"):
            with TabPane("Overview", id="overview"):
                yield OverviewPane(id="overview-pane").data_bind(MainScreen.session, MainScreen.indexes)
            with TabPane("Queries", id="queries"):
                yield QueryListPane(id="queries-pane").data_bind(MainScreen.session, MainScreen.verdicts, MainScreen.build_note,
                                                                MainScreen.arrived)
            with TabPane("Diagnosis", id="diagnosis"):
                yield DiagnosisPane(id="diagnosis-pane").data_bind(MainScreen.session, MainScreen.verdicts, MainScreen.use)
            with TabPane("Sweeps", id="sweeps"):
                yield SweepsPane(id="sweeps-pane").data_bind(MainScreen.session)
        yield TaskBar()
        yield KeyFooter()

    def on_mount(self) -> None:
        for name in ("session", "verdicts", "use", "indexes", "build_note", "arrived"):
            self.watch(self.app, name, partial(setattr, self, name))
        self.query_one("#query-table").focus()

    @property
    def queries(self) -> QueryListPane:
        return self.query_one(QueryListPane)

    @property
    def system(self) -> str:
        """Whose access figures the query list shows (y switches them with the verdicts)."""
        return self.queries.system

    @property
    def sort(self) -> str:
        return self.queries.sort

    def tabs(self) -> list[tuple[str, str]]:
        """Every tab as (pane id, title), in order: from the widgets, so the palette never leaves one out."""
        tabbed = self.query_one("#tabs", TabbedContent)
        return [(str(p.id), tabbed.get_tab(p).label.plain) for p in tabbed.query(TabPane)]

    def palette_commands(self) -> list[PaletteCommand]:
        cmds: list[PaletteCommand] = []
        bound = {b.action for b in self.BINDINGS if isinstance(b, Binding)}
        for tab, title in self.tabs():  # a tab without a key of its own is still in the palette
            if f"tab('{tab}')" not in bound:
                cmds.append((f"{title}: show the {title} tab", partial(self.action_tab, tab), ""))
        cmds.extend(self.filter_commands())
        fix = core.first_runnable_fix(self.session) if self.session else None
        if fix is not None:
            cmds.append((f"Try the fix: {fix.system}", self.action_try_fix,
                         f"{fix.command} — then its measured effect in the Diagnosis tab; x cancels"))
        n = len(self.queries.shown)
        for task in ("oracle", "qa", "rag"):
            cmds.append((f"Batch: {core.TASKS[task].label} on the {n} queries of this filter", partial(self.action_batch, task),
                         "each on its smallest tier; progress below, x cancels, the same entry resumes"))
        return cmds

    def filter_commands(self) -> list[PaletteCommand]:
        """Each word of the filter language (its flags, every v: word, each domain, the traces' queries) as an entry."""
        words = [*core.FLAGS, *(f"v:{w}" for w in core.FILTER_WORDS if w != "notyet"), "from:traces"]
        if self.session is not None:
            words += [f"d:{d}" for d in self.session.project.domains]
        cmds: list[PaletteCommand] = [(f"Filter: {visible(w, one_line=True)}", partial(self.palette_filter, w),
                                       "the query list shows the queries it matches (f1: what each word means)")
                                      for w in words]
        cmds.append(("Filter: failing multi-source queries", partial(self.palette_filter, "multi fail"), "multi fail"))
        cmds.append(("Filter: clear", partial(self.palette_filter, ""), "every query"))
        return cmds

    def action_batch(self, task: str) -> None:
        if self.session is None or self.session.tierset is None:
            self.notify("Build the tiers and indexes first (Ctrl+B).", severity="warning")
            return
        self.queries.after_read(partial(self._batch, task))  # over the filter just typed, once it is read

    def _batch(self, task: str) -> None:
        ids = self.queries.shown
        if not ids:
            self.notify("the filter matches no query", timeout=3)
            return
        self.wb.run_batch(ids, task)

    # ------------------------------------------------------------------ actions

    def action_tab(self, tab: str) -> None:
        # Focus moves with the tab: a focused widget left in a hidden pane would pull the tab back.
        # Set now, not on the next loop (Widget.focus): keys already typed go where they were meant.
        self.query_one("#tabs", TabbedContent).active = tab
        self.set_focus(self.query_one(TAB_FOCUS[tab]))

    def palette_filter(self, text: str) -> None:
        """The palette's filter entry: the query list, filtered by ``text`` (if this screen is still shown)."""
        if self.app.screen is self:
            self.action_tab("queries")
            self.query_one("#filter", Input).value = text

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "focus_filter" and isinstance(self.focused, Input):
            return False  # "/" typed in the filter is a character of it
        return True

    def action_focus_filter(self) -> None:
        self.action_tab("queries")
        self.set_focus(self.query_one("#filter", Input))  # now: "/hr-07" typed in one burst reaches the filter

    def action_cycle_sort(self) -> None:
        pane = self.queries
        pane.sort = core.LIST_SORTS[(core.LIST_SORTS.index(pane.sort) + 1) % len(core.LIST_SORTS)]
        words = {"breaks": "where it breaks", "feedback": "production's feedback (flagged ! first)"}
        self.notify(f"sorted by {words.get(pane.sort, 'ladder order')}", timeout=2)

    def action_cycle_system(self) -> None:
        """The next verdict system: its verdicts and its figures together, everywhere."""
        s = self.session
        if s is None:
            return
        verdict_systems = core.verdict_systems(s)
        if verdict_systems:
            now = core.verdict_system(s)
            i = verdict_systems.index(now) if now in verdict_systems else -1
            core.choose_verdict_system(s, verdict_systems[(i + 1) % len(verdict_systems)])
            self.notify(f"verdicts and figures of {core.verdict_system(s)} ({core.figures_system(s)} rankings)", timeout=3,
                        markup=False)

            def redraw() -> None:  # after the notice is drawn: the key answers at once, the views follow
                self.queries.chosen_system = None
                self.wb.verdicts_changed()

            self.call_after_refresh(redraw)
        elif s.systems:  # no verdicts yet: the figures alone
            i = s.systems.index(self.system) if self.system in s.systems else -1
            self.queries.chosen_system = s.systems[(i + 1) % len(s.systems)]

    def action_add_query(self) -> None:
        if self.session is None or self.session.tierset is None:
            self.notify("Build the tiers and indexes first (Ctrl+B).", severity="warning")
            return

        self.open_add_query_form(AddQueryModal())

    def open_add_query_form(self, form: object) -> None:
        def submitted(new: NewQuery | None) -> None:
            if new is not None:
                self.add_query(new)

        assert isinstance(form, AddQueryModal)
        project = self.wb.current.project
        if self._resolver is not None and self._resolver[0] is project:
            form.resolver = self._resolver[1]
        else:
            self.load_resolver(self.wb.current)  # the corpus' IDs for the gold field's check, off the UI thread
        self.app.push_screen(form, submitted)

    @work(thread=True, exclusive=True, exit_on_error=False, group="resolver")
    def load_resolver(self, session: Session) -> None:
        project = session.project
        self.post_message(m.ResolverReady(project, core.doc_id_resolver(project)))

    def on_resolver_ready(self, msg: m.ResolverReady) -> None:
        self._resolver = (msg.project, msg.resolver)
        form = self.app.screen
        if isinstance(form, AddQueryModal) and form.resolver is None:
            form.resolver_ready(msg.resolver)

    @work(thread=True, exclusive=True, exit_on_error=False, group="add_query")
    def add_query(self, new: object) -> None:
        """Add it, run every retriever on every tier, then open it in the inspector. Bad input (an unknown
        gold document, domain) opens the form again with what was typed, the error beside its field."""
        assert isinstance(new, NewQuery)
        try:
            change = core.add_query_from_log(self.wb.current, new.text, new.answer, new.gold,
                                             self.wb.progress_reporter("adding the query: "), domain=new.domain)
        except core.WorkbenchError as exc:
            if getattr(exc, "problems", None) is None:
                raise
            self.app.call_from_thread(self.open_add_query_form, AddQueryModal(new, field_errors(exc)))
            return
        self.post_message(m.LabelsChanged(change, opened=True))

    def action_export_report(self) -> None:
        if self.session is None or self.session.tierset is None:
            self.notify("Nothing to report yet.", severity="warning")
            return
        self.notify("writing the diagnosis report (Markdown, HTML, JSON)…", timeout=3)  # the key answers at once
        self.export_report()

    @work(thread=True, exclusive=True, exit_on_error=False, group="export")
    def export_report(self) -> None:
        s = self.wb.current
        paths = core.export_report(s, self.wb.export_dir or (s.root / "reports"))
        self.app.call_from_thread(self.notify, paths_text(paths, toast_room(self.app.size.width)), title="Diagnosis report written",
                                  timeout=8, markup=False)

    def action_try_fix(self) -> None:
        """Run the Diagnosis tab's first runnable recommendation (a rerank, or fine-tuning) in the background."""
        fix = core.first_runnable_fix(self.session) if self.session else None
        if fix is None:
            self.notify("No recommendation runs from here yet: configure a [rerankers.NAME] (docs: howto/try-a-fix.md), "
                        "or wait for the diagnosis.", severity="warning", markup=False)
            return
        self.action_tab("diagnosis")
        self.try_fix(fix)

    @work(thread=True, exclusive=True, exit_on_error=False, group="fix")
    def try_fix(self, fix: core.RunnableFix) -> None:
        s = self.wb.current
        recs = core.run_fix(s, fix, self.wb.progress_reporter(f"trying {fix.system}: "))
        tried = next((r.fix for r in recs if r.fix is not None and r.fix.system == fix.system), None)
        self.post_message(FixMeasured())  # the Diagnosis tab reads the recommendations again, with its effect
        self.app.call_from_thread(self.notify, (tried.effect if tried else None) or "stored; no paired queries to judge it on yet",
                                  title=f"{fix.system} measured", timeout=10, markup=False)

    def on_screen_resume(self) -> None:
        self.queries.draw_if_stale()  # back from the inspector: what changed meanwhile (labels, verdicts)
        self.query_one(DiagnosisPane).draw_if_stale()

    def on_fix_measured(self, _msg: FixMeasured) -> None:
        self.query_one(DiagnosisPane).render_diagnosis(reread=True)

    @on(Worker.StateChanged)
    def _worker_state(self, event: Worker.StateChanged) -> None:
        """This screen's workers (add query, export, fix) go through the app's one place, as the inspector's do."""
        event.stop()
        self.wb.track_worker(event.worker, event.state)


    @on(QueryListShown)
    def _listed(self, msg: QueryListShown) -> None:
        self.wb.listed = msg.query_ids  # the inspector's j/k steps through them

    @on(DataTable.RowSelected, "#query-table")
    def _open_query(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.wb.open_query(event.row_key.value)
