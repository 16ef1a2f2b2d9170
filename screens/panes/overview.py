"""The Overview tab: the project, its tiers (built or not, fitting each model or not), its models,
and the sharper diagnosis' lines (effective corpus size, position effects) under them."""

from __future__ import annotations

import asyncio

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import var
from textual.widgets import Static

from workbench import session as core
from workbench.safe_text import as_text, visible
from workbench.session import Session

WIDE_FROM = 100  # narrower: the tiers table keeps its figures whole (one index column, no domains)
NUMBERS = ("docs", "tokens", "queries")
FIGURES = (*NUMBERS, "indexes")  # the tiers table's columns a cut would falsify
PROMPT_ALLOWANCE = 400  # the estimate's prompt tokens beside the tier (the model panel counts the exact prompt)


class OverviewPane(VerticalScroll):
    DEFAULT_CSS = """
    OverviewPane { height: 1fr; }
    """

    session: var[Session | None] = var(None, always_update=True)
    indexes: var[int] = var(0)  # bumped when a build makes indexes usable or finishes
    statuses: var[dict[str, dict[str, str]]] = var(dict)  # tier → index kind → status, read in a worker

    def compose(self) -> ComposeResult:
        yield Static("Loading project…", id="overview-body")
        yield Static("", id="insight-body")

    def watch_session(self, session: Session | None) -> None:
        self.render_overview()
        if session is not None:  # stored results and index manifests: off the UI thread
            self._load_insight(session)
            self._load_statuses(session)

    def watch_indexes(self) -> None:
        if self.session is not None:
            self._load_statuses(self.session)

    def watch_statuses(self) -> None:
        self.render_overview()

    def on_resize(self) -> None:
        self.render_overview()  # the tiers table's columns follow the width

    @work(exclusive=True, group="index-status", exit_on_error=False)  # the coroutine is made when it runs
    async def _load_statuses(self, session: Session) -> None:
        tiers = session.tiers
        statuses = await asyncio.to_thread(lambda: {t.name: core.index_status(session.project, t) for t in tiers})
        if session is self.session:
            self.statuses = statuses

    @work(exclusive=True, group="insight", exit_on_error=False)
    async def _load_insight(self, session: Session) -> None:
        lines = await asyncio.to_thread(core.insight_overview, session)
        self.query_one("#insight-body", Static).update(
            Text.assemble(("Effective corpus size and position\n", "bold"), *(as_text(f"{line}\n") for line in lines)) if lines else "")

    def render_overview(self) -> None:
        s = self.session
        if s is None:
            return
        p = s.project
        multi = sum(q.is_multi_source for q in p.queries)
        head = Text.assemble(
            as_text(p.config.name, "bold", one_line=True), f"  ·  {visible(str(s.root))}\n",
            f"{len(p.documents):,} documents · {len(p.queries)} queries ({len(p.queries) - multi} single-source, {multi} multi-source) · "
            f"{len(p.domains)} domain(s) · query set {p.corpus_hash()[:12]}\n",
        )
        models = s.models()
        narrow = self.app.size.width < WIDE_FROM  # one index column, no domains: every figure stays whole
        tiers = Table(title="Tiers", title_justify="left", expand=True)
        rows = []
        for t in s.tiers:
            st = self.statuses.get(t.name, {})
            doms = ", ".join(t.domains) if len(t.domains) <= 2 else f"{len(t.domains)} domains"
            fits = [
                Text("yes", "green") if t.tokens + cfg.max_tokens + PROMPT_ALLOWANCE <= core.window_budget(cfg) else Text("no", "red")
                for _, cfg in models
            ]
            indexes = [_both(st)] if narrow else [_status(st.get("sparse")), _status(st.get("dense"))]
            rows.append([as_text(t.name), Text(f"{len(t.doc_ids):,}"), Text(f"{t.tokens:,}"),
                         *([] if narrow else [as_text(doms)]), Text(str(len(t.query_ids))), *indexes, *fits])
        heads = ["tier", "docs", "tokens", *([] if narrow else ["domains"]), "queries",
                 *(["indexes"] if narrow else ["sparse", "dense"]), *(f"fits {name}" for name, _ in models)]
        for i, c in enumerate(heads):
            # a figure is never cut: its column is at least as wide as its widest cell
            whole = max([len(c), *(r[i].cell_len for r in rows)]) if c in FIGURES else None
            tiers.add_column(c, justify="right" if c in NUMBERS else "center" if c.startswith("fits") else "left",
                             no_wrap=c == "tier" or whole is not None, min_width=whole)
        if s.tierset is None:
            tiers.add_row("[yellow]no tiers yet[/]", *[""] * (len(heads) - 1))
        for r in rows:
            tiers.add_row(*r)
        mt = Table(title="Models", title_justify="left", expand=True)
        cells = [(as_text(name), as_text(cfg.base_url or "embedded llama.cpp (SmolLM2), started on first use"),
                  f"{cfg.context_window:,}", f"{core.window_budget(cfg):,}", str(cfg.max_tokens)) for name, cfg in models]
        for i, c in enumerate(("model", "endpoint", "window", "usable", "answer budget")):
            mt.add_column(c, no_wrap=i >= 2, min_width=max([len(c), *(len(str(row[i])) for row in cells)]) if i >= 2 else None)
        for row in cells:
            mt.add_row(*row)
        note = Text(f"Fits = tier tokens + ~{PROMPT_ALLOWANCE} prompt tokens + answer budget within the usable window "
                    "(estimate; the model panel counts the exact prompt).", style="dim")
        self.query_one("#overview-body", Static).update(Group(head, tiers, mt, note))


def _both(st: dict[str, str]) -> Text:
    """Both indexes in one cell: "ok", or what is not ("dense stale")."""
    if not st:
        return Text("…", "dim")  # being read
    bad = [f"{kind} {state}" for kind, state in st.items() if state != "ok"]
    return Text(", ".join(bad), "yellow") if bad else Text("ok", "green")


def _status(s: str | None) -> Text:
    if s is None:
        return Text("…", "dim")  # being read
    return Text(s, "green" if s == "ok" else "yellow")
