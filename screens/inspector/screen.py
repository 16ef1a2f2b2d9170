"""The query inspector: rankings per system on a tier, the near-miss stepper, the model panel.

The screen owns its workers (inspect, estimate, model run, export): they call the application
layer and post typed messages back to this screen; their outcomes go to the app's one handler.
What it shows, and its state, are InspectorView's (screens.inspector.view).
"""

from __future__ import annotations

import time
from functools import partial

from textual import events, on, work
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, TabbedContent
from textual.worker import Worker, WorkerState

from screens import messages as m
from screens.base import PaletteCommand
from screens.inspector.model_panel import replies_text
from screens.inspector.prepared import InspectionReady, prepare
from screens.inspector.rankings import LABEL_KEYS
from screens.inspector.unjudged import show_unjudged
from screens.inspector.view import InspectorView
from screens.render import paths_text, toast_room
from screens.triage_forms import AnswerModal
from screens.inspector.why import ExplanationReady, WhyPane
from workbench.safe_text import visible
from workbench import session as core
from workbench.session import TASKS


def task_bindings() -> list[BindingType]:
    """One key per registered task (workbench.names.TASKS): id inspector.<task>."""
    return [Binding(t.key, f"run('{t.name}')", t.short, id=f"inspector.{t.name}", show=t.in_footer,
                    tooltip=f"run {t.label} on this tier") for t in TASKS.values()]


