"""The main screen: project overview, query list, diagnosis — one tab each."""

from __future__ import annotations

from functools import partial

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Input, Static, TabbedContent, TabPane
from textual.worker import Worker

from screens import messages as m
from screens.base import PaletteCommand, WorkbenchScreen
from screens.render import VERDICT_STYLE, bar, figure_glyph, fmt
from workbench.safe_text import as_text, visible
from screens.widgets import KeyFooter, TaskBar, WorkbenchHeader
from workbench import session as core
from workbench.session import FILTER_WORDS, Session, UseRow

SORTS = ("ladder", "breaks")
NO_SWEEPS = "No sweeps yet: run `workbench sweep volume PROJECT` (or depth, distribution; --dry-run first) and reopen."

VERDICT_FILTERS = "v:" + "|".join(w for w in FILTER_WORDS if w != "notyet")  # every v: word, from its one home


class MainScreen(WorkbenchScreen):
    AUTO_FOCUS = "#query-table"
    BINDINGS = [
        # first, so that f1 heads the footer and stays in view at 80 columns (the app's own f1 is the same)
        Binding("f1", "app.help", "Help", id="main.help"),
        Binding("1", "tab('overview')", "Overview", id="main.overview", show=False),
        Binding("2", "tab('queries')", "Queries", id="main.queries", show=False),
        Binding("3", "tab('diagnosis')", "Diagnosis", id="main.diagnosis", show=False),
        Binding("4", "tab('sweeps')", "Sweeps", id="main.sweeps", show=False),
        Binding("slash", "focus_filter", "Filter", id="main.filter"),
        Binding("s", "cycle_sort", "Sort", id="main.sort"),
        Binding("y", "cycle_system", "System", id="main.system"),
        Binding("a", "add_query", "Add query", id="main.add_query"),
        Binding("r", "export_report", "Report", id="main.report"),
        Binding("t", "try_fix", "Try fix", id="main.try_fix", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.sort = "ladder"
        self._system: str | None = None  # the user's choice (y); default: the session's best retriever

    @property
    def session(self) -> Session | None:
        return self.wb.session

    @property
    def system(self) -> str:
        """Whose access figures the query list shows: the verdict system's retriever (y switches both)."""
        if self._system is not None:
            return self._system
        return core.figures_system(self.session) if self.session else core.preferred()[0]

    def compose(self) -> ComposeResult:
        yield WorkbenchHeader()
        with TabbedContent(initial="queries", id="tabs"):
            with TabPane("Overview", id="overview"):
                with VerticalScroll(id="overview-scroll"):
                    yield Static("Loading project…", id="overview-body")
                    yield Static("", id="insight-body")  # effective corpus size, position effects (refresh_insight)
            with TabPane("Queries", id="queries"):
                with Vertical():
                    yield Input(placeholder="filter: words  d:domain  multi|single|unlabelled  fail:TIER  fail  v:access|access?|use|both|pass|lost|… (f1: every word)",
                                id="filter")
                    yield Static("", id="query-legend")
                    yield DataTable(id="query-table", cursor_type="row", zebra_stripes=True)
            with TabPane("Diagnosis", id="diagnosis"):
                with VerticalScroll(id="diagnosis-scroll"):
                    yield Static("Waiting for access results…", id="diagnosis-body")
            with TabPane("Sweeps", id="sweeps"):
                with VerticalScroll(id="sweeps-scroll"):
                    yield Static(NO_SWEEPS, id="sweeps-body")
        yield TaskBar()
        yield KeyFooter()

    def on_mount(self) -> None:
        table = self.query_one("#query-table", DataTable)
        table.add_columns("query", "dom", "S/M", "verdict", "tiers", "breaks", "text")  # the verdict stays in view at 80 columns
        table.focus()
        self.refresh_all()

    def on_resize(self) -> None:
        self.refresh_queries()  # the legend is shorter on a short terminal

    def palette_commands(self) -> list[PaletteCommand]:
        cmds: list[PaletteCommand] = []
        for tab in ("overview", "queries", "diagnosis"):
            cmds.append((f"Show {tab}", partial(self.action_tab, tab), f"switch to the {tab} tab"))
        cmds.append(("Sort queries by where they break", self.action_cycle_sort, "toggle ladder order / breaks"))
        cmds.append(("Filter: failing multi-source queries", partial(self.palette_filter, "multi fail"), "set the filter"))
        fix = core.first_runnable_fix(self.session) if self.session else None
        if fix is not None:
            cmds.append((f"Try the fix: {fix.system}", self.action_try_fix,
                         f"{fix.command} — then its measured effect in the Diagnosis tab; x cancels"))
        n = self.query_one("#query-table", DataTable).row_count
        for task in ("oracle", "qa", "rag"):
            cmds.append((f"Batch: {core.TASKS[task].label} on the {n} queries of this filter", partial(self.action_batch, task),
                         "each on its smallest tier; progress below, x cancels, the same entry resumes"))
        return cmds

    def action_batch(self, task: str) -> None:
        if self.session is None or self.session.tierset is None:
            self.notify("Build the tiers and indexes first (Ctrl+B).", severity="warning")
            return
        ids = [str(k.value) for k in self.query_one("#query-table", DataTable).rows]
        if not ids:
            self.notify("the filter matches no query", timeout=3)
            return
        self.wb.run_batch(ids, task)

    # ------------------------------------------------------------------ actions

    def action_tab(self, tab: str) -> None:
        # Focus moves with the tab: a focused widget left in a hidden pane would pull the tab back.
        self.query_one("#tabs", TabbedContent).active = tab
        target = {"queries": "#query-table", "overview": "#overview-scroll", "diagnosis": "#diagnosis-scroll",
                  "sweeps": "#sweeps-scroll"}[tab]
        self.query_one(target).focus()

    def palette_filter(self, text: str) -> None:
        """The palette's filter entry: the query list, filtered by ``text`` (if this screen is still shown)."""
        if self.app.screen is self:
            self.action_tab("queries")
            self.query_one("#filter", Input).value = text

    def action_focus_filter(self) -> None:
        self.action_tab("queries")
        self.query_one("#filter", Input).focus()

    def action_cycle_sort(self) -> None:
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        self.notify(f"sorted by {'where it breaks' if self.sort == 'breaks' else 'ladder order'}", timeout=2)
        self.refresh_queries()

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
            self._system = None
            self.wb.refresh_verdicts()
            self.notify(f"verdicts and figures of {core.verdict_system(s)} ({core.figures_system(s)} rankings)", timeout=3,
                        markup=False)
        elif s.systems:  # no verdicts yet: the figures alone
            i = s.systems.index(self.system) if self.system in s.systems else -1
            self._system = s.systems[(i + 1) % len(s.systems)]
            self.refresh_queries()

    def action_add_query(self) -> None:
        from screens.triage_forms import AddQueryModal, NewQuery

        if self.session is None or self.session.tierset is None:
            self.notify("Build the tiers and indexes first (Ctrl+B).", severity="warning")
            return

        def submitted(new: NewQuery | None) -> None:
            if new is not None:
                self.add_query(new.text, new.answer, new.gold, new.domain)

        self.app.push_screen(AddQueryModal(), submitted)

    @work(thread=True, exclusive=True, exit_on_error=False, group="add_query")
    def add_query(self, text: str, answer: str, gold: list[str], domain: str | None = None) -> None:
        """Add it, run every retriever on every tier, then open it in the inspector."""
        change = core.add_query_from_log(self.wb.current, text, answer, gold, self.wb.progress_reporter("adding the query: "),
                                         domain=domain)
        self.post_message(m.LabelsChanged(change, opened=True))

    def action_export_report(self) -> None:
        if self.session is None or self.session.tierset is None:
            self.notify("Nothing to report yet.", severity="warning")
            return
        self.export_report()

    @work(thread=True, exclusive=True, exit_on_error=False, group="export")
    def export_report(self) -> None:
        s = self.wb.current
        paths = core.export_report(s, self.wb.export_dir or (s.root / "reports"))
        self.app.call_from_thread(self.notify, "\n".join(str(p) for p in paths), title="Diagnosis report written",
                                  timeout=8, markup=False)

    def action_try_fix(self) -> None:
        """Run the Diagnosis tab's first runnable recommendation (a rerank, or fine-tuning) in the background."""
        fix = core.first_runnable_fix(self.session) if self.session else None
        if fix is None:
            self.notify("No recommendation runs from here yet: configure a [rerankers.NAME] (README: Trying a fix), "
                        "or wait for the diagnosis.", severity="warning", markup=False)
            return
        self.action_tab("diagnosis")
        self.try_fix(fix)

    @work(thread=True, exclusive=True, exit_on_error=False, group="fix")
    def try_fix(self, fix: core.RunnableFix) -> None:
        s = self.wb.current
        recs = core.run_fix(s, fix, self.wb.progress_reporter(f"trying {fix.system}: "))
        tried = next((r.fix for r in recs if r.fix is not None and r.fix.system == fix.system), None)
        self.app.call_from_thread(self.refresh_diagnosis)
        self.app.call_from_thread(self.notify, (tried.effect if tried else None) or "stored; no paired queries to judge it on yet",
                                  title=f"{fix.system} measured", timeout=10, markup=False)

    @work(thread=True, exclusive=True, exit_on_error=False, group="recommend")
    def load_recommendations(self) -> None:
        core.load_recommendations(self.wb.current)
        self.app.call_from_thread(self.refresh_diagnosis)

    @on(Worker.StateChanged)
    def _worker_state(self, event: Worker.StateChanged) -> None:
        """This screen's workers (add query, export, fix) go through the app's one place, as the inspector's do."""
        event.stop()
        self.wb.track_worker(event.worker, event.state)

    @on(Input.Changed, "#filter")
    def _filter_changed(self) -> None:
        self.refresh_queries()

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self) -> None:
        self.query_one("#query-table").focus()

    @on(DataTable.RowSelected, "#query-table")
    def _open_query(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.wb.open_query(event.row_key.value)

    # ------------------------------------------------------------------ refresh

    def refresh_all(self) -> None:
        self.refresh_overview()
        self.refresh_queries()
        self.refresh_diagnosis()
        self.refresh_sweeps()
        self.refresh_insight()

    def refresh_insight(self) -> None:
        """The sharper diagnosis' lines under the overview, from stored results, off the UI thread."""
        if self.session is not None:
            self.run_worker(self._load_insight(self.session), group="insight", exclusive=True, exit_on_error=False)

    async def _load_insight(self, session: Session) -> None:
        import asyncio

        lines = await asyncio.to_thread(core.insight_overview, session)
        self.query_one("#insight-body", Static).update(
            Text.assemble(("Effective corpus size and position\n", "bold"), *(as_text(f"{line}\n") for line in lines)) if lines else "")

    def refresh_sweeps(self) -> None:
        if self.session is not None:
            self.run_worker(self._load_sweeps(self.session), group="sweeps", exclusive=True, exit_on_error=False)

    async def _load_sweeps(self, session: Session) -> None:
        import asyncio

        from rich.console import Group

        panels = await asyncio.to_thread(core.sweep_panels, session)  # file reads and resampling, off the UI thread
        self.query_one("#sweeps-body", Static).update(Group(*panels) if panels else NO_SWEEPS)

    def refresh_overview(self) -> None:
        s = self.session
        body = self.query_one("#overview-body", Static)
        if s is None:
            return
        p = s.project
        multi = sum(q.is_multi_source for q in p.queries)
        head = Text.assemble(
            as_text(p.config.name, "bold", one_line=True), f"  ·  {visible(str(s.root))}\n",
            f"{len(p.documents):,} documents · {len(p.queries)} queries ({len(p.queries) - multi} single-source, {multi} multi-source) · "
            f"{len(p.domains)} domain(s) · query set {p.corpus_hash()[:12]}\n",
        )
        tiers = Table(title="Tiers", title_justify="left", expand=True)
        for c in ("tier", "docs", "tokens", "domains", "queries", "sparse", "dense"):
            tiers.add_column(c, justify="right" if c in ("docs", "tokens", "queries") else "left", no_wrap=c == "tier")
        models = s.models()
        for name, _ in models:
            tiers.add_column(f"fits {name}", justify="center")
        if s.tierset is None:
            tiers.add_row("[yellow]no tiers yet[/]", "", "", "", "", "", "")
        window_budget = core.window_budget
        for t in s.tiers:
            st = core.index_status(p, t)
            doms = ", ".join(t.domains) if len(t.domains) <= 2 else f"{len(t.domains)} domains"
            fits = [
                Text("yes", "green") if t.tokens + cfg.max_tokens + 400 <= window_budget(cfg) else Text("no", "red")
                for _, cfg in models
            ]
            tiers.add_row(as_text(t.name), f"{len(t.doc_ids):,}", f"{t.tokens:,}", as_text(doms), str(len(t.query_ids)),
                          _status(st["sparse"]), _status(st["dense"]), *fits)
        mt = Table(title="Models", title_justify="left", expand=True)
        for c in ("model", "endpoint", "window", "usable", "answer budget"):
            mt.add_column(c)
        for name, cfg in models:
            mt.add_row(as_text(name), as_text(cfg.base_url or "embedded llama.cpp (SmolLM2), started on first use"),
                       f"{cfg.context_window:,}", f"{window_budget(cfg):,}", str(cfg.max_tokens))
        from rich.console import Group

        note = Text("Fits = tier tokens + ~400 prompt tokens + answer budget within the usable window (estimate; "
                    "the model panel counts the exact prompt).", style="dim")
        body.update(Group(head, tiers, mt, note))

    @staticmethod
    def filter_problems(s: Session, words: list[str]) -> list[str]:
        """Why a filter word can match nothing (a domain or tier that does not exist): said, not
        silently answered with 0 queries."""
        out = []
        domains = s.project.domains
        for w in words:
            lw = w.lower()
            if lw.startswith("d:") and not any(lw[2:] in d.lower() for d in domains):
                out.append(f"no domain matches {w[2:]!r} (domains: {', '.join(domains)})")
            elif lw.startswith("fail:") and not any(lw[5:] in t.name.lower() for t in s.tiers):
                out.append(f"no tier matches {w[5:]!r} (tiers: {', '.join(t.name for t in s.tiers)})")
            elif lw.startswith("v:") and lw[2:] not in core.FILTER_WORDS:
                out.append(f"no verdict word {w[2:]!r} (v: takes {', '.join(sorted(core.FILTER_WORDS))})")
            elif lw.startswith("v:") and s.diagnosis is None and lw[2:] != core.UNJUDGED_WORD:
                out.append("no verdicts yet: v: filters once the diagnosis is computed")
        return [visible(x, one_line=True) for x in out]

    def _matches(self, s: Session, q: core.Query, words: list[str]) -> bool:
        for w in words:
            lw = w.lower()
            if lw == "multi":
                if not q.is_multi_source:
                    return False
            elif lw == "single":
                if q.is_multi_source or not q.is_labelled:
                    return False
            elif lw == "unlabelled":
                if q.is_labelled:
                    return False
            elif lw.startswith("d:"):
                if lw[2:] not in q.domain.lower():
                    return False
            elif lw == "fail":
                if s.breaks_at(self.system, q) is None:
                    return False
            elif lw == f"v:{core.UNJUDGED_WORD}":  # not a verdict: an answer-bearing unjudged document
                if not core.has_answer_bearing_unjudged(s, q.query_id):
                    return False
            elif lw.startswith("v:"):
                v = s.diagnosis.summary(q.query_id, core.verdict_system(s)) if s.diagnosis else None
                if v is None or v.verdict not in core.FILTER_WORDS.get(lw[2:], ()):
                    return False
            elif lw.startswith(("run:", "from:")):  # imported runs and traces (core.query_sources)
                if lw not in core.query_sources(s.project).get(q.query_id, ()):
                    return False
            elif lw.startswith("fail:"):
                # only the query's own tiers: fail:base is its own domain's base tier, not the others'
                names = [t.name for t in s.tiers if lw[5:] in t.name.lower() and q.query_id in t.query_ids]
                figs = [s.figure(self.system, n, q) for n in names]
                if not any(f is not None and f < 1.0 for f in figs):
                    return False
            elif lw not in f"{q.query_id} {q.query} {q.answer}".lower():
                return False
        return True

    def refresh_queries(self) -> None:
        s = self.session
        table = self.query_one("#query-table", DataTable)
        if s is None:
            return
        words = self.query_one("#filter", Input).value.split()
        queries = [q for q in s.project.queries if self._matches(s, q, words)]
        if self.sort == "breaks":
            n = len(s.tiers)
            queries.sort(key=lambda q: (b if (b := s.breaks_at(self.system, q)) is not None else n + 1, q.query_id))
        current = table.cursor_row
        table.clear()
        tiers = s.tiers
        for q in queries:
            glyphs = Text()
            for t in tiers:
                glyphs.append_text(figure_glyph(s.figure(self.system, t.name, q)) if q.query_id in t.query_ids else Text("·", "dim"))
            b = s.breaks_at(self.system, q)
            breaks = as_text(tiers[b].name, "red") if b is not None else Text("–" if s.per_query else "…", "dim")
            # IDs and domains whole (technology-07 … -10 must stay apart); the query text takes the rest
            table.add_row(
                as_text(q.query_id, one_line=True), as_text(q.domain or "–", one_line=True),
                "M" if q.is_multi_source else "S" if q.is_labelled else "U",
                verdict_cell(s, q.query_id), glyphs, breaks, Text(visible(q.query, one_line=True), no_wrap=True, overflow="ellipsis"), key=q.query_id,
            )
        if queries:
            table.move_cursor(row=min(max(current, 0), len(queries) - 1))
        problems = self.filter_problems(s, words)
        building = self.wb.build_note()
        stand_ins = s.stand_ins(self.system)
        legend = Text.assemble(
            *[(f"filter: {p}\n", "bold red") for p in problems],
            (f"{building}\n" if building else "", "yellow"),
            (f"{len(queries)}/{len(s.project.queries)} queries", "bold"), f" · system {self.system} (y) · sort {self.sort} (s) · ",
            # every tier, numbered as the glyph columns are (the legend wraps rather than hides tiers;
            # a short terminal keeps its rows for queries: the Overview tab names the tiers)
            ("tiers " + " ".join(f"{i + 1}={visible(t.name, one_line=True)}" for i, t in enumerate(tiers))
             if self.app.size.height >= 32 else f"tiers 1–{len(tiers)} in ladder order (1: Overview names them)"),
            ("  ● all gold in top 10 ◐ some ○ none", "dim"),
            # every v: word where they fit one line; a narrow terminal keeps that row for a query
            (f" · verdicts of {core.verdict_system(s)} "
             + (f"({VERDICT_FILTERS})" if self.app.size.width >= 100 else "(v: words: f1)") if s.diagnosis else "", "dim"),
            (f"\nuntil {self.system} is ready there: " + stand_in_text(stand_ins, [t.name for t in tiers])
             if stand_ins else "", "yellow"),
        )
        self.query_one("#query-legend", Static).update(legend)

    def refresh_diagnosis(self) -> None:
        s = self.session
        body = self.query_one("#diagnosis-body", Static)
        if s is None or not s.results:
            body.update("Waiting for access results…" if s is None or s.tierset else "Build tiers and indexes first (Ctrl+B).")
            return
        from rich.console import Group

        by = {(r.system, r.tier): r.summary for r in s.results}
        systems = [x for x in s.systems]
        t = Table(title="Access (K=10) and use per tier", title_justify="left", expand=True)
        t.add_column("tier", no_wrap=True)
        for sys_ in systems:
            t.add_column(f"{sys_}\nSR/FR", justify="right", no_wrap=True)
        t.add_column("SR−FR\n(best)", justify="right")
        t.add_column("QA", justify="right")
        t.add_column("oracle", justify="right")
        use = s.use.rows if s.use else {}
        chart = Text()
        label_width = max((len(visible(t.name, one_line=True)) for t in s.tiers), default=4)
        best_sys = max(systems, key=lambda x: sum(sm.fr_at_k or 0.0 for tt in s.tiers if (sm := by.get((x, tt.name)))),
                       default=None)
        for tier in s.tiers:
            cells = []
            for sys_ in systems:
                sm = by.get((sys_, tier.name))
                cells.append("–" if sm is None else f"{fmt(sm.sr_at_k)}/{fmt(sm.fr_at_k)}")
            best = by.get((best_sys, tier.name)) if best_sys else None
            qa, oracle = _use_figures(use.get(tier.name, {}))
            t.add_row(as_text(tier.name), *cells, fmt(best.multi_gap) if best else "–", qa, oracle)
            chart.append(f"{visible(tier.name, one_line=True):<{label_width}} ")  # whole names: the width is theirs
            chart.append_text(bar(best.sr_at_k if best else None, 18, "cyan"))
            chart.append(" ")
            chart.append_text(bar(best.fr_at_k if best else None, 18, "magenta"))
            chart.append(" ")
            q = _use_value(use.get(tier.name, {}), "qa")
            chart.append_text(bar(None if q is None else q / 5, 18, "green"))
            chart.append("\n")
        legend = Text.assemble(("Chart", "bold"), f" ({best_sys}): ", ("SR@10", "cyan"), " · ", ("FR@10", "magenta"),
                               " · ", ("QA/5", "green"), "\n")
        parts: list[RenderableType] = [*verdict_section(s), t, legend, chart]
        if s.diagnosis is not None and core.shown_recommendations(s) is None:
            self.load_recommendations()  # the verdict system changed (y) or the diagnosis is new
        if any(_distrusted(row, task) for row in use.values() for task in ("qa", "oracle")):
            parts.append(Text("* judged by a judge that cannot tell right answers from wrong ones (calibration "
                              "failed): treat these QA figures as noise; set a capable `judge` in workbench.toml.",
                              style="yellow"))
        body.update(Group(*parts))


def stand_in_text(stand_ins: dict[str, str], tiers: list[str]) -> str:
    """"bm25 stands in on tiers 2, 4, 6–20" (numbered as the glyph columns are)."""
    by: dict[str, list[int]] = {}
    for name, other in stand_ins.items():
        by.setdefault(other, []).append(tiers.index(name) + 1)
    parts = []
    for other, numbers in by.items():
        runs: list[list[int]] = []
        for n in sorted(numbers):
            if runs and n == runs[-1][-1] + 1:
                runs[-1].append(n)
            else:
                runs.append([n])
        spans = ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs)
        parts.append(f"{other} stands in on tier{'s' if len(numbers) > 1 else ''} {spans}")
    return "; ".join(parts)


def _status(s: str) -> Text:
    return Text(s, "green" if s == "ok" else "yellow")


def _use_value(row: dict[str, UseRow], task: str) -> float | None:
    vals = [v.QA for v in row.values() if v.QA is not None and v.task == task]
    return max(vals) if vals else None


def _distrusted(row: dict[str, UseRow], task: str) -> bool:
    """Scored by a judge that failed its calibration (cannot tell right answers from wrong)."""
    return any(v.distrusted and v.task == task for v in row.values())


def _use_figures(row: dict[str, UseRow]) -> tuple[str, str]:
    qa, oracle = _use_value(row, "qa"), _use_value(row, "oracle")
    marked_oracle = fmt(oracle) + ("*" if oracle is not None and _distrusted(row, "oracle") else "")
    if qa is None and any(not v.fits and v.task == "qa" for v in row.values()):
        return "no fit", marked_oracle
    return fmt(qa) + ("*" if qa is not None and _distrusted(row, "qa") else ""), marked_oracle


def verdict_cell(s: Session, query_id: str) -> Text:
    """The query list's verdict: the first failing tier's, else PASS, else NOT-YET (workbench.diagnosis.live)."""
    v = s.diagnosis.summary(query_id, core.verdict_system(s)) if s.diagnosis else None
    if v is None:
        return Text("…", "dim")
    return Text(v.verdict if v.verdict != "USE-UNDER-DISTRACTORS" else "USE-DISTR", VERDICT_STYLE[v.verdict])


def verdict_section(s: Session) -> list[RenderableType]:
    """The diagnosis' verdicts: the primary system's reading per tier level, its rule, the recommendations."""
    d, system = s.diagnosis, core.verdict_system(s)
    if d is None or system is None:
        return [Text("Verdicts: computing…", "dim")]
    readings = d.readings(system)
    if not readings:
        return [Text(f"Verdicts of {system}: none yet", "dim")]
    overall = readings[-1]
    head = Text.assemble(("Diagnosis ", "bold"), (visible(system, one_line=True), "bold cyan"), " is ", (overall.reading, "bold yellow"),
                         f" ({overall.decided} decided verdicts of {sum(overall.counts.values())})\n", (overall.rule, "dim"))
    t = Table(title="Verdicts per tier level (query × tier; rule table in README / report)", title_justify="left", expand=True)
    t.add_column("level", no_wrap=True)
    for v in core.VERDICTS:
        t.add_column(v if v != "USE-UNDER-DISTRACTORS" else "USE-DISTR", justify="right")
    t.add_column("reading")
    for r in readings:
        t.add_row(as_text(r.level, one_line=True), *(str(r.counts.get(v, 0)) for v in core.VERDICTS), r.reading)
    recs = recommendations_text(s, overall.recommendations)
    recs.append("r: export the report (Markdown, self-contained HTML, JSON)\n", "dim")
    return [head, t, recs]


def recommendations_text(s: Session, texts: list[str]) -> Text:
    """The recommendations in order, each access fix with its command, its judge and, once tried,
    its measured effect; the key that runs the first runnable one."""
    shown = core.shown_recommendations(s)
    recs = Text("Recommendations (access first):\n", "bold")
    for i, rec in enumerate(shown if shown is not None else [core.Recommendation(x) for x in texts], 1):
        recs.append(f"  {i}. {visible(rec.text)}\n", "")
        for line in rec.lines:
            measured = line.startswith("measured:") and not line.endswith("is not stored)")
            recs.append(f"     {visible(line)}\n", "bold green" if measured else "dim")
    if not texts:
        recs.append("  none: nothing decided fails\n", "dim")
    fix = core.first_runnable_fix(s)
    if fix is not None:
        recs.append("t", "bold")
        recs.append(f": try {visible(fix.system, one_line=True)} on {visible(', '.join(fix.tiers), one_line=True)} "
                    f"({core.fix_cost(s, fix)})\n")
    elif shown and any(r.fix is not None and r.fix.kind == "rerank" for r in shown):
        recs.append("t: runs a rerank once a [rerankers.NAME] is configured in workbench.toml\n", "dim")
    return recs
