"""What the query inspector shows: its state (query, tier, inspection, model, estimates) and
how each part is drawn (the functions of head, rankings, nearmiss and model_panel draw the panes)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import DataTable, Static, TabbedContent, TabPane

from screens.base import WorkbenchScreen
from screens.inspector.head import WHOLE_HINT, one_line, query_head, verdict_line
from screens.inspector.model_panel import NO_RESULTS, model_head, model_results
from screens.inspector.nearmiss import NO_MISSES
from screens.inspector.prepared import PreparedInspection, PreparedTables, prepare_tables
from screens.inspector.why import WhyFacts, WhyPane
from screens.inspector.rankings import (NO_RUNS, RankingTable, fill_ranking, first_row_doc, ranking_table, row_doc,
                                       tables_that_fit, title_width)
from screens.widgets import KeyFooter, TaskBar, WorkbenchHeader
from workbench import session as core
from workbench.session import PromptEstimate, QueryInspection, Session, preferred


class InspectorView(WorkbenchScreen):
    """The inspector's state and panes; QueryScreen adds its keys, workers and message handlers."""

    DEFAULT_CSS = """
    #q-head { height: auto; padding: 0 1; background: $boost; }
    #ranking-tables { height: 1fr; }
    #ranking-tables DataTable.ranking { width: 1fr; height: 1fr; border: round $primary-darken-2; }
    #ranking-tables DataTable.ranking:focus { border: round $accent; }
    #gold-ranks { height: auto; max-height: 8; padding: 0 1; }
    #miss-head { height: auto; padding: 0 1; }
    #diff-panes { height: 1fr; }
    #diff-left, #diff-right { width: 1fr; border: round $primary-darken-2; padding: 0 1; }
    #model-head, #model-results { height: auto; padding: 0 1; }
    """

    def __init__(self, query_id: str, tier: str | None = None) -> None:
        super().__init__()
        self.query_id = query_id
        session = self.session
        self.tiers = [t.name for t in session.tiers_for(query_id)]
        self.tier = tier if tier in self.tiers else self._default_tier()
        self.inspection: QueryInspection | None = None
        self.prepared: PreparedInspection | None = None  # what the panes draw for it (made in the inspect worker)
        self.gold_titles: dict[int, str] = {}  # the query's gold documents' titles, as the worker read them
        self.miss_index = 0
        models = session.models()
        self.model = models[0][0]
        self.estimates: dict[str, PromptEstimate] = {}
        self.running: str | None = None  # the task of the model call in flight, shown with its elapsed time
        self.running_query = query_id  # the query it runs for (j/k may show another meanwhile)
        self.run_started = 0.0
        self._elapsed: Timer | None = None
        self._cursor: tuple[int, int] | None = None  # (ranking table, row) to restore after a relabel
        self.first_system = 0  # the first system whose table is shown (y: the next; narrow screens show one)
        # what the ranking tables and the near-miss panes were last drawn for: drawn again only when it changes
        self._tables_for: tuple[QueryInspection, int, int, int] | None = None  # inspection, tables, title width, first
        self._miss_for: tuple[QueryInspection, int] | None = None  # inspection, near miss
        self._shown: dict[str, object] = {}  # what each pane's text shows (show: no update for the same)

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
        yield WorkbenchHeader()
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
            with TabPane("Why", id="why"):
                yield WhyPane(id="why-pane")
        yield TaskBar()
        yield KeyFooter()

    # ------------------------------------------------------------------ rendering (each pane's module draws it)

    def render_head(self) -> None:
        # the tier strip fits the line (the selected tier in view), less the head's padding
        head = query_head(self.session, self.query_id, self.tiers, self.tier, self.gold_titles, self.app.size.width - 2)
        # The verdict wraps where the screen has rows for it; on a short one (80×24) it keeps one line
        # so the rankings keep theirs, and a cut line says where it is whole (w: the Why tab).
        verdict = self.verdict_line()
        if self.compact:
            verdict = one_line(verdict, self.app.size.width - 2, WHOLE_HINT)
        parts: list[Text] = [head]
        if self.compact:  # a short terminal: one row per line of the head, the rankings keep the rest
            parts = list(head.split("\n"))
            for line in parts:
                line.no_wrap, line.overflow = True, "ellipsis"
        self.show("#q-head", Group(*parts, verdict))
        self.query_one("#gold-ranks", Static).display = not self.compact

    @property
    def compact(self) -> bool:
        """A terminal too short for the full head and the gold-rank summary (80×24)."""
        return self.app.size.height < 32

    def verdict_line(self) -> Text:
        """One line: the diagnosis' verdict for this query on this tier, with the rule and its facts."""
        return verdict_line(self.session, self.query_id, self.tier)

    def tables_wanted(self) -> tuple[QueryInspection, int, int, int] | None:
        """What the ranking tables should show now: the inspection, how many tables, the title width
        and the first system (None: nothing inspected yet, or no system ranked on this tier)."""
        ins = self.inspection
        if ins is None or not ins.systems:
            return None
        n = tables_that_fit(self.app.size.width, len(ins.systems))
        return ins, n, title_width(self.app.size.width, n), self.first_system % len(ins.systems)

    def tables_drawn_for(self, wanted: tuple[QueryInspection, int, int, int]) -> bool:
        drawn = self._tables_for
        return drawn is not None and drawn[0] is wanted[0] and drawn[1:] == wanted[1:]

    def rankings_in_view(self) -> bool:
        return self.query_one("#inspector-tabs", TabbedContent).active == "rankings"

    def render_rankings(self) -> None:
        """Draw the ranking tables for what is inspected now, if they show something else.

        Only while the Rankings tab is in view: tables drawn into a hidden pane are laid out and
        rendered anew when it is shown (tens of milliseconds for two fresh tables), so a tier or
        system switch on another tab waits for the tab (1), and coming back to the tier whose
        tables are drawn costs nothing. Another tier's tables are never shown under this head."""
        box = self.query_one("#ranking-tables", Horizontal)
        ins = self.inspection
        if ins is not None and not ins.systems:
            self._tables_for = None
            self._replace_tables([Static(NO_RUNS)])
            return
        wanted = self.tables_wanted()
        if wanted is None:
            return
        current = self.tables_drawn_for(wanted)
        if not self.rankings_in_view():
            box.display = current
            return
        if current and self._cursor is None:
            box.display = True
            return
        self._tables_for = wanted
        ins, n, width, start = wanted
        prepared = self.prepared_tables(ins)
        self.show("#gold-ranks", prepared.gold_ranks)
        shown = (ins.systems[start:] + ins.systems[:start])[:n]
        mounted = list(box.query(RankingTable).results(RankingTable))
        if len(mounted) == n and self._cursor is None:
            # the same tables refilled: a fresh table's mount (styles, layout) cost the key more than its rows
            for table, sr in zip(mounted, shown):
                fill_ranking(table, sr.system, prepared.rows[sr.system])
            box.display = True
            return
        tables = [ranking_table() for _ in range(n)]
        for table, sr in zip(tables, shown):
            fill_ranking(table, sr.system, prepared.rows[sr.system])  # before mounting: drawn in the layout that shows them
        if self._cursor is not None and self._cursor[0] < len(tables):  # back where the user was labelling
            table = tables[self._cursor[0]]
            table.focus_row_once_mounted(min(self._cursor[1], max(table.row_count - 1, 0)))
        self._cursor = None
        self._replace_tables(tables)

    def prepared_tables(self, ins: QueryInspection) -> PreparedTables:
        """The rows the worker made for this width; after a resize, made again here (the worker read
        the documents they name: the corpus mapping holds them parsed, no disk read)."""
        p = self.prepared
        if p is None or p.inspection is not ins:
            raise AssertionError("the inspection is shown only once prepared")
        if p.tables.screen_width != self.app.size.width:
            tables = prepare_tables(ins, self.session.project.documents, self.app.size.width)
            self.prepared = p = PreparedInspection(p.inspection, p.gold_titles, p.misses, tables)
        return p.tables

    def _replace_tables(self, widgets: Sequence[Widget]) -> None:
        """The ranking pane's widgets replaced at once: the old ones stop being displayed as their
        removal starts, so the new ones are laid out in the same pass, never beside the old."""
        box = self.query_one("#ranking-tables", Horizontal)
        box.remove_children()
        box.display = True
        box.mount(*widgets)

    def show(self, selector: str, renderable: Text | Group) -> None:
        """Update one of the panes' texts unless it shows that already (each update lays the screen out again)."""
        key = tuple(renderable.renderables) if isinstance(renderable, Group) else renderable
        if self._shown.get(selector) == key:
            return
        self._shown[selector] = key
        self.query_one(selector, Static).update(renderable)

    def on_resize(self) -> None:
        """Tables re-lay out when the terminal changes size (titles take the width there is)."""
        self.render_head()
        self.render_rankings()

    def highlighted_doc(self) -> int | None:
        """The DocID under the cursor of the focused ranking table (else the first table's)."""
        wanted = self.tables_wanted()
        if wanted is not None and not self.tables_drawn_for(wanted):
            # the tables are drawn when the Rankings tab shows: the row a fresh first table starts on
            return first_row_doc(wanted[0].systems[wanted[3]], wanted[0].k)
        tables = [t for t in self.query("#ranking-tables DataTable").results(DataTable) if t.display]  # not the replaced
        if not tables:
            return None
        table = next((t for t in tables if t.has_focus), tables[0])
        if table.row_count == 0:
            return None
        return row_doc(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value or "")

    def render_miss(self) -> None:
        head = self.query_one("#miss-head", Static)
        left = self.query_one("#diff-left-text", Static)
        right = self.query_one("#diff-right-text", Static)
        ins = self.inspection
        if ins is not None and self._miss_for == (ins, self.miss_index):
            return  # drawn already (a document's diff is long: wrapping it again costs a redraw)
        self._miss_for = (ins, self.miss_index) if ins is not None else None
        if ins is None or not ins.near_misses or self.prepared is None:
            head.update(NO_MISSES)
            left.update("")
            right.update("")
            return
        miss = self.prepared.misses[self.miss_index]  # drawn in the inspect worker
        head.update(miss.head)
        diff = miss.diff
        if diff is not None:
            left.update(diff[0])
            right.update(diff[1])

    def render_why(self) -> None:
        """The Why pane's inputs: the verdict (whole), the inspection and the selected near miss."""
        pane = self.query_one("#why-pane", WhyPane)
        d, system = self.session.diagnosis, core.verdict_system(self.session)
        v = d.at(self.query_id, self.tier, system) if d is not None else None
        pane.facts = WhyFacts(v.verdict, d.line(self.query_id, self.tier, system), v.stage) if v is not None and d is not None else None
        pane.inspection = self.inspection
        pane.selected = self.miss_index

    def render_model(self) -> None:
        self.render_model_head()
        results = self.session.model_results.get((self.query_id, self.tier), {})
        self.show("#model-results", model_results(results, set(self.q.gold_doc_ids)) if results else Text(NO_RESULTS, "dim"))

    def render_model_head(self) -> None:
        """The model, the prompt sizes and the task in flight with its elapsed time (the ticker redraws only this)."""
        running = self.running if self.running is None or self.running_query == self.query_id \
            else f"{self.running} for {self.running_query}"
        self.show("#model-head", model_head(self.model, self.tier, self.estimates, self.wb.user_keymap, running,
                                            self.run_started))
