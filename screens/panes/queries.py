"""The Queries tab: the filter (parsed once by the core's filter language), the legend, and the
list of queries with their verdict and one access glyph per tier. What it lists is posted
(`QueryListShown`) for the inspector's j/k and the palette's batch entries."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import var
from textual.widgets import DataTable, Input, Static

from screens.render import VERDICT_STYLE, figure_glyph
from workbench import session as core
from workbench.safe_text import as_text, visible
from workbench.session import FILTER_WORDS, Query, Session

SORTS = ("ladder", "breaks", "feedback")  # feedback: what production's users flagged first, worst score first
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


class SessionFacts:
    """The filter words' facts from the session, for one system's figures (core.FilterFacts)."""

    def __init__(self, s: Session, system: str) -> None:
        self.s, self.system = s, system
        self._sources: dict[str, tuple[str, ...]] | None = None
        self._feedback: dict | None = None

    @property
    def feedback(self) -> dict:
        """Query id → production users' feedback (read once per filtering)."""
        if self._feedback is None:
            self._feedback = core.production_feedback(self.s.project)
        return self._feedback

    def flagged(self, query: Query) -> bool:
        fb = self.feedback.get(query.query_id)
        return fb is not None and fb.negative

    def breaks(self, query: Query) -> bool:
        return self.s.breaks_at(self.system, query) is not None

    def fails_on(self, query: Query, tier_word: str) -> bool:
        # only the query's own tiers: fail:base is its own domain's base tier, not the others'
        names = [t.name for t in self.s.tiers if tier_word in t.name.lower() and self.s.asks(t, query.query_id)]
        figs = [self.s.figure(self.system, n, query) for n in names]
        return any(f is not None and f < 1.0 for f in figs)

    def verdict_in(self, query: Query, word: str) -> bool:
        if word == core.UNJUDGED_WORD:  # not a verdict: an answer-bearing unjudged document
            return core.has_answer_bearing_unjudged(self.s, query.query_id)
        d = self.s.diagnosis
        return d is not None and d.matches(query.query_id, word, core.verdict_system(self.s))

    def sources(self, query: Query) -> tuple[str, ...]:
        if self._sources is None:  # read once per filtering, not once per query
            self._sources = {k: tuple(v) for k, v in core.query_sources(self.s.project).items()}
        return self._sources.get(query.query_id, ())


