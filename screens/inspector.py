"""The query inspector: rankings per system on a tier, the near-miss stepper, the model panel.

The screen owns its workers (inspect, estimate, model run, export): they call the application
layer and post typed messages back to this screen; their outcomes go to the app's one handler.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static, TabbedContent, TabPane
from textual.timer import Timer
from textual.worker import Worker, WorkerState

from screens import messages as m
from screens.render import KIND_LABEL, KIND_STYLE, VERDICT_STYLE, diff_text, figure_glyph, rank_text
from screens.widgets import TaskBar
from workbench.safe_text import as_text, visible
from workbench import session as core
from workbench.session import TASKS, PromptEstimate, QueryInspection, Session, preferred, salient_changes, system_label

if TYPE_CHECKING:
    from screens.app import WorkbenchApp


def task_bindings() -> list[BindingType]:
    """One key per registered task (workbench.names.TASKS): id inspector.<task>."""
    return [Binding(t.key, f"run('{t.name}')", t.short, id=f"inspector.{t.name}", show=t.in_footer) for t in TASKS.values()]


class QueryScreen(Screen[None]):
    AUTO_FOCUS = None
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="inspector.back"),
        Binding("left_square_bracket", "tier(-1)", "Prev tier", id="inspector.prev_tier", key_display="["),
        Binding("right_square_bracket", "tier(1)", "Next tier", id="inspector.next_tier", key_display="]"),
        Binding("n", "step(1)", "Next miss", id="inspector.next_miss"),
        Binding("p", "step(-1)", "Prev miss", id="inspector.prev_miss"),
        Binding("1", "tab('rankings')", "Rankings", id="inspector.rankings", show=False),
        Binding("2", "tab('nearmiss')", "Near misses", id="inspector.nearmiss", show=False),
        Binding("3", "tab('model')", "Model panel", id="inspector.model", show=False),
        Binding("m", "cycle_model", "Next model", id="inspector.cycle_model", show=False),
        *task_bindings(),
        Binding("e", "export", "Export", id="inspector.export"),
        # labelling the highlighted document (each change is a new query-set version at once)
        Binding("G", "mark('gold')", "Gold", id="inspector.mark_gold", show=False),
        Binding("H", "mark('hard_negative')", "Hard neg", id="inspector.mark_hard_negative", show=False),
        Binding("N", "mark('not_relevant')", "Not relevant", id="inspector.mark_not_relevant", show=False),
        Binding("A", "edit_answer", "Answer", id="inspector.edit_answer", show=False),
        Binding("u", "undo_label", "Undo label", id="inspector.undo_label", show=False),
    ]

    def __init__(self, query_id: str, tier: str | None = None) -> None:
        super().__init__()
        self.query_id = query_id
        session = self.session
        self.tiers = [t.name for t in session.tiers_for(query_id)]
        self.tier = tier if tier in self.tiers else self._default_tier()
        self.inspection: QueryInspection | None = None
        self.miss_index = 0
        models = session.models()
        self.model = models[0][0]
        self.estimates: dict[str, PromptEstimate] = {}
        self.running: str | None = None  # the task of the model call in flight, shown with its elapsed time
        self.run_started = 0.0
        self._elapsed: Timer | None = None
        self._cursor: tuple[int, int] | None = None  # (ranking table, row) to restore after a relabel

    @property
    def wb(self) -> "WorkbenchApp":
        from screens.app import WorkbenchApp

        assert isinstance(self.app, WorkbenchApp)
        return self.app

    @property
    def session(self) -> Session:
        return self.wb.current

    @property
    def q(self) -> core.Query:
        return self.session.project.query(self.query_id)

    def _default_tier(self) -> str:
        # the first tier where the query breaks with the best retriever, else the largest
        s = self.session
        for system in preferred(s.systems):
            b = s.breaks_at(system, self.q)
            if b is not None and s.tiers[b].name in self.tiers:
                return s.tiers[b].name
        return self.tiers[-1] if self.tiers else ""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="q-head")
        with TabbedContent(initial="rankings", id="inspector-tabs"):
            with TabPane("Rankings", id="rankings"):
                with Vertical():
                    yield Horizontal(id="ranking-tables")
                    yield Static(id="gold-ranks")
            with TabPane("Near misses", id="nearmiss"):
                with Vertical():
                    yield Static("No inspection yet.", id="miss-head")
                    with Horizontal(id="diff-panes"):
                        with VerticalScroll(id="diff-left"):
                            yield Static(id="diff-left-text")
                        with VerticalScroll(id="diff-right"):
                            yield Static(id="diff-right-text")
            with TabPane("Model", id="model"):
                with VerticalScroll():
                    yield Static(id="model-head")
                    yield Static(id="model-results")
        yield TaskBar()
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.render_head()
        self.load()

    # ------------------------------------------------------------------ data

    def load(self) -> None:
        self.inspection = None
        self.render_head()
        if not self.tier:
            return
        self.inspect(self.tier)
        self.estimate(self.tier, self.model)
        self.render_model()

    # ------------------------------------------------------------------ workers (threads; post messages only)

    @work(thread=True, exclusive=True, exit_on_error=False, group="inspect")
    def inspect(self, tier: str) -> None:
        s = self.session
        inspection = core.inspect(s, self.query_id, tier)
        known = core.known_results(s, s.tier(tier), self.query_id)
        self.post_message(m.InspectionReady(inspection, known))

    @work(thread=True, exclusive=True, exit_on_error=False, group="estimate")
    def estimate(self, tier: str, model: str) -> None:
        s = self.session
        estimates = core.estimate_prompts(s, s.tier(tier), self.q, model)
        self.post_message(m.PromptEstimates(self.query_id, tier, model, estimates))

    @work(thread=True, exclusive=True, exit_on_error=False, group="model")
    def run_model(self, tier: str, model: str, task: str) -> None:
        s = self.session
        ev = core.run_model_task(
            s, s.tier(tier), self.q, model, task,
            on_update=lambda e: self._post(m.ModelUpdate(self.query_id, e, final=False)),
            progress=self.wb.progress_reporter(),
        )
        self.post_message(m.ModelUpdate(self.query_id, ev, final=True))

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

    @work(thread=True, exclusive=True, exit_on_error=False, group="label")
    def relabel(self, change: str, arg: object = None) -> None:
        """Save one labelling change (mark, undo, answer) and recompute the figures; the app installs it."""
        s, progress = self.session, self.wb.progress_reporter()
        if change == "undo":
            result = core.undo_label(s, self.query_id, progress)
            if result is None:
                self.app.call_from_thread(self.notify, "nothing to undo in this session", timeout=3)
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

    def on_inspection_ready(self, msg: m.InspectionReady) -> None:
        ins = msg.inspection
        self.session.merge_results(ins.query_id, ins.tier, msg.known)
        if ins.tier != self.tier:
            return
        self.inspection = ins
        self.miss_index = 0
        self.render_rankings()
        self.render_miss()
        self.render_head()
        self.render_model()

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
            self.wb.refresh_verdicts()

    def on_exported(self, msg: m.Exported) -> None:
        self.notify("\n".join(str(p) for p in msg.paths), title="Evidence exported", timeout=8, markup=False)

    # ------------------------------------------------------------------ actions

    def action_tab(self, tab: str) -> None:
        self.query_one("#inspector-tabs", TabbedContent).active = tab
        self.set_focus(None)  # a focused table in a hidden pane would pull the tab back

    def action_tier(self, step: int) -> None:
        if not self.tiers:
            return
        i = (self.tiers.index(self.tier) + step) % len(self.tiers)
        self.tier = self.tiers[i]
        self.load()

    def action_step(self, step: int) -> None:
        tabs = self.query_one("#inspector-tabs", TabbedContent)
        first_look = tabs.active != "nearmiss"
        self.action_tab("nearmiss")
        if not self.inspection or not self.inspection.near_misses:
            self.notify("no near misses on this tier", timeout=2)
            return
        if first_look:
            self.render_miss()
            return
        self.miss_index = (self.miss_index + step) % len(self.inspection.near_misses)
        self.render_miss()

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
        est = self.estimates.get(task)
        if est is not None and not est.fits:
            self.notify(f"{task} does not fit: {est.reason}", severity="warning", markup=False)
            return
        self.run_model(self.tier, self.model, task)
        self.running, self.run_started = task, time.monotonic()
        if self._elapsed is None:
            self._elapsed = self.set_interval(1.0, self._tick)
        self.render_model()

    def _tick(self) -> None:
        if self.running is None and self._elapsed is not None:
            self._elapsed.stop()
            self._elapsed = None
            return
        self.render_model()

    def action_export(self) -> None:
        self.export_evidence()

    def highlighted_doc(self) -> int | None:
        """The DocID under the cursor of the focused ranking table (else the first table's)."""
        tables = list(self.query("#ranking-tables DataTable").results(DataTable))
        if not tables:
            return None
        table = next((t for t in tables if t.has_focus), tables[0])
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value or ""
        return int(key.rsplit(":", 1)[1])  # "rank:doc" or "out:doc" (a gold document below the top K)

    def action_mark(self, mark: str) -> None:
        doc = self.highlighted_doc()
        if doc is None:
            self.notify("no document highlighted: open the rankings (1) and move to a row", severity="warning", timeout=3)
            return
        self.relabel(mark, doc)

    def action_undo_label(self) -> None:
        self.relabel("undo")

    # The labelling keys are off the footer (it must fit 120 columns with f1 in view): the
    # ranking table that has focus, whose highlighted row they act on, names them instead.
    @on(events.DescendantFocus, "DataTable.ranking")
    def _name_label_keys(self, event: events.DescendantFocus) -> None:
        event.widget.border_subtitle = LABEL_KEYS

    @on(events.DescendantBlur, "DataTable.ranking")
    def _unname_label_keys(self, event: events.DescendantBlur) -> None:
        event.widget.border_subtitle = ""

    def action_edit_answer(self) -> None:
        from screens.triage_forms import AnswerModal

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

    def switch_tier(self, name: str) -> None:
        if name in self.tiers:
            self.tier = name
            self.load()

    # ------------------------------------------------------------------ rendering

    def render_head(self) -> None:
        s, q = self.session, self.q
        gold = ", ".join(f"{g} {s.project.documents[g].title}" for g in sorted(q.gold_doc_ids))
        head = Text.assemble(
            (f"{visible(q.query_id)} ", "bold"), ("multi" if q.is_multi_source else "single" if q.is_labelled else "unlabelled", "magenta"), "  ",
            visible(q.query, one_line=True), "\n",
            ("answer ", "dim"), (visible(q.answer, one_line=True), "bold"), ("   gold ", "dim"),
            (visible(gold, one_line=True), "green"), "\n",
        )
        head.append("tier ", "dim")
        for name in self.tiers:
            style = "reverse bold" if name == self.tier else ""
            head.append(f" {visible(name)} ", style)
            head.append_text(figure_glyph(s.figure(s.best_retriever, name, q) if s.per_query else None))
        head.append("   [ ] to switch", "dim")
        if self.tier:
            head.append("\n" + visible(core.access_line(s, self.query_id, self.tier)), "cyan" if q.is_labelled else "yellow")
        # The verdict stays on one line (its full facts are in the report, `e`), so the rankings keep
        # their rows at 80×24.
        verdict = self.verdict_line()
        verdict.no_wrap, verdict.overflow = True, "ellipsis"
        self.query_one("#q-head", Static).update(Group(head, verdict))

    def verdict_line(self) -> Text:
        """One line: the diagnosis' verdict for this query on this tier, with the rule and its facts."""
        d = self.session.diagnosis
        if d is None:
            return Text("verdict: waiting for the diagnosis…", "dim")
        v = d.at(self.query_id, self.tier)
        style = VERDICT_STYLE.get(v.verdict, "") if v else "dim"
        # The command that would fill a NOT-YET names the project by its folder: the line stays short
        # (the inspector's own key runs it) and does not depend on where the project lies.
        line = d.line(self.query_id, self.tier).replace(str(self.session.root), self.session.root.name)
        return Text.assemble(("verdict ", "dim"), (v.verdict if v else "–", style), "  ",
                             (visible(line, one_line=True), "italic"))

    def render_rankings(self) -> None:
        self.run_worker(self._render_rankings(), group="render", exclusive=True, exit_on_error=False)

    async def _render_rankings(self) -> None:
        box = self.query_one("#ranking-tables", Horizontal)
        await box.remove_children()
        ins = self.inspection
        if ins is None:
            return
        if not ins.systems:
            await box.mount(Static("No stored runs for this tier yet: wait for the evaluation, or build indexes (Ctrl+B)."))
            return
        tables: list[tuple[DataTable[Text], core.SystemRanking]] = []
        # titles get the width there is (GOLD and HN rows often differ in one late word)
        title_width = max(24, self.app.size.width // max(1, len(ins.systems)) - 20)
        for sr in ins.systems:
            t: DataTable[Text] = DataTable(cursor_type="row", classes="ranking")
            t.border_title = system_label(sr.system)
            tables.append((t, sr))
        await box.mount(*[t for t, _ in tables])
        for t, sr in tables:
            t.add_columns("#", "DocID", "title", "score")
            for r in sr.rows:
                style = KIND_STYLE[r.kind]
                label = KIND_LABEL[r.kind]
                title = (f"{label} " if label else "") + visible(r.title, one_line=True)
                t.add_row(Text(str(r.rank), style), Text(str(r.doc_id), style), _cut(title, title_width, style),
                          Text(f"{r.score:.3f}", style), key=f"{r.rank}:{r.doc_id}")
            for g, rank in sr.gold_ranks.items():
                if rank is None or rank > ins.k:
                    title = visible(self.session.project.documents[g].title, one_line=True)
                    t.add_row(rank_text(rank, ins.k, sr.depth), Text(str(g), "green"),
                              _cut(f"GOLD {title}", title_width, "green italic"), Text("", ""), key=f"out:{g}")
        tbl = Table.grid(padding=(0, 1))
        tbl.add_column(style="green", no_wrap=True)
        for sr in ins.systems:
            tbl.add_column(no_wrap=True)
        tbl.add_row(Text("gold rank", "dim"), *[as_text(system_label(sr.system), "bold") for sr in ins.systems])
        for g in ins.gold:
            title = visible(self.session.project.documents[g].title, one_line=True)
            tbl.add_row(_cut(f"{g} {title}", title_width + 6, ""), *[rank_text(sr.gold_ranks.get(g), ins.k, sr.depth) for sr in ins.systems])
        n = len(ins.near_misses)
        foot = Text(f"{n} near miss(es) ranked above gold — n/p to step through them", "yellow" if n else "dim")
        self.query_one("#gold-ranks", Static).update(Group(tbl, foot))
        if self._cursor is not None and self._cursor[0] < len(tables):  # back where the user was labelling
            table = tables[self._cursor[0]][0]
            table.move_cursor(row=min(self._cursor[1], max(table.row_count - 1, 0)))
            table.focus()
            self._cursor = None

    def render_miss(self) -> None:
        head = self.query_one("#miss-head", Static)
        left = self.query_one("#diff-left-text", Static)
        right = self.query_one("#diff-right-text", Static)
        ins = self.inspection
        if ins is None or not ins.near_misses:
            head.update("No near misses on this tier: no non-gold document outranks a gold one in any system's top K.")
            left.update("")
            right.update("")
            return
        m = ins.near_misses[self.miss_index]
        docs = self.session.project.documents
        gold = docs[m.imitates]
        ranks = "  ".join(f"{system_label(s)} #{r}" for s, r in m.ranks.items())
        kind = Text(" hard negative ", "bold white on red") if m.kind == "hard_negative" else Text(" distractor ", "reverse")
        d = ins.diffs.get(m.doc_id)
        t = Text.assemble(
            (f"Near miss {self.miss_index + 1}/{len(ins.near_misses)} ", "bold"), kind, " ",
            (visible(f"{m.doc_id} {m.title}", one_line=True), "red"), "  ", (visible(ranks), "yellow"), "\n",
            ("imitates gold ", "dim"), (visible(f"{gold.doc_id} {gold.title}", one_line=True), "green"),
            (f"  word overlap {m.similarity:.2f}", "dim"),
            ("  outranks gold " + ", ".join(str(g) for g in m.above_gold), "dim"),
        )
        if d is not None:
            sl, sr = salient_changes(d)
            t.append("\nonly in distractor: ", "dim")
            t.append(visible(", ".join((sl or d.left_only)[:8]), one_line=True) or "–", "red")
            t.append("   only in gold: ", "dim")
            t.append(visible(", ".join((sr or d.right_only)[:8]), one_line=True) or "–", "green")
        head.update(t)
        if d is not None:
            left.update(Group(Text(f"DISTRACTOR {m.doc_id}", "bold red"), diff_text(d.left)))
            right.update(Group(Text(f"GOLD {gold.doc_id}", "bold green"), diff_text(d.right)))

    def render_model(self) -> None:
        running = self.running
        s = self.session
        head = Text.assemble(("model ", "dim"), (visible(self.model), "bold"), (" (m: next)", "dim"), ("  tier ", "dim"),
                             (visible(self.tier), "bold"), "\n")
        for spec in TASKS.values():
            est = self.estimates.get(spec.name)
            head.append(f" {self.wb.user_keymap.get(f'inspector.{spec.name}', spec.key)} ", "reverse")
            head.append(f" {spec.label:<28}")
            if est is None:
                head.append("counting tokens…", "dim")
            elif est.tokens is None:
                head.append(f"unavailable: {visible(est.reason[:60], one_line=True)}", "yellow")
            else:
                head.append(f"{est.tokens:>7,} / {est.budget:,} tokens ", "")
                head.append("fits" if est.fits else "does not fit", "green" if est.fits else "red")
            head.append("\n")
        if running:
            head.append(f"running {running}… {time.monotonic() - self.run_started:.0f} s (x to cancel)\n", "yellow")
        self.query_one("#model-head", Static).update(head)
        results = s.model_results.get((self.query_id, self.tier), {})
        if not results:
            self.query_one("#model-results", Static).update(Text("No model results for this query on this tier yet.", "dim"))
            return
        gold = set(self.q.gold_doc_ids)
        parts = []
        for system, ev in sorted(results.items()):
            t = Text()
            t.append(visible(system_label(system)), "bold")
            t.append(f"  ({ev.task}{', cached' if ev.cached else ''})\n", "dim")
            if not ev.fits:
                t.append(f"does not fit: {visible(ev.note)}\n", "red")
                parts.append(t)
                continue
            if TASKS[ev.task].localizes:
                t.append("DocIDs: ")
                for i in ev.doc_ids:
                    t.append(f"{i} ", "bold green" if i in gold else "")
                if not ev.doc_ids:
                    t.append("none extracted (recall 0)", "red")
                found = len(gold & set(ev.doc_ids))
                t.append(f"  → {found}/{len(gold)} gold\n", "green" if found == len(gold) else "yellow")
                t.append(f"raw: {visible(ev.answer.strip()[:200])}\n", "dim")
            else:
                t.append("answer: ")
                t.append(f"{visible(ev.answer.strip()[:400])}\n", "bold")
                if ev.judge_score is not None:
                    score_style = "green" if ev.judge_score >= 4 else "yellow" if ev.judge_score >= 2 else "red"
                    t.append("judge: ")
                    t.append(f"{ev.judge_score:g}/5", f"bold {score_style}")
                    if ev.judge_trusted is False:
                        t.append("*  (this judge failed its calibration: its score is not evidence)", "yellow")
                    elif ev.judge_trusted is None:
                        t.append("†  (judge not calibrated yet)", "dim")
                    t.append("\n")
                    if ev.judge_reason:
                        t.append(f"  {visible(ev.judge_reason[:300], one_line=True)}\n", "dim")
                if ev.correct is not None:
                    t.append(f"exact {'yes' if ev.exact else 'no'} · contains {'yes' if ev.contains else 'no'} · "
                             f"token F1 {ev.f1:.2f}  →  ")
                    t.append("right" if ev.correct else "wrong", "bold green" if ev.correct else "bold red")
                    t.append(f"  ({visible(ev.basis, one_line=True)})\n", "dim")
            if ev.note:
                t.append(f"{visible(ev.note)}\n", "yellow")
            parts.append(t)
        self.query_one("#model-results", Static).update(Group(*parts))


LABEL_KEYS = "G gold · H hard neg · N not relevant · A answer · u undo"


def _cut(text: str, width: int, style: str) -> Text:
    """One line of at most ``width`` cells, an ellipsis where it was cut."""
    return Text(text if len(text) <= width else text[: width - 1] + "…", style)
