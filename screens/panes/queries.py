"""The Queries tab: the filter (parsed once by the core's filter language), the legend, and the
list of queries with their verdict and one access glyph per tier. What it lists is posted
(`QueryListShown`) for the inspector's j/k and the palette's batch entries."""

from __future__ import annotations

from typing import Callable

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import var
from textual.widgets import DataTable, Input, Static

from screens.base import covered
from screens.render import VERDICT_STYLE, figure_glyph
from workbench import session as core
from workbench.safe_text import as_text, visible
from workbench.session import FILTER_WORDS, ListSort, QueryListView, Session

NEW_MARK = "*"  # a production query that arrived while the TUI was open (ASCII: one cell in every terminal)
FLAGGED_MARK = "!"  # production's user flagged its answer (a thumbs-down or a score <= 0 on its trace)
VERDICT_FILTERS = "v:" + "|".join(w for w in FILTER_WORDS if w != "notyet")  # every v: word, from its one home
TIER_NAMES_FROM_HEIGHT = 32  # a shorter terminal keeps its rows for queries: the Overview tab names the tiers
VERDICT_WORDS_FROM_WIDTH = 100  # every v: word where they fit one line
FILTER_HINT_PARTS = ("filter: words", "d:domain", "multi|single|unlabelled", "fail:TIER", "fail",
                     "v:access|access?|use|both|pass|lost|…")
FILTER_HINT_END = "(f1: every word)"  # always shown: where the rest of the language is
BREAKS_NAMED_FROM_WIDTH = 100  # narrower: no "breaks" column (the tier glyphs show where), the text keeps its room
MIN_TEXT = 12  # the query text's cells at least
# rows drawn at most: a live collection grows the project to 100,000 production queries, and a table
# of them all costs seconds per redraw; the filter and the sorts still run over every query
LIST_CAP = 500


def filter_hint(room: int) -> str:
    """The filter's placeholder: as many of its words as fit ``room`` cells, then where the rest are."""
    parts = list(FILTER_HINT_PARTS)
    while parts and len("  ".join([*parts, FILTER_HINT_END])) > room:
        parts.pop()
    return "  ".join([*parts, FILTER_HINT_END])


class QueryListShown(Message):
    """The query ids the list shows now, in its order (its filter and sort)."""

    def __init__(self, query_ids: tuple[str, ...]) -> None:
        super().__init__()
        self.query_ids = query_ids


class QueryListReady(Message):
    """A worker read the list for the pane's inputs as they were at request ``serial`` (``view``
    None: the read failed)."""

    def __init__(self, view: QueryListView | None, serial: int) -> None:
        super().__init__()
        self.view, self.serial = view, serial


class FilterDone(Message):
    """Enter in the filter, queued behind the keys typed before it (they reach the pane first)."""


