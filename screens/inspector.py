"""The query inspector: rankings per system on a tier, the near-miss stepper, the model panel.

The screen owns its workers (inspect, estimate, model run, export): they call the application
layer and post typed messages back to this screen; their outcomes go to the app's one handler.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static, TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from screens import messages as m
from screens.render import KIND_LABEL, KIND_STYLE, diff_text, figure_glyph, rank_text
from screens.widgets import TaskBar
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
        Binding("left_square_bracket", "tier(-1)", "Prev tier", id="inspector.prev_tier"),
        Binding("right_square_bracket", "tier(1)", "Next tier", id="inspector.next_tier"),
        Binding("n", "step(1)", "Next near miss", id="inspector.next_miss"),
        Binding("p", "step(-1)", "Prev near miss", id="inspector.prev_miss"),
        Binding("1", "tab('rankings')", "Rankings", id="inspector.rankings", show=False),
        Binding("2", "tab('nearmiss')", "Near misses", id="inspector.nearmiss", show=False),
        Binding("3", "tab('model')", "Model", id="inspector.model", show=False),
        Binding("m", "cycle_model", "Model", id="inspector.cycle_model", show=False),
        *task_bindings(),
        Binding("e", "export", "Export", id="inspector.export"),
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
        yield Footer()

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

    @on(Worker.StateChanged)
    def _worker_state(self, event: Worker.StateChanged) -> None:
        event.stop()
        self.wb.track_worker(event.worker, event.state)
        ended = event.state in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED)
        if event.worker.group == "model" and ended and self.is_attached:
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
        self.render_model(running=None if msg.final else (ev.task if ev else None))
        if msg.final:
            self.wb.refresh_use()

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
        self.render_model(running=task)

    def action_export(self) -> None:
        self.export_evidence()

    def switch_tier(self, name: str) -> None:
        if name in self.tiers:
            self.tier = name
            self.load()

    # ------------------------------------------------------------------ rendering

    def render_head(self) -> None:
        s, q = self.session, self.q
        gold = ", ".join(f"{g} {s.project.documents[g].title}" for g in sorted(q.gold_doc_ids))
        head = Text.assemble(
            (f"{q.query_id} ", "bold"), ("multi" if q.is_multi_source else "single", "magenta"), "  ", q.query, "\n",
            ("answer ", "dim"), (q.answer, "bold"), ("   gold ", "dim"), (gold, "green"), "\n",
        )
        head.append("tier ", "dim")
        for name in self.tiers:
            style = "reverse bold" if name == self.tier else ""
            head.append(f" {name} ", style)
            head.append_text(figure_glyph(s.figure(s.best_retriever, name, q) if s.per_query else None))
        head.append("   [ ] to switch", "dim")
        self.query_one("#q-head", Static).update(head)

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
                title = (f"{label} " if label else "") + r.title
                t.add_row(Text(str(r.rank), style), Text(str(r.doc_id), style), Text(title[:28], style),
                          Text(f"{r.score:.3f}", style), key=f"{r.rank}:{r.doc_id}")
            for g, rank in sr.gold_ranks.items():
                if rank is None or rank > ins.k:
                    title = self.session.project.documents[g].title
                    t.add_row(rank_text(rank, ins.k, sr.depth), Text(str(g), "green"),
                              Text(f"GOLD {title}"[:28], "green italic"), Text("", ""), key=f"out:{g}")
        tbl = Table.grid(padding=(0, 1))
        tbl.add_column(style="green", no_wrap=True)
        for sr in ins.systems:
            tbl.add_column(no_wrap=True)
        tbl.add_row(Text("gold rank", "dim"), *[Text(system_label(sr.system)[:14], "bold") for sr in ins.systems])
        for g in ins.gold:
            title = self.session.project.documents[g].title
            tbl.add_row(Text(f"{g} {title}"[:30]), *[rank_text(sr.gold_ranks.get(g), ins.k, sr.depth) for sr in ins.systems])
        n = len(ins.near_misses)
        foot = Text(f"{n} near miss(es) ranked above gold — n/p to step through them", "yellow" if n else "dim")
        self.query_one("#gold-ranks", Static).update(Group(tbl, foot))

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
            (f"Near miss {self.miss_index + 1}/{len(ins.near_misses)} ", "bold"), kind, " ", (f"{m.doc_id} {m.title}", "red"),
            "  ", (ranks, "yellow"), "\n",
            ("imitates gold ", "dim"), (f"{gold.doc_id} {gold.title}", "green"), (f"  overlap {m.similarity:.2f}", "dim"),
            ("  outranks gold " + ", ".join(str(g) for g in m.above_gold), "dim"),
        )
        if d is not None:
            sl, sr = salient_changes(d)
            t.append("\nonly in distractor: ", "dim")
            t.append(", ".join((sl or d.left_only)[:8]) or "–", "red")
            t.append("   only in gold: ", "dim")
            t.append(", ".join((sr or d.right_only)[:8]) or "–", "green")
        head.update(t)
        if d is not None:
            left.update(Group(Text(f"DISTRACTOR {m.doc_id}", "bold red"), diff_text(d.left)))
            right.update(Group(Text(f"GOLD {gold.doc_id}", "bold green"), diff_text(d.right)))

    def render_model(self, running: str | None = None) -> None:
        s = self.session
        head = Text.assemble(("model ", "dim"), (self.model, "bold"), (" (m: next)", "dim"), ("  tier ", "dim"), (self.tier, "bold"), "\n")
        for spec in TASKS.values():
            est = self.estimates.get(spec.name)
            head.append(f" {self.wb.user_keymap.get(f'inspector.{spec.name}', spec.key)} ", "reverse")
            head.append(f" {spec.label:<28}")
            if est is None:
                head.append("counting tokens…", "dim")
            elif est.tokens is None:
                head.append(f"unavailable: {est.reason[:60]}", "yellow")
            else:
                head.append(f"{est.tokens:>7,} / {est.budget:,} tokens ", "")
                head.append("fits" if est.fits else "does not fit", "green" if est.fits else "red")
            head.append("\n")
        if running:
            head.append(f"running {running}… (x to cancel)\n", "yellow")
        self.query_one("#model-head", Static).update(head)
        results = s.model_results.get((self.query_id, self.tier), {})
        if not results:
            self.query_one("#model-results", Static).update(Text("No model results for this query on this tier yet.", "dim"))
            return
        gold = set(self.q.gold_doc_ids)
        parts = []
        for system, ev in sorted(results.items()):
            t = Text()
            t.append(system_label(system), "bold")
            t.append(f"  ({ev.task}{', cached' if ev.cached else ''})\n", "dim")
            if not ev.fits:
                t.append(f"does not fit: {ev.note}\n", "red")
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
                t.append(f"raw: {ev.answer.strip()[:200]}\n", "dim")
            else:
                t.append("answer: ")
                t.append(f"{ev.answer.strip()[:400]}\n", "bold")
                if ev.judge_score is not None:
                    score_style = "green" if ev.judge_score >= 4 else "yellow" if ev.judge_score >= 2 else "red"
                    t.append("judge: ")
                    t.append(f"{ev.judge_score:g}/5", f"bold {score_style}")
                    t.append(f"  {ev.judge_reason[:300]}\n", "dim")
            if ev.note:
                t.append(f"{ev.note}\n", "yellow")
            parts.append(t)
        self.query_one("#model-results", Static).update(Group(*parts))

