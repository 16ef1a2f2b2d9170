"""The Unjudged pane of the query inspector (key U): this query's documents in some system's top K
on the current tier that nobody judged (neither gold, nor hard negative, nor labelled not
relevant), answer-bearing first (likely missing gold), with the passage that states the answer
highlighted, to label one after another with G / H / N. Each label is saved through the inspector
visit (one query-set version) and the list is read again once the app installed it: the labelled
document leaves it, the cursor stays on the next one.

The pane is added to the inspector's tabs on first use; while it has focus its keys come first
(n / p step, [ ] tier, j / k query, d the whole document, u undo), the inspector's others still work.

The list and every listed document are read in a worker and posted as one immutable UnjudgedView:
the UI thread draws it and reads no document (n / p / d only show what was read).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Static, TabbedContent, TabPane

from screens import messages as m
from workbench import session as core
from workbench.safe_text import visible
from workbench.session import Document, StepperDoc, system_label

PANE_ID = "unjudged"
KEYS = "G gold · H hard neg · N not relevant · n/p next/prev · d document · u undo"
BEFORE, AFTER = 100, 400  # characters of context around the answer: its line in view at 80×24
ANSWER_STYLE = "bold black on yellow"
CSS = f"""
#{PANE_ID}-head {{ height: auto; padding: 0 1; }}
#{PANE_ID}-list {{ height: auto; max-height: 35%; }}
#{PANE_ID}-scroll {{ height: 1fr; border: round $primary-darken-2; padding: 0 1; }}
"""


@dataclass(frozen=True)
class UnjudgedView:
    """One query's unjudged documents on one tier, with each one's title and text (read off the UI thread)."""

    query_id: str
    tier: str
    docs: tuple[StepperDoc, ...]
    documents: Mapping[int, Document]


def read_view(session: core.Session, query_id: str, tier: str) -> UnjudgedView:
    """In a worker: the list and the documents it names (the pane draws these and reads nothing)."""
    docs = tuple(core.unjudged_documents(session, query_id, tier)) if tier else ()
    store = session.project.documents
    return UnjudgedView(query_id, tier, docs, {s.doc.doc_id: store[s.doc.doc_id] for s in docs})


class UnjudgedReady(Message):
    def __init__(self, view: UnjudgedView) -> None:
        super().__init__()
        self.view = view


def passage(doc: Document, found: StepperDoc | None) -> Text:
    """The document's title and the passage around the answer it states, the answer highlighted;
    without one, the start of its text."""
    d = found.doc if found is not None else None
    title, text = visible(doc.title, one_line=True), doc.text
    out = Text()
    if d is not None and d.answer_bearing and d.in_title:
        out.append(visible(doc.title[:d.start], one_line=True), "bold")
        out.append(visible(doc.title[d.start:d.end], one_line=True), ANSWER_STYLE)
        out.append(visible(doc.title[d.end:], one_line=True) + "\n", "bold")
    else:
        out.append(title + "\n", "bold")
    if d is None or not d.answer_bearing or d.in_title:
        out.append(visible(text[:BEFORE + AFTER]) + ("…" if len(text) > BEFORE + AFTER else ""))
        return out
    lo = max(0, d.start - BEFORE)
    lo = lo if lo == 0 else text.rfind(" ", 0, lo) + 1  # whole words at the edges
    hi = text.find(" ", min(len(text), d.end + AFTER))
    hi = len(text) if hi < 0 else hi
    out.append(("…" if lo else "") + visible(text[lo:d.start]))
    out.append(visible(text[d.start:d.end]), ANSWER_STYLE)
    out.append(visible(text[d.end:hi]) + ("…" if hi < len(text) else ""))
    return out


def ranks_text(s: StepperDoc) -> str:
    return "  ".join(f"{system_label(system)} #{rank}" for system, rank in s.ranks.items())


class UnjudgedPane(Vertical):
    """The list of unjudged documents (answer-bearing first), the highlighted one's head and passage."""

    DEFAULT_CSS = CSS
    BINDINGS = [
        Binding("n", "step(1)", "Next unjudged", id="unjudged.next", show=False),
        Binding("p", "step(-1)", "Prev unjudged", id="unjudged.prev", show=False),
        Binding("G", "label('gold')", "Gold", id="unjudged.gold", show=False),
        Binding("H", "label('hard_negative')", "Hard neg", id="unjudged.hard_negative", show=False),
        Binding("N", "label('not_relevant')", "Not relevant", id="unjudged.not_relevant", show=False),
        Binding("u", "undo", "Undo label", id="unjudged.undo", show=False),
        Binding("d", "document", "Whole document", id="unjudged.document", show=False),
        Binding("left_square_bracket", "tier(-1)", "Prev tier", id="unjudged.prev_tier", show=False),
        Binding("right_square_bracket", "tier(1)", "Next tier", id="unjudged.next_tier", show=False),
        Binding("j", "query(1)", "Next query", id="unjudged.next_query", show=False),
        Binding("k", "query(-1)", "Prev query", id="unjudged.prev_query", show=False),
    ]

    def __init__(self) -> None:
        super().__init__(id=f"{PANE_ID}-pane")
        self.view = UnjudgedView("", "", (), {})
        self.wanted: tuple[str, str] = ("", "")  # (query, tier) the newest read was asked for
        self.keep_row = False  # the next view drawn keeps the cursor's row (read again after a label)

    @property
    def docs(self) -> tuple[StepperDoc, ...]:
        return self.view.docs

    @property
    def shown_for(self) -> tuple[str, str]:
        return (self.view.query_id, self.view.tier)

    def compose(self) -> ComposeResult:
        yield Static(id=f"{PANE_ID}-head")
        table: DataTable[Text] = DataTable(cursor_type="row", id=f"{PANE_ID}-list")
        table.add_columns("", "DocID", "title", "rank")
        yield table
        with VerticalScroll(id=f"{PANE_ID}-scroll") as scroll:
            scroll.border_subtitle = KEYS  # the keys where they act, off the footer (it must fit 80 columns)
            yield Static(id=f"{PANE_ID}-passage")

    @property
    def table(self) -> DataTable[Text]:
        return self.query_one(f"#{PANE_ID}-list", DataTable)

    @property
    def inspector(self):  # the QueryScreen (not imported: it imports this module)
        return self.screen

    def current(self) -> StepperDoc | None:
        if not self.docs or self.table.row_count == 0:
            return None
        return self.docs[min(self.table.cursor_row, len(self.docs) - 1)]

    def reload(self) -> None:
        """Read the list again for the inspector's query and tier (after a label, a tier, a query),
        in a worker; the cursor keeps its row when it is the same list, so a labelled document's place
        goes to the next one."""
        qs = self.inspector
        self.wanted = (qs.query_id, qs.tier)
        self.keep_row = self.wanted == self.shown_for
        if not self.keep_row:
            self.render_current()  # says it is reading, not the list of another query or tier
        self.read(qs.query_id, qs.tier)

    @work(thread=True, exclusive=True, exit_on_error=False, group="unjudged")
    def read(self, query_id: str, tier: str) -> None:
        self.post_message(UnjudgedReady(read_view(self.inspector.session, query_id, tier)))

    def on_unjudged_ready(self, msg: UnjudgedReady) -> None:
        msg.stop()
        if (msg.view.query_id, msg.view.tier) != self.wanted:
            return  # read for a query or tier left since: the newer read draws
        row = self.table.cursor_row if self.keep_row else 0
        self.view = msg.view
        table = self.table
        table.clear()
        width = max(16, self.app.size.width - 52)  # the ranks stay in view at 80 columns
        for s in self.docs:
            mark = Text("ANSWER", "bold black on yellow") if s.doc.answer_bearing else Text("")
            title = visible(s.doc.title, one_line=True)
            title = title if len(title) <= width else title[:width - 1] + "…"
            table.add_row(mark, Text(str(s.doc.doc_id)), Text(title),
                          Text(ranks_text(s), "yellow"), key=str(s.doc.doc_id))
        if self.docs:
            table.move_cursor(row=min(row, len(self.docs) - 1))
        self.render_current()

    def render_current(self) -> None:
        head = self.query_one(f"#{PANE_ID}-head", Static)
        body = self.query_one(f"#{PANE_ID}-passage", Static)
        tier = visible(self.view.tier)
        if self.wanted != self.shown_for:
            head.update(Text(f"Reading the unjudged documents on {visible(self.wanted[1])}…", "dim"))
            body.update("")
            return
        s = self.current()
        if s is None:
            head.update(Text.assemble(
                (f"No unjudged document on {tier}: ", "bold"),
                "every document in the systems' top K is gold, a hard negative or labelled not relevant.\n",
                ("[ ] another tier · j/k another query · u undo", "dim")))
            body.update("")
            return
        i = self.docs.index(s)
        bearing = sum(d.doc.answer_bearing for d in self.docs)
        kind = Text(" ANSWER-BEARING ", ANSWER_STYLE) if s.doc.answer_bearing else Text(" unjudged ", "reverse")
        t = Text.assemble(
            (f"Unjudged {i + 1}/{len(self.docs)} on {tier} ", "bold"), kind, " ",
            (visible(f"{s.doc.doc_id} {s.doc.title}", one_line=True), "bold"), "  ", (ranks_text(s), "yellow"), "\n")
        if s.doc.answer_bearing:
            t.append(visible(f"states the answer “{s.doc.alias}” in its {'title' if s.doc.in_title else 'text'}: "
                             "likely missing gold", one_line=True), "yellow")
        else:
            t.append(f"does not state the answer ({bearing} of {len(self.docs)} do)", "dim")
        head.update(t)
        body.update(passage(self.view.documents[s.doc.doc_id], s))
        self.query_one(f"#{PANE_ID}-scroll", VerticalScroll).scroll_home(animate=False)

    def on_show(self) -> None:
        """Shown by its tab rather than by U: read for what the inspector shows now, if it is not."""
        qs = self.inspector
        if self.wanted != (qs.query_id, qs.tier):
            self.reload()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self.render_current()

    # ------------------------------------------------------------------ actions

    def action_step(self, step: int) -> None:
        if not self.docs:
            self.notify("no unjudged document on this tier", timeout=2)
            return
        self.table.move_cursor(row=(self.table.cursor_row + step) % len(self.docs))

    def action_label(self, mark: str) -> None:
        s = self.current()
        if s is None:
            self.notify("no unjudged document to label here", severity="warning", timeout=3)
            return
        self.save(mark, s.doc.doc_id)

    def action_undo(self) -> None:
        self.save("undo", None)

    def action_document(self) -> None:
        from screens.modals import TextModal

        s = self.current()
        if s is None:
            self.notify("no unjudged document here", timeout=3)
            return
        d = self.view.documents[s.doc.doc_id]
        self.app.push_screen(TextModal(f"{d.doc_id} {d.title}", d.text))

    def action_tier(self, step: int) -> None:
        self.inspector.action_tier(step)
        self.reload()

    def action_query(self, step: int) -> None:
        self.inspector.action_query(step)
        self.reload()

    @work(thread=True, exclusive=True, exit_on_error=False, group="label")
    def save(self, change: str, doc_id: int | None) -> None:
        """One label (or undo) saved and the figures recomputed; the app installs it, then the list is read again."""
        qs = self.inspector
        s, progress = qs.session, qs.wb.progress_reporter()
        if doc_id is None:
            result = core.undo_label(s, qs.query_id, progress)
            if result is None:
                self.app.call_from_thread(self.notify, "nothing to undo", timeout=3)
                return
        else:
            result = core.label_document(s, qs.query_id, doc_id, change, progress, judged=True)
        self.app.call_from_thread(self._installed, result)

    def _installed(self, result: core.Relabelled | None) -> None:
        # the app's handler installs the change (figures, header, query list, the inspector); the
        # list is read after it, from the app's queue in order
        self.app.post_message(m.LabelsChanged(result))
        self.app.call_later(self.reload)


async def show_unjudged(screen, step: int = 0) -> None:
    """U in the inspector: its Unjudged pane (added on first use), focused and read for the current
    query and tier; pressed again there, the next document."""
    tabs = screen.query_one("#inspector-tabs", TabbedContent)
    panes = list(screen.query(UnjudgedPane).results(UnjudgedPane))
    if not panes:
        pane = UnjudgedPane()
        await tabs.add_pane(TabPane("Unjudged", pane, id=PANE_ID))
    else:
        pane = panes[0]
    again = tabs.active == PANE_ID and pane.shown_for == (screen.query_id, screen.tier)
    tabs.active = PANE_ID
    pane.table.focus()
    if again and step:
        pane.action_step(step)
    else:
        pane.reload()