class QueryListPane(Vertical):
    """Its inputs (the session, the verdicts' revision, the filter, the sort, the system) start a
    worker that reads a QueryListView; the pane draws the latest one it asked for. What only changes
    the drawing (the width, the new-query marks, the build note) redraws the view it holds."""

    # Enter in the filter is taken by the app as it reads the key (a priority binding), not by the
    # Input later: a second Enter typed in the same burst ("/hr-07 Enter Enter") opens the row
    BINDINGS = [Binding("enter", "submit_filter", "Done", id="queries.submit_filter", show=False, priority=True)]

    DEFAULT_CSS = """
    QueryListPane { height: 1fr; }
    QueryListPane #query-legend { height: auto; color: $text-muted; }
    QueryListPane #filter { margin: 0; }
    """

    session: var[Session | None] = var(None, always_update=True)
    verdicts: var[int] = var(0)  # bumped when access results, verdicts or labels change
    build_note: var[str] = var("")  # what a running build has made usable so far
    sort: var[ListSort] = var("ladder")
    chosen_system: var[str | None] = var(None)  # the user's choice (y) while there are no verdicts
    arrived: var[frozenset[str]] = var(frozenset())  # production queries imported since the TUI opened: marked new

    view: QueryListView | None = None  # the list last read for the latest request
    _serial = 0  # the latest request: an older read arriving late is not drawn
    _reading = False  # one read at a time: keys that come meanwhile are served by the one after it
    _drawn = 0  # the request whose view the table holds
    _select_when_drawn = False  # Enter pressed on the list while its rows were being read
    _submitting = False  # Enter pressed in the filter: FilterDone is on its way behind the typed keys
    _open_after_submit = False  # a second Enter came before it: open the first row of the list typed for
    _when_drawn: list[Callable[[], None]] = []  # what waits for the list being read (after_read)
    _stale = False  # a view arrived while covered: drawn when the list shows again
    _columns: tuple[str, ...] = ()

    def compose(self) -> ComposeResult:
        yield Input(placeholder=filter_hint(self.app.size.width - 6), id="filter")
        yield Static("", id="query-legend")
        yield DataTable(id="query-table", cursor_type="row", zebra_stripes=True)

    @property
    def table(self) -> DataTable[Text]:
        return self.query_one("#query-table", DataTable)

    @property
    def system(self) -> str:
        """Whose access figures the list shows: the verdict system's retriever (y switches both)."""
        if self.chosen_system is not None:
            return self.chosen_system
        return core.figures_system(self.session) if self.session else core.preferred()[0]

    @property
    def shown(self) -> list[str]:
        return [str(k.value) for k in self.table.rows]

    def reread(self) -> None:
        """Ask a worker for the list as the inputs are now. One read runs at a time (at 100,000
        queries each is a second of CPU): a filter typed meanwhile is read once that one ends."""
        if self.session is None:
            return
        self._serial += 1
        if not self._reading:
            self._start_read()

    def _start_read(self) -> None:
        assert self.session is not None
        self._reading = True
        self._read(self.session, self.system, self.query_one("#filter", Input).value, self.sort, self._serial)

    # every input of what is listed reads the list again
    watch_session = watch_verdicts = watch_sort = watch_chosen_system = reread

    def watch_build_note(self) -> None:
        self.draw()

    def watch_arrived(self) -> None:
        self.draw()

    @work(thread=True, exit_on_error=False, group="query-list")
    def _read(self, s: Session, system: str, filter_text: str, sort: ListSort, serial: int) -> None:
        view = None
        try:
            view = core.read_query_list(s, system, filter_text, sort, LIST_CAP)
        finally:  # a failed read (reported as the worker's error) lets the next one start
            self.post_message(QueryListReady(view, serial))

    def on_query_list_ready(self, msg: QueryListReady) -> None:
        msg.stop()
        self._reading = False
        if msg.serial != self._serial:  # the inputs changed while it was read: read them as they are now
            if self.session is not None:
                self._start_read()
            return
        if msg.view is None:
            return
        self.view, self._drawn = msg.view, msg.serial
        self.draw()
        waiting, self._when_drawn = self._when_drawn, []
        for callback in waiting:
            callback()
        if self._select_when_drawn:
            self._select_when_drawn = False
            if msg.view.rows and not covered(self):
                # from the table's own message loop: a message's sender is the pump that posts it,
                # and one sent by this pane would stop bubbling here, short of the screen
                self.table.call_later(self.table.action_select_cursor)

    def _behind(self) -> bool:
        """The table shows an older request's list than the one being read."""
        return self._drawn != self._serial

    def after_read(self, callback: Callable[[], None]) -> None:
        """Call back now, or once the list being read is drawn: what acts on the list's rows (a
        batch over the filter's queries) acts on the list the user asked for."""
        if not self._behind():
            callback()
        else:
            self._when_drawn = [*self._when_drawn, callback]

    @on(DataTable.RowSelected, "#query-table")
    def _selected_while_reading(self, event: DataTable.RowSelected) -> None:
        # Enter on the table while the list of the filter just typed is read: it opens that list's
        # first row, not the row of the list still shown; it waits for the read
        if self._behind():
            event.stop()
            self._select_when_drawn = True

    def on_resize(self) -> None:
        # the input's border and padding take 4 cells, the hint's own margin 2
        self.query_one("#filter", Input).placeholder = filter_hint(self.app.size.width - 6)
        self.draw()  # the legend is shorter on a short terminal, the text column follows the width

    @on(Input.Changed, "#filter")
    def _filter_changed(self) -> None:
        self.reread()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "submit_filter":  # only while typing in the filter; elsewhere Enter goes on as usual
            return self.screen.focused is self.query_one("#filter", Input)
        return True

    def action_submit_filter(self) -> None:
        if self._submitting:
            self._open_after_submit = True
            return
        self._submitting = True
        self.query_one("#filter", Input).post_message(FilterDone())

    @on(FilterDone)
    def _filter_done(self, msg: FilterDone) -> None:
        msg.stop()
        self._submitting = False
        self.screen.set_focus(self.table)  # now, not a loop later (Widget.focus): the next key reaches the table
        if self._open_after_submit:
            self._open_after_submit = False
            if self._behind():
                self._select_when_drawn = True
            elif self.table.row_count:
                self.table.call_later(self.table.action_select_cursor)

    def draw(self) -> None:
        """Draw the view held (the UI thread's part: cells and widths, no reading)."""
        v = self.view
        if v is None or not self.is_mounted:
            return
        ids = tuple(r.query_id for r in v.rows)
        if covered(self):  # under the inspector: its j/k get the ids now, the rows are drawn when the list shows
            self._stale = True
            self.post_message(QueryListShown(ids))
            return
        self._stale = False
        table = self.table
        current = table.cursor_row
        named = self.app.size.width >= BREAKS_NAMED_FROM_WIDTH
        # a domain every id starts with says nothing the id does not: its column goes where room is short
        with_domain = named or not v.ids_name_domains
        rows = []
        for r in v.rows:
            glyphs = Text()
            for asked, fig in zip(r.asked, r.figures):
                glyphs.append_text(figure_glyph(fig) if asked else Text("·", "dim"))
            # IDs and domains whole (technology-07 … -10 must stay apart); the query text takes the rest
            qid = as_text(r.query_id, one_line=True)
            if r.query_id in self.arrived:
                qid = Text.assemble((NEW_MARK, "bold yellow"), qid)
            if r.flagged:
                qid = Text.assemble((FLAGGED_MARK, "bold red"), qid)
            cells = {"query": qid, "dom": as_text(r.domain or "–", one_line=True), "S/M": Text(r.kind),
                     "verdict": verdict_cell(r.verdict), "tiers": glyphs}
            if named:
                cells["breaks"] = (as_text(r.breaks, "red") if r.breaks is not None
                                   else Text("–" if v.figures_known else "…", "dim"))
            if not with_domain:
                del cells["dom"]
            cells["text"] = Text(visible(r.text, one_line=True), no_wrap=True, overflow="ellipsis")
            rows.append((r.query_id, cells))
        columns = tuple(rows[0][1]) if rows else self._columns or ("query", "dom", "S/M", "verdict", "tiers", "breaks", "text")
        table.clear(columns=True)  # the columns too: a column keeps the widest cell it ever held
        table.add_columns(*columns)
        self._columns = columns
        # the text column takes what the others leave (each column has a cell of padding on both sides,
        # the scrollbar 2): the list's text is never pushed off the screen
        used = sum(max([len(c), *(r[c].cell_len for _, r in rows)]) + 2 for c in columns if c != "text")
        room = max(MIN_TEXT, self.app.size.width - used - 2 - 2)
        for key, cells in rows:
            cells["text"].truncate(room, overflow="ellipsis")
            table.add_row(*cells.values(), key=key)
        if rows:
            table.move_cursor(row=min(max(current, 0), len(rows) - 1))
        self.query_one("#query-legend", Static).update(self.legend(v))
        self.post_message(QueryListShown(ids))

    def draw_if_stale(self) -> None:
        if self._stale:
            self.draw()

    def legend(self, v: QueryListView) -> Text:
        tiers = list(v.tiers)
        return Text.assemble(
            *[(f"filter: {visible(p, one_line=True)}\n", "bold red") for p in v.problems],
            (f"{self.build_note}\n" if self.build_note else "", "yellow"),
            (f"{v.matching}/{v.total} queries", "bold"),
            (f" (the first {v.cap:,} listed: / narrows)" if v.matching > v.cap else "", "yellow"),
            f" · system {v.system} (y) · sort {v.sort} (s) · ",
            # every tier, numbered as the glyph columns are (the legend wraps rather than hides tiers)
            ("tiers " + " ".join(f"{i + 1}={visible(t, one_line=True)}" for i, t in enumerate(tiers))
             if self.app.size.height >= TIER_NAMES_FROM_HEIGHT else f"tiers 1–{len(tiers)} in ladder order (1: Overview names them)"),
            (f"  ● all gold in top {v.k} ◐ some ○ none", "dim"),
            # a narrow terminal keeps that row for a query
            (f" · verdicts of {v.verdict_system} "
             + (f"({VERDICT_FILTERS})" if self.app.size.width >= VERDICT_WORDS_FROM_WIDTH else "(v: words: f1)")
             if v.verdict_system is not None else "", "dim"),
            (f" · {NEW_MARK}new from traces ({len(self.arrived)})" if self.arrived else "", "bold yellow"),
            (f"\nuntil {v.system} is ready there: " + stand_in_text(v.stand_ins, tiers)
             if v.stand_ins else "", "yellow"),
        )


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


def verdict_cell(verdict: str | None) -> Text:
    """The query list's verdict: the first failing tier's, else PASS, else NOT-YET (workbench.diagnosis.live)."""
    if verdict is None:
        return Text("…", "dim")
    return Text(verdict if verdict != "USE-UNDER-DISTRACTORS" else "USE-DISTR", VERDICT_STYLE[verdict])