class QueryScreen(InspectorView):
    AUTO_FOCUS = None
    BINDINGS = [
        # a tooltip says in the command palette (and on hover) what the footer's word cannot
        Binding("f1", "app.help", "Help", id="inspector.help"),  # first: in view at 80 columns
        Binding("escape", "app.pop_screen", "Back", id="inspector.back", tooltip="back to the query list"),
        Binding("left_square_bracket", "tier(-1)", "Prev tier", id="inspector.prev_tier", key_display="[",
                show=False, tooltip="the previous tier of the ladder"),
        Binding("right_square_bracket", "tier(1)", "Next tier", id="inspector.next_tier", key_display="]",
                tooltip="the next tier of the ladder"),
        Binding("n", "step(1)", "Next miss", id="inspector.next_miss", tooltip="the next near miss, its word diff beside the gold"),
        Binding("p", "step(-1)", "Prev miss", id="inspector.prev_miss", show=False, tooltip="the previous near miss"),
        Binding("1", "tab('rankings')", "Rankings", id="inspector.rankings", show=False, tooltip="show the Rankings tab"),
        Binding("2", "tab('nearmiss')", "Near misses", id="inspector.nearmiss", show=False,
                tooltip="show the Near misses tab"),
        Binding("3", "tab('model')", "Model panel", id="inspector.model", show=False, tooltip="show the Model tab"),
        Binding("4", "tab('why')", "Why", id="inspector.why", show=False, tooltip="show the Why tab"),
        Binding("w", "tab('why')", "Why", id="inspector.why_pane", show=False),
        Binding("m", "cycle_model", "Next model", id="inspector.cycle_model", show=False,
                tooltip="the model the Model tab runs"),
        Binding("y", "cycle_tables", "Next system's ranking", id="inspector.system", show=False,
                tooltip="the ranking tables start at the next system"),
        Binding("j", "query(1)", "Next query", id="inspector.next_query", tooltip="the next query under the list's filter"),
        Binding("k", "query(-1)", "Prev query", id="inspector.prev_query", show=False,
                tooltip="the previous query under the list's filter"),
        Binding("slash", "filter", "Filter", id="inspector.filter", show=False, tooltip="the query list's filter"),
        Binding("c", "yank", "Copy", id="inspector.yank", show=False,
                tooltip="the highlighted DocID, else the suggested command, else the gold DocIDs"),
        Binding("d", "document", "Whole document", id="inspector.document", show=False,
                tooltip="the highlighted document whole (on the Model tab: the prompts and raw replies)"),
        *task_bindings(),
        Binding("e", "export", "Export", id="inspector.export",
                tooltip="export this query's evidence (Markdown + JSON, for a bug report)"),
        # labelling the highlighted document (one query-set version per visit; u undoes inside it)
        Binding("G", "mark('gold')", "Gold", id="inspector.mark_gold", show=False,
                tooltip="label the highlighted document gold"),
        Binding("H", "mark('hard_negative')", "Hard neg", id="inspector.mark_hard_negative", show=False,
                tooltip="label the highlighted document a hard negative"),
        Binding("N", "mark('not_relevant')", "Not relevant", id="inspector.mark_not_relevant", show=False,
                tooltip="label the highlighted document not relevant"),
        Binding("A", "edit_answer", "Answer", id="inspector.edit_answer", show=False,
                tooltip="edit the query's reference answer"),
        Binding("u", "undo_label", "Undo label", id="inspector.undo_label", show=False,
                tooltip="undo the last label of this visit"),
        Binding("U", "unjudged(1)", "Unjudged documents, answer-bearing first (label them G/H/N)", id="inspector.unjudged",
                show=False),
    ]

    def on_mount(self) -> None:
        self.render_head()
        self.load()
        # the app's data, watched: verdicts (the head), new access results (the rankings), labels (all)
        self.watch(self.app, "verdicts", lambda _: self.verdicts_changed(), init=False)
        self.watch(self.app, "access", lambda _: self.load(), init=False)
        self.watch(self.app, "session", lambda _: self.relabelled(), init=False)

    def verdicts_changed(self) -> None:
        self.render_head()
        self.render_why()

    def palette_commands(self) -> list[PaletteCommand]:
        cmds: list[PaletteCommand] = []  # the tasks, export and labels are keys: the palette lists them from the bindings
        gold = " ".join(str(g) for g in sorted(self.q.gold_doc_ids))
        if gold:
            cmds.append(("Copy the gold DocIDs", partial(self.yank, gold, "the gold DocIDs"), gold))
        if command := self.suggested_command():
            cmds.append(("Copy the suggested command", partial(self.yank, command, "the suggested command"), command))
        for name in self.tiers:
            cmds.append((f"Tier {name}", partial(self.switch_tier, name), "switch the inspector's tier"))
        return cmds

    # ------------------------------------------------------------------ data

    def load(self) -> None:
        self.inspection = self.prepared = None
        self.render_head()
        self.render_why()
        if not self.tier:
            return
        self.inspect(self.tier, self.app.size.width)
        self.estimate(self.tier, self.model)
        self.render_model()

    # ------------------------------------------------------------------ workers (threads; post messages only)

    @work(thread=True, exclusive=True, exit_on_error=False, group="inspect")
    def inspect(self, tier: str, width: int) -> None:
        """The inspection and everything its panes draw (ranking rows, near-miss diffs, the titles
        they name), made here: the keys that show them only put it on screen."""
        s = self.session
        inspection = core.inspect(s, self.query_id, tier)
        prepared = prepare(inspection, sorted(self.q.gold_doc_ids), s.project.documents, width)
        known = core.known_results(s, s.tier(tier), self.query_id)
        self.post_message(InspectionReady(prepared, known))

    @work(thread=True, exclusive=True, exit_on_error=False, group="explain")
    def explain(self, tier: str, gold: int, doc_id: int) -> None:
        """Why the near miss outranks the gold it imitates (the first call loads the embedder)."""
        s = self.session
        try:
            e = core.explain_on(s.project, s.tier(tier), self.query_id, [gold, doc_id])
        except core.WorkbenchError as exc:
            self.post_message(ExplanationReady(self.query_id, tier, doc_id, None, str(exc)))
            return
        self.post_message(ExplanationReady(self.query_id, tier, doc_id, e))

    @work(thread=True, exclusive=True, exit_on_error=False, group="estimate")
    def estimate(self, tier: str, model: str) -> None:
        s = self.session
        estimates = core.estimate_prompts(s, s.tier(tier), self.q, model)
        self.post_message(m.PromptEstimates(self.query_id, tier, model, estimates))

    @work(thread=True, exclusive=True, exit_on_error=False, group="model")
    def run_model(self, tier: str, model: str, task: str) -> None:
        s = self.session
        try:
            ev = core.run_model_task(
                s, s.tier(tier), self.q, model, task,
                on_update=lambda e: self._post(m.ModelUpdate(self.query_id, e, final=False)),
                progress=self.wb.progress_reporter(),
                on_note=lambda note: self.app.call_from_thread(self.app.notify, visible(note), severity="warning",
                                                               timeout=8, markup=False),
            )
        except core.Cancelled as exc:  # x: say what the cancel did (requests aborted, server stopped)
            if ":" in str(exc):
                self.app.call_from_thread(self.app.notify, visible(str(exc)), timeout=8, markup=False)
            raise
        # the new verdicts are read here and installed by the UI thread (on_model_update)
        self.post_message(m.ModelUpdate(self.query_id, ev, final=True, diagnosis=core.diagnosis_with(s, self.query_id)))

    def _post(self, message: m.ModelUpdate) -> None:
        self.post_message(message)

    @work(thread=True, exclusive=True, exit_on_error=False, group="export")
    def export_evidence(self) -> None:
        s = self.session
        paths = core.export_evidence(s, self.query_id, self.wb.export_dir or (s.root / "exports"))
        self.post_message(m.Exported(paths))

    def on_unmount(self) -> None:
        # Leaving the inspector cancels its model run (what finished is saved; the same key resumes).
        self.wb.node_closed(self)
        self.close_visit()

    def close_visit(self) -> None:
        """The visit's labelling version is closed (leaving, or another query): the next change makes the next one."""
        name = core.close_visit(self.session)
        if name is not None:
            self.wb.refresh_header()
            self.app.notify(f"{name} closed: the next label makes a new version", timeout=3)

    @work(thread=True, exclusive=True, exit_on_error=False, group="label")
    def relabel(self, change: str, arg: object = None) -> None:
        """Save one labelling change (mark, undo, answer) and recompute the figures; the app installs it."""
        s, progress = self.session, self.wb.progress_reporter()
        if change == "undo":
            result = core.undo_label(s, self.query_id, progress)
            if result is None:
                self.app.call_from_thread(self.notify, "nothing to undo", timeout=3)
                return
        elif change == "answer":
            result = core.edit_reference_answer(s, self.query_id, str(arg), progress)
        else:
            result = core.label_document(s, self.query_id, int(str(arg)), change, progress)
        self.post_message(m.LabelsChanged(result))

    @on(Worker.StateChanged)
    def _worker_state(self, event: Worker.StateChanged) -> None:
        event.stop()
        self.wb.track_worker(event.worker, event.state)
        ended = event.state in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED)
        if event.worker.group == "model" and ended and self.is_attached:
            self.running = None  # finished, failed or cancelled: no stale "running…", also after a resize
            self.render_model()

    # ------------------------------------------------------------------ messages from the workers

    def on_inspection_ready(self, msg: InspectionReady) -> None:
        ins = msg.inspection
        self.session.merge_results(ins.query_id, ins.tier, msg.known)
        if ins.tier != self.tier or ins.query_id != self.query_id:
            return
        self.inspection, self.prepared = ins, msg.prepared
        if self.gold_titles != msg.prepared.gold_titles:
            self.gold_titles = dict(msg.prepared.gold_titles)
        self.miss_index = 0
        self.render_rankings()
        self.render_miss()
        self.render_head()
        self.render_model()
        self.render_why()
        self.explain_selected()

    def explain_selected(self) -> None:
        """Start the explain of the selected near miss while the Why pane shows (else when it is shown)."""
        pane = self.query_one("#why-pane", WhyPane)
        ins = self.inspection
        if self.query_one("#inspector-tabs", TabbedContent).active != "why" or ins is None or not ins.near_misses:
            pane.explanation, pane.note = None, ""
            return
        miss = ins.near_misses[self.miss_index]
        if pane.explanation is not None and pane.explanation.tier == ins.tier and pane.explanation.query_id == ins.query_id \
                and [d.doc_id for d in pane.explanation.docs] == [miss.imitates, miss.doc_id]:
            return
        pane.explanation, pane.note = None, f"Explaining {miss.doc_id} against gold {miss.imitates}…"
        self.explain(ins.tier, miss.imitates, miss.doc_id)

    def on_explanation_ready(self, msg: ExplanationReady) -> None:
        ins = self.inspection
        if ins is None or msg.tier != ins.tier or msg.query_id != self.query_id or not ins.near_misses \
                or ins.near_misses[self.miss_index].doc_id != msg.doc_id:
            return  # stepped on meanwhile: the newer request's answer is the one shown
        pane = self.query_one("#why-pane", WhyPane)
        pane.explanation, pane.note = msg.explanation, (f"explain failed: {msg.error}" if msg.error else "")

    def on_prompt_estimates(self, msg: m.PromptEstimates) -> None:
        if msg.tier == self.tier and msg.model == self.model:
            self.estimates = msg.estimates
            self.render_model()

    def on_model_update(self, msg: m.ModelUpdate) -> None:
        ev = msg.evidence
        if ev is not None:
            self.session.merge_results(msg.query_id, ev.tier, {ev.system: ev})
        if msg.final:
            self.running = None
        self.render_model()
        if msg.final:
            self.wb.refresh_use()
            self.wb.install_query_verdicts(msg.query_id, msg.diagnosis)

    def on_exported(self, msg: m.Exported) -> None:
        self.notify(paths_text(msg.paths, toast_room(self.app.size.width)), title="Evidence exported", timeout=8, markup=False)

    # ------------------------------------------------------------------ actions

    def action_tab(self, tab: str) -> None:
        self.query_one("#inspector-tabs", TabbedContent).active = tab
        self.set_focus(None)  # a focused table in a hidden pane would pull the tab back
        if tab == "rankings":
            self.render_rankings()  # drawn now if a tier or system changed while the tab was hidden
        if tab == "why":
            self.render_why()
            self.explain_selected()

    @on(TabbedContent.TabActivated, "#inspector-tabs")
    def _tab_shown(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "rankings":  # a click on the tab, as 1 does
            self.render_rankings()
        if event.pane.id == "why":
            self.render_why()
            self.explain_selected()

    def action_tier(self, step: int) -> None:
        if not self.tiers:
            return
        i = (self.tiers.index(self.tier) + step) % len(self.tiers)
        self.tier = self.tiers[i]
        self.load()

    def action_step(self, step: int) -> None:
        tabs = self.query_one("#inspector-tabs", TabbedContent)
        on_why = tabs.active == "why"  # the Why pane steps in place
        first_look = tabs.active not in ("nearmiss", "why")
        if not on_why:
            self.action_tab("nearmiss")
        if not self.inspection or not self.inspection.near_misses:
            self.notify("no near misses on this tier", timeout=2)
            return
        if first_look:
            self.render_miss()
            return
        self.miss_index = (self.miss_index + step) % len(self.inspection.near_misses)
        self.render_miss()
        self.render_why()
        self.explain_selected()

    def action_cycle_model(self) -> None:
        names = [n for n, _ in self.session.models()]
        if len(names) < 2:  # say why nothing changes
            self.notify(f"only one model is configured ({visible(names[0])}): add [models.NAME] to workbench.toml",
                        timeout=4, markup=False)
            return
        self.model = names[(names.index(self.model) + 1) % len(names)]
        self.estimates = {}
        self.estimate(self.tier, self.model)
        self.render_model()

    def action_run(self, task: str) -> None:
        self.action_tab("model")
        why = core.why_not_run(self.session, self.query_id, self.tier, task)
        if why is not None:
            self.notify(visible(why), severity="warning", timeout=6, markup=False)
            return
        est = self.estimates.get(task)
        if est is not None and not est.fits:
            self.notify(f"{task} does not fit: {est.reason}", severity="warning", markup=False)
            return
        self.run_model(self.tier, self.model, task)
        self.running, self.running_query, self.run_started = task, self.query_id, time.monotonic()
        if self._elapsed is None:
            self._elapsed = self.set_interval(1.0, self._tick)
        self.render_model()

    def _tick(self) -> None:
        if self.running is None and self._elapsed is not None:
            self._elapsed.stop()
            self._elapsed = None
            return
        self.render_model_head()  # the elapsed seconds; the results change with their own messages

    def action_export(self) -> None:
        self.export_evidence()

    # ------------------------------------------------------------------ the triage loop without leaving

    def filtered_queries(self) -> list[str]:
        """The query list's rows as the main screen shows them now (its filter and sort): the app's
        `listed`, posted by the list (QueryListShown), never read off its table."""
        return list(self.wb.listed)

    def action_query(self, step: int) -> None:
        """The next / previous query of the list's filter, here. A model run in flight keeps running
        (its result is stored under its own query; x cancels it)."""
        ids = self.filtered_queries()
        if not ids:
            self.notify("the query list's filter matches no query", timeout=3)
            return
        i = ids.index(self.query_id) if self.query_id in ids else -1
        target = ids[(i + step) % len(ids)]
        if target == self.query_id:
            self.notify("the only query under the list's filter", timeout=2)
            return
        if self.running is not None:
            self.notify(f"{self.running} on {visible(self.running_query)} keeps running (x cancels it)", timeout=4,
                        markup=False)
        self.show_query(target)
        self.notify(f"{visible(target)} ({ids.index(target) + 1}/{len(ids)} under the list's filter)", timeout=2,
                    markup=False)

    def action_filter(self) -> None:
        """The filter lives on the query list: back there with it focused (j/k step through it here)."""
        ms = self.wb.main_screen()
        self.app.pop_screen()
        if ms is not None:
            ms.action_focus_filter()
        self.notify("the filter of the query list: j/k in the inspector step through what it matches", timeout=4)

    def action_cycle_tables(self) -> None:
        ins = self.inspection
        if ins is None or len(ins.systems) < 2:
            self.notify("one system's ranking only", timeout=2)
            return
        self.first_system = (self.first_system + 1) % len(ins.systems)
        if not self.rankings_in_view():  # drawn when the tab shows (1): the key still answers here
            self.notify(f"the rankings start at {visible(ins.systems[self.first_system].system, one_line=True)} (1 shows them)",
                        timeout=2, markup=False)
        self.render_rankings()

    def yank(self, text: str, what: str) -> None:
        self.app.copy_to_clipboard(text)
        self.notify(f"copied {what}: {visible(text[:120], one_line=True)}", timeout=4, markup=False)

    def action_yank(self) -> None:
        """c: on the rankings, the highlighted DocID; elsewhere the command that fills this tier's
        NOT-YET, else the gold DocIDs (the palette offers each)."""
        tab = self.query_one("#inspector-tabs", TabbedContent).active
        doc = self.highlighted_doc()
        if tab == "rankings" and doc is not None:
            self.yank(str(doc), "DocID")
            return
        command = self.suggested_command()
        if command:
            self.yank(command, "the suggested command")
            return
        self.yank(" ".join(str(g) for g in sorted(self.q.gold_doc_ids)), "the gold DocIDs")

    def suggested_command(self) -> str:
        d = self.session.diagnosis
        v = d.at(self.query_id, self.tier, core.verdict_system(self.session)) if d else None
        return v.command if v is not None and v.verdict == "NOT-YET" and v.command else ""

    def action_document(self) -> None:
        """d: the highlighted document whole (on the model tab: each exact prompt and raw reply)."""
        from screens.modals import TextModal

        if self.query_one("#inspector-tabs", TabbedContent).active == "model":
            results = self.session.model_results.get((self.query_id, self.tier), {})
            if not results:
                self.notify("no model reply on this tier yet", timeout=3)
                return
            self.app.push_screen(TextModal(f"Prompts and raw replies of {self.query_id} on {self.tier}",
                                           replies_text(results)))
            return
        doc = self.highlighted_doc()
        ins = self.inspection
        if self.query_one("#inspector-tabs", TabbedContent).active == "nearmiss" and ins and ins.near_misses:
            doc = ins.near_misses[self.miss_index].doc_id
        if doc is None:
            self.notify("no document highlighted: move to a row of a ranking", timeout=3)
            return
        self.read_document(doc)

    @work(thread=True, exclusive=True, exit_on_error=False, group="document")
    def read_document(self, doc_id: int) -> None:
        """d: the document's text read here (the UI thread reads no document), shown once read."""
        from screens.modals import TextModal

        d = self.session.project.documents[doc_id]
        self.app.call_from_thread(self.app.push_screen, TextModal(f"{doc_id} {d.title}", d.text))

    def action_mark(self, mark: str) -> None:
        doc = self.highlighted_doc()
        if doc is None:
            self.notify("no document highlighted: open the rankings (1) and move to a row", severity="warning", timeout=3)
            return
        self.notify(f"labelling {doc} {mark.replace('_', ' ')}: figures and verdicts follow…", timeout=2)  # at once
        self.relabel(mark, doc)

    def action_undo_label(self) -> None:
        self.relabel("undo")

    async def action_unjudged(self, step: int) -> None:
        """U: the Unjudged pane (screens.inspector.unjudged); again there, the next document."""
        await show_unjudged(self, step)

    # The labelling keys are off the footer (it must fit 120 columns with f1 in view): the
    # ranking table that has focus, whose highlighted row they act on, names them instead.
    @on(events.DescendantFocus, "DataTable.ranking")
    def _name_label_keys(self, event: events.DescendantFocus) -> None:
        event.widget.border_subtitle = LABEL_KEYS

    @on(events.DescendantBlur, "DataTable.ranking")
    def _unname_label_keys(self, event: events.DescendantBlur) -> None:
        event.widget.border_subtitle = ""

    def action_edit_answer(self) -> None:
        def saved(answer: str | None) -> None:
            if answer is not None and answer != self.q.answer:
                self.relabel("answer", answer)

        self.app.push_screen(AnswerModal(self.query_id, self.q.answer), saved)

    def relabelled(self) -> None:
        """The labels changed (installed by the app): redraw this query at once, keeping the cursor."""
        tables = list(self.query("#ranking-tables DataTable").results(DataTable))
        focused = next((i for i, t in enumerate(tables) if t.has_focus), None)
        if focused is not None:
            self._cursor = (focused, tables[focused].cursor_row)
        self.tiers = [t.name for t in self.session.tiers_for(self.query_id)]
        if self.tier not in self.tiers:
            self.tier = self._default_tier()
        self.load()

    def show_query(self, query_id: str) -> None:
        """Another query in this inspector (j/k): the same tier where it has it; a new labelling visit."""
        self.close_visit()
        self.query_id = query_id
        self.tiers = [t.name for t in self.session.tiers_for(query_id)]
        if self.tier not in self.tiers:
            self.tier = self._default_tier()
        self.inspection, self.miss_index, self.estimates, self._cursor = None, 0, {}, None
        self.gold_titles = {}
        self.load()

    def switch_tier(self, name: str) -> None:
        if name in self.tiers:
            self.tier = name
            self.load()