class QueryListPane(Vertical):
    DEFAULT_CSS = """
    QueryListPane { height: 1fr; }
    QueryListPane #query-legend { height: auto; color: $text-muted; }
    QueryListPane #filter { margin: 0; }
    """

    session: var[Session | None] = var(None, always_update=True)
    verdicts: var[int] = var(0)  # bumped when access results, verdicts or labels change
    build_note: var[str] = var("")  # what a running build has made usable so far
    sort: var[str] = var("ladder")
    chosen_system: var[str | None] = var(None)  # the user's choice (y) while there are no verdicts
    arrived: var[frozenset[str]] = var(frozenset())  # production queries imported since the TUI opened: marked new

    def compose(self) -> ComposeResult:
        yield Input(placeholder=filter_hint(self.app.size.width - 6), id="filter")
        yield Static("", id="query-legend")
        yield DataTable(id="query-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        self._columns: tuple[str, ...] = ()
        self._stale = False  # inputs changed while covered: drawn when the list shows again

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

    def _redraw(self) -> None:
        self.render_list()

    # every input of the list redraws it
    watch_session = watch_verdicts = watch_build_note = watch_sort = watch_chosen_system = watch_arrived = _redraw

    def on_resize(self) -> None:
        # the input's border and padding take 4 cells, the hint's own margin 2
        self.query_one("#filter", Input).placeholder = filter_hint(self.app.size.width - 6)
        self.render_list()  # the legend is shorter on a short terminal, the text column follows the width

    @on(Input.Changed, "#filter")
    def _filter_changed(self) -> None:
        self.render_list()

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self) -> None:
        self.table.focus()

    def render_list(self) -> None:
        s = self.session
        if s is None:
            return
        table = self.table
        system = self.system
        f = core.parse_filter(self.query_one("#filter", Input).value)
        facts = SessionFacts(s, system)
        queries = [q for q in s.project.queries if core.query_matches(f, q, facts)]
        tiers = s.tiers
        if self.sort == "breaks":
            queries.sort(key=lambda q: (b if (b := s.breaks_at(system, q)) is not None else len(tiers) + 1, q.query_id))
        elif self.sort == "feedback":
            queries.sort(key=lambda q: feedback_rank(facts.feedback.get(q.query_id)))  # stable: ladder order within
        matching = len(queries)
        queries = queries[:LIST_CAP]
        if self.covered():  # under the inspector: its j/k get the ids now, the rows are drawn when the list shows
            self._stale = True
            self.post_message(QueryListShown(tuple(q.query_id for q in queries)))
            return
        self._stale = False
        current = table.cursor_row
        named = self.app.size.width >= BREAKS_NAMED_FROM_WIDTH
        # a domain every id starts with says nothing the id does not: its column goes where room is short
        with_domain = named or any(not q.query_id.startswith(q.domain or "\0") for q in s.project.queries)
        rows = []
        for q in queries:
            glyphs = Text()
            for t in tiers:
                glyphs.append_text(figure_glyph(s.figure(system, t.name, q)) if s.asks(t, q.query_id) else Text("·", "dim"))
            # IDs and domains whole (technology-07 … -10 must stay apart); the query text takes the rest
            qid = as_text(q.query_id, one_line=True)
            if q.query_id in self.arrived:
                qid = Text.assemble((NEW_MARK, "bold yellow"), qid)
            if facts.flagged(q):
                qid = Text.assemble((FLAGGED_MARK, "bold red"), qid)
            cells = {"query": qid, "dom": as_text(q.domain or "–", one_line=True),
                     "S/M": Text("M" if q.is_multi_source else "S" if q.is_labelled else "U"),
                     "verdict": verdict_cell(s, q.query_id), "tiers": glyphs}
            if named:
                b = s.breaks_at(system, q)
                cells["breaks"] = as_text(tiers[b].name, "red") if b is not None else Text("–" if s.per_query else "…", "dim")
            if not with_domain:
                del cells["dom"]
            cells["text"] = Text(visible(q.query, one_line=True), no_wrap=True, overflow="ellipsis")
            rows.append((q.query_id, cells))
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
        if queries:
            table.move_cursor(row=min(max(current, 0), len(queries) - 1))
        problems = [visible(x, one_line=True) for x in
                    core.filter_problems(f, s.project.domains, [t.name for t in tiers], s.diagnosis is not None)]
        self.query_one("#query-legend", Static).update(self.legend(s, system, matching, problems))
        self.post_message(QueryListShown(tuple(q.query_id for q in queries)))

    def covered(self) -> bool:
        """A full screen (the inspector) over this one: drawing rows nobody sees would hold up its keys
        (a label there changes every verdict: the whole list again)."""
        top = self.app.screen
        return top is not self.screen and not top.is_modal and self.screen in self.app.screen_stack

    def draw_if_stale(self) -> None:
        if self._stale:
            self.render_list()

    def legend(self, s: Session, system: str, n: int, problems: list[str]) -> Text:
        tiers = s.tiers
        stand_ins = s.stand_ins(system)
        return Text.assemble(
            *[(f"filter: {p}\n", "bold red") for p in problems],
            (f"{self.build_note}\n" if self.build_note else "", "yellow"),
            (f"{n}/{len(s.project.queries)} queries", "bold"),
            (f" (the first {LIST_CAP:,} listed: / narrows)" if n > LIST_CAP else "", "yellow"),
            f" · system {system} (y) · sort {self.sort} (s) · ",
            # every tier, numbered as the glyph columns are (the legend wraps rather than hides tiers)
            ("tiers " + " ".join(f"{i + 1}={visible(t.name, one_line=True)}" for i, t in enumerate(tiers))
             if self.app.size.height >= TIER_NAMES_FROM_HEIGHT else f"tiers 1–{len(tiers)} in ladder order (1: Overview names them)"),
            (f"  ● all gold in top {s.k} ◐ some ○ none", "dim"),
            # a narrow terminal keeps that row for a query
            (f" · verdicts of {core.verdict_system(s)} "
             + (f"({VERDICT_FILTERS})" if self.app.size.width >= VERDICT_WORDS_FROM_WIDTH else "(v: words: f1)") if s.diagnosis else "",
             "dim"),
            (f" · {NEW_MARK}new from traces ({len(self.arrived)})" if self.arrived else "", "bold yellow"),
            (f"\nuntil {system} is ready there: " + stand_in_text(stand_ins, [t.name for t in tiers])
             if stand_ins else "", "yellow"),
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


def feedback_rank(fb) -> tuple[int, float]:
    """The feedback sort: flagged first (lowest score first), then other scored answers by score,
    then queries without feedback."""
    if fb is None:
        return (2, 0.0)
    return (0 if fb.negative else 1, fb.score if fb.score is not None else 0.0)


def verdict_cell(s: Session, query_id: str) -> Text:
    """The query list's verdict: the first failing tier's, else PASS, else NOT-YET (workbench.diagnosis.live)."""
    v = s.diagnosis.summary(query_id, core.verdict_system(s)) if s.diagnosis else None
    if v is None:
        return Text("…", "dim")
    return Text(v.verdict if v.verdict != "USE-UNDER-DISTRACTORS" else "USE-DISTR", VERDICT_STYLE[v.verdict])
