"""The main screen: project overview, query list, diagnosis — one tab each."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Static, TabbedContent, TabPane

from screens.render import bar, figure_glyph, fmt
from screens.widgets import TaskBar
from workbench import session as core
from workbench.session import Session, UseRow

if TYPE_CHECKING:
    from screens.app import WorkbenchApp

SORTS = ("ladder", "breaks")
NO_SWEEPS = "No sweeps yet: run `workbench sweep volume PROJECT` (or depth, distribution; --dry-run first) and reopen."


class MainScreen(Screen):
    AUTO_FOCUS = "#query-table"
    BINDINGS = [
        Binding("1", "tab('overview')", "Overview", id="main.overview"),
        Binding("2", "tab('queries')", "Queries", id="main.queries"),
        Binding("3", "tab('diagnosis')", "Diagnosis", id="main.diagnosis"),
        Binding("4", "tab('sweeps')", "Sweeps", id="main.sweeps"),
        Binding("slash", "focus_filter", "Filter", id="main.filter"),
        Binding("s", "cycle_sort", "Sort", id="main.sort"),
        Binding("y", "cycle_system", "System", id="main.system"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.sort = "ladder"
        self._system: str | None = None  # the user's choice (y); default: the session's best retriever

    @property
    def wb(self) -> "WorkbenchApp":
        from screens.app import WorkbenchApp

        assert isinstance(self.app, WorkbenchApp)
        return self.app

    @property
    def session(self) -> Session | None:
        return self.wb.session

    @property
    def system(self) -> str:
        """Whose access figures the query list shows."""
        if self._system is not None:
            return self._system
        return self.session.best_retriever if self.session else core.preferred()[0]

    def compose(self) -> ComposeResult:
        yield Header()
        with TabbedContent(initial="queries", id="tabs"):
            with TabPane("Overview", id="overview"):
                with VerticalScroll(id="overview-scroll"):
                    yield Static("Loading project…", id="overview-body")
            with TabPane("Queries", id="queries"):
                with Vertical():
                    yield Input(placeholder="filter: words  d:domain  multi|single  fail:TIER  fail", id="filter")
                    yield Static("", id="query-legend")
                    yield DataTable(id="query-table", cursor_type="row", zebra_stripes=True)
            with TabPane("Diagnosis", id="diagnosis"):
                with VerticalScroll(id="diagnosis-scroll"):
                    yield Static("Waiting for access results…", id="diagnosis-body")
            with TabPane("Sweeps", id="sweeps"):
                with VerticalScroll(id="sweeps-scroll"):
                    yield Static(NO_SWEEPS, id="sweeps-body")
        yield TaskBar()
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#query-table", DataTable)
        table.add_columns("query", "dom", "S/M", "tiers", "breaks", "text")
        table.focus()
        self.refresh_all()

    # ------------------------------------------------------------------ actions

    def action_tab(self, tab: str) -> None:
        # Focus moves with the tab: a focused widget left in a hidden pane would pull the tab back.
        self.query_one("#tabs", TabbedContent).active = tab
        target = {"queries": "#query-table", "overview": "#overview-scroll", "diagnosis": "#diagnosis-scroll",
                  "sweeps": "#sweeps-scroll"}[tab]
        self.query_one(target).focus()

    def action_focus_filter(self) -> None:
        self.action_tab("queries")
        self.query_one("#filter", Input).focus()

    def action_cycle_sort(self) -> None:
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        self.notify(f"sorted by {'where it breaks' if self.sort == 'breaks' else 'ladder order'}", timeout=2)
        self.refresh_queries()

    def action_cycle_system(self) -> None:
        systems = self.session.systems if self.session else []
        if systems:
            i = systems.index(self.system) if self.system in systems else -1
            self._system = systems[(i + 1) % len(systems)]
            self.refresh_queries()

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
            (p.config.name, "bold"), f"  ·  {s.root}\n",
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
            tiers.add_row(t.name, f"{len(t.doc_ids):,}", f"{t.tokens:,}", doms, str(len(t.query_ids)),
                          _status(st["sparse"]), _status(st["dense"]), *fits)
        mt = Table(title="Models", title_justify="left", expand=True)
        for c in ("model", "endpoint", "window", "usable", "answer budget"):
            mt.add_column(c)
        for name, cfg in models:
            mt.add_row(name, cfg.base_url or "embedded llama.cpp (SmolLM2), started on first use",
                       f"{cfg.context_window:,}", f"{window_budget(cfg):,}", str(cfg.max_tokens))
        from rich.console import Group

        note = Text("Fits = tier tokens + ~400 prompt tokens + answer budget within the usable window (estimate; "
                    "the model panel counts the exact prompt).", style="dim")
        body.update(Group(head, tiers, mt, note))

    def _matches(self, s: Session, q: core.Query, words: list[str]) -> bool:
        for w in words:
            lw = w.lower()
            if lw == "multi":
                if not q.is_multi_source:
                    return False
            elif lw == "single":
                if q.is_multi_source:
                    return False
            elif lw.startswith("d:"):
                if lw[2:] not in q.domain.lower():
                    return False
            elif lw == "fail":
                if s.breaks_at(self.system, q) is None:
                    return False
            elif lw.startswith("fail:"):
                names = [t.name for t in s.tiers if lw[5:] in t.name.lower()]
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
            breaks = Text(tiers[b].name, "red") if b is not None else Text("–" if s.per_query else "…", "dim")
            table.add_row(
                Text(q.query_id[:12]), q.domain[:8] or "–", "M" if q.is_multi_source else "S", glyphs, breaks,
                Text(q.query, no_wrap=True, overflow="ellipsis"), key=q.query_id,
            )
        if queries:
            table.move_cursor(row=min(max(current, 0), len(queries) - 1))
        legend = Text.assemble(
            (f"{len(queries)}/{len(s.project.queries)} queries", "bold"), f" · system {self.system} (y) · sort {self.sort} (s) · ",
            "tiers " + " ".join(f"{i + 1}={t.name}" for i, t in enumerate(tiers[:6])) + (" …" if len(tiers) > 6 else ""),
            ("  ● all gold in top 10 ◐ some ○ none", "dim"),
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
        best_sys = max(systems, key=lambda x: sum(sm.fr_at_k or 0.0 for tt in s.tiers if (sm := by.get((x, tt.name)))),
                       default=None)
        for tier in s.tiers:
            cells = []
            for sys_ in systems:
                sm = by.get((sys_, tier.name))
                cells.append("–" if sm is None else f"{fmt(sm.sr_at_k)}/{fmt(sm.fr_at_k)}")
            best = by.get((best_sys, tier.name)) if best_sys else None
            qa, oracle = _use_figures(use.get(tier.name, {}))
            t.add_row(tier.name, *cells, fmt(best.multi_gap) if best else "–", qa, oracle)
            chart.append(f"{tier.name[:14]:<14} ")
            chart.append_text(bar(best.sr_at_k if best else None, 18, "cyan"))
            chart.append(" ")
            chart.append_text(bar(best.fr_at_k if best else None, 18, "magenta"))
            chart.append(" ")
            q = _use_value(use.get(tier.name, {}), "qa")
            chart.append_text(bar(None if q is None else q / 5, 18, "green"))
            chart.append("\n")
        legend = Text.assemble(("Chart", "bold"), f" ({best_sys}): ", ("SR@10", "cyan"), " · ", ("FR@10", "magenta"),
                               " · ", ("QA/5", "green"), "\n")
        reading = Text(_provisional_reading(s, best_sys, by, use), style="italic")
        parts: list[RenderableType] = [t, legend, chart]
        if any(_distrusted(row, task) for row in use.values() for task in ("qa", "oracle")):
            parts.append(Text("* judged by a judge that cannot tell right answers from wrong ones (calibration "
                              "failed): treat these QA figures as noise; set a capable `judge` in workbench.toml.",
                              style="yellow"))
        parts += [Text("Provisional reading (not the diagnosis engine's verdict):", style="bold yellow"), reading]
        body.update(Group(*parts))


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


def _provisional_reading(s, best_sys, by, use: dict[str, dict[str, UseRow]]) -> str:
    lines = []
    for tier in s.tiers:
        sm = by.get((best_sys, tier.name))
        if sm is None:
            continue
        access = sm.fr_at_k if sm.fr_at_k is not None else sm.sr_at_k
        row = use.get(tier.name, {})
        qa = _use_value(row, "qa")
        if access is None:
            continue
        if qa is None:
            lines.append(f"{tier.name}: access {access:.2f} (no QA run yet)")
            continue
        label = f"QA {qa:.2f}"
        if _distrusted(row, "qa"):
            # the judge cannot separate right from wrong: read the deterministic match instead
            contains = [v.contains for v in row.values() if v.task == "qa" and v.contains is not None]
            if not contains:
                lines.append(f"{tier.name}: access {access:.2f}, QA unreadable (uncalibrated judge, no short answers)")
                continue
            qa, label = 5 * max(contains), f"answer contains gold {max(contains):.2f} (judge uncalibrated)"
        hi_a, hi_q = access >= 0.6, qa >= 3.0
        reading = ("both fine" if hi_a and hi_q else "high access, low QA: the model is not using evidence it has" if hi_a
                   else "low access, high QA: answered from parametric knowledge (fragile)" if hi_q
                   else "access and use both low: retrieval is the bottleneck; fix access first")
        lines.append(f"{tier.name}: access {access:.2f}, {label} → {reading}")
    return "\n".join(lines) or "Run QA (model panel, or `workbench run`) to see use beside access."
