"""The Overview tab: the project, its tiers (built or not, fitting each model or not), its models,
and the sharper diagnosis' lines (effective corpus size, position effects) under them. Both parts
are read by workers (core.overview_view, core.insight_overview) and drawn from what they posted."""

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
from workbench.session import OverviewView, Session, TierLine

WIDE_FROM = 100  # narrower: the tiers table keeps its figures whole (one index column, no domains)
NUMBERS = ("docs", "tokens", "queries")
FIGURES = (*NUMBERS, "indexes")  # the tiers table's columns a cut would falsify


class OverviewPane(VerticalScroll):
    DEFAULT_CSS = """
    OverviewPane { height: 1fr; }
    """

    session: var[Session | None] = var(None, always_update=True)
    indexes: var[int] = var(0)  # bumped when a build makes indexes usable or finishes
    view: var[OverviewView | None] = var(None)  # what is shown: read by a worker, drawn by watch_view

    def compose(self) -> ComposeResult:
        yield Static("Loading project…", id="overview-body")
        yield Static("", id="insight-body")

    def watch_session(self, session: Session | None) -> None:
        if session is not None:  # the index manifests and the stored results: off the UI thread
            self._load_view(session)
            self._load_insight(session)

    def watch_indexes(self) -> None:
        if self.session is not None:
            self._load_view(self.session)

    @work(exclusive=True, group="overview", exit_on_error=False)  # the coroutine is made when it runs
    async def _load_view(self, session: Session) -> None:
        view = await asyncio.to_thread(core.overview_view, session)
        if session is self.session:  # else another project was loaded meanwhile: its own read follows
            self.view = view

    @work(exclusive=True, group="insight", exit_on_error=False)
    async def _load_insight(self, session: Session) -> None:
        lines = await asyncio.to_thread(core.insight_overview, session)
        self.query_one("#insight-body", Static).update(
            Text.assemble(("Effective corpus size and position\n", "bold"), *(as_text(f"{line}\n") for line in lines)) if lines else "")

    def watch_view(self) -> None:
        self.draw()

    def on_resize(self) -> None:
        self.draw()  # the tiers table's columns follow the width

    def draw(self) -> None:
        v = self.view
        if v is None:
            return
        head = Text.assemble(
            as_text(v.name, "bold", one_line=True), f"  ·  {visible(v.root)}\n",
            f"{v.documents:,} documents · {v.queries} queries ({v.queries - v.multi_source} single-source, "
            f"{v.multi_source} multi-source) · {v.domains} domain(s) · query set {v.query_set}\n",
        )
        note = Text(f"Fits = tier tokens + ~{v.prompt_allowance} prompt tokens + answer budget within the usable window "
                    "(estimate; the model panel counts the exact prompt).", style="dim")
        self.query_one("#overview-body", Static).update(Group(head, self.tiers_table(v), models_table(v), note))

    def tiers_table(self, v: OverviewView) -> Table:
        narrow = self.app.size.width < WIDE_FROM  # one index column, no domains: every figure stays whole
        rows = [tier_cells(t, narrow) for t in v.tiers]
        heads = ["tier", "docs", "tokens", *([] if narrow else ["domains"]), "queries",
                 *(["indexes"] if narrow else ["sparse", "dense"]), *(f"fits {m.name}" for m in v.models)]
        table = Table(title="Tiers", title_justify="left", expand=True)
        for i, c in enumerate(heads):
            # a figure is never cut: its column is at least as wide as its widest cell
            whole = max([len(c), *(r[i].cell_len for r in rows)]) if c in FIGURES else None
            table.add_column(c, justify="right" if c in NUMBERS else "center" if c.startswith("fits") else "left",
                             no_wrap=c == "tier" or whole is not None, min_width=whole)
        if not v.tiers_built:
            table.add_row("[yellow]no tiers yet[/]", *[""] * (len(heads) - 1))
        for r in rows:
            table.add_row(*r)
        return table


def tier_cells(t: TierLine, narrow: bool) -> list[Text]:
    doms = ", ".join(t.domains) if len(t.domains) <= 2 else f"{len(t.domains)} domains"
    indexes = [_both(t)] if narrow else [_status(t.sparse), _status(t.dense)]
    fits = [Text("yes", "green") if f else Text("no", "red") for f in t.fits]
    return [as_text(t.name), Text(f"{t.docs:,}"), Text(f"{t.tokens:,}"), *([] if narrow else [as_text(doms)]),
            Text(str(t.queries)), *indexes, *fits]


def models_table(v: OverviewView) -> Table:
    table = Table(title="Models", title_justify="left", expand=True)
    cells = [(as_text(m.name), as_text(m.endpoint or "embedded llama.cpp (SmolLM2), started on first use"),
              f"{m.window:,}", f"{m.usable:,}", str(m.answer_budget)) for m in v.models]
    for i, c in enumerate(("model", "endpoint", "window", "usable", "answer budget")):
        table.add_column(c, no_wrap=i >= 2, min_width=max([len(c), *(len(str(row[i])) for row in cells)]) if i >= 2 else None)
    for row in cells:
        table.add_row(*row)
    return table


def _both(t: TierLine) -> Text:
    """Both indexes in one cell: "ok", or what is not ("dense stale")."""
    bad = [f"{kind} {state}" for kind, state in (("sparse", t.sparse), ("dense", t.dense)) if state != "ok"]
    return Text(", ".join(bad), "yellow") if bad else Text("ok", "green")


def _status(s: str) -> Text:
    return Text(s, "green" if s == "ok" else "yellow")
