"""The Rankings pane: one table per system (gold and hard negatives marked, gold documents below
the top K at the end) and the gold-rank summary under them."""

from __future__ import annotations

from collections.abc import Mapping

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import events
from textual.widgets import DataTable

from screens.render import KIND_LABEL, KIND_STYLE, rank_text
from workbench.safe_text import as_text, visible
from workbench.session import Document, QueryInspection, SystemRanking, salient_changes, system_label, word_diff

# The labelling keys act on the highlighted row of the focused ranking table, which names them.
LABEL_KEYS = "G gold · H hard neg · N not relevant · A answer · u undo"
NO_RUNS = "No stored runs for this tier yet: wait for the evaluation, or build indexes (Ctrl+B)."


TABLE_MIN_WIDTH = 56  # one ranking table needs this much to show a title's distinguishing part
RANKING_CHROME = 26  # a table's border, the #, DocID and score columns and every cell's padding


def tables_that_fit(screen_width: int, n_systems: int) -> int:
    """How many systems' tables sit side by side (at 80 columns one, with y to switch system)."""
    return max(1, min(n_systems, screen_width // TABLE_MIN_WIDTH))


def title_width(screen_width: int, n_tables: int) -> int:
    """Titles get the width there is once the other columns are drawn (the score stays in view)."""
    return max(12, screen_width // max(1, n_tables) - RANKING_CHROME)


def distinct_title(prefix: str, title: str, others: list[str], width: int, style: str, values: list[str]) -> Text:
    """A row's title at most ``width`` cells, showing where it differs from the most similar of
    ``others`` (a near miss against the gold it imitates, a gold against its imitator): a long
    title is cut before its first differing word rather than at its end, the differing words are
    underlined, and ``values`` (the document's own distinguishing values) follow where room is."""
    diff = max((word_diff(title, o) for o in others if o != title), key=lambda d: d.similarity, default=None)
    spans = diff.left if diff is not None and diff.similarity >= 0.3 else []
    text = Text(prefix, style)
    body = Text()
    first = None
    for sp in spans:
        if sp.changed and first is None:
            first = len(body)
        body.append(sp.text, f"{style} underline" if sp.changed else style)
    if not spans:
        body = Text(title, style)
    room = width - len(text)
    if first is not None and len(body) > room and first > room // 3:
        start = body.plain.rfind(" ", 0, max(0, first - 8)) + 1  # a little context before the change
        tail = body[start:]
        keep = body.plain.rfind(" ", 0, max(0, room - len(tail) - 1))  # and the start (often the entity)
        body = (body[:keep] if keep > 0 else Text()) + Text("…", style) + tail
    if len(body) > room:
        body = body[: max(1, room - 1)] + Text("…", style)
    text.append_text(body)
    extra = [v for v in values if v not in text.plain][:3]
    if extra and len(text) + 3 + len(", ".join(extra)) <= width:
        text.append(" ‹" + ", ".join(extra) + "›", "bold yellow")
    return text


class RankingTable(DataTable[Text]):
    """One system's ranking. A change of height alone (the task bar coming or going while a model
    runs) keeps the rows as drawn: DataTable would drop every cached line and draw the table anew,
    which in a hidden tab falls on the key that shows it (tens of milliseconds)."""

    _width_seen = -1
    _focus_row: int | None = None

    def focus_row_once_mounted(self, row: int) -> None:
        """Take the focus with the cursor on ``row`` as soon as mounted (a relabel: back where the user was)."""
        self._focus_row = row

    def on_mount(self) -> None:
        if self._focus_row is not None:
            self.move_cursor(row=self._focus_row)
            self.focus()

    def _on_resize(self, event: events.Resize) -> None:
        if event.size.width == self._width_seen:
            event.prevent_default()  # no line of the table depends on its height: DataTable's handler skipped
        self._width_seen = event.size.width


def ranking_table() -> RankingTable:
    """An empty table for one system's ranking (`fill_ranking` fills it, before or after mounting)."""
    return RankingTable(cursor_type="row", classes="ranking")


RankingRow = tuple[tuple[Text, Text, Text, Text], str]  # the cells (#, DocID, title, score) and the row key


def ranking_rows(sr: SystemRanking, ins: QueryInspection, documents: Mapping[int, Document], width: int) -> list[RankingRow]:
    """The system's top K, then each gold document it ranks below K (or not at all): each row's
    cells and key ("rank:doc" for the top K, "out:doc" for a gold document below it). Made in the
    inspect worker (screens.inspector.prepared): each title's word diff is the costly part."""
    gold_titles = [visible(documents[g].title, one_line=True) for g in ins.gold if g in documents]
    imitators: dict[int, list[str]] = {}
    for nm in ins.near_misses:
        imitators.setdefault(nm.imitates, []).append(visible(nm.title, one_line=True))
    rows: list[RankingRow] = []
    for r in sr.rows:
        style = KIND_STYLE[r.kind]
        label = KIND_LABEL[r.kind]
        title = visible(r.title, one_line=True)
        d = ins.diffs.get(r.doc_id)
        values = [visible(v, one_line=True) for v in salient_changes(d)[0]] if d is not None else []
        others = imitators.get(r.doc_id, []) + [g for g in gold_titles if g != title] if r.kind == "gold" else gold_titles
        cell = Text(f"#{r.rank}", style) if sr.before else Text(str(r.rank), style)
        rows.append(((moved(sr, r.doc_id, cell), Text(str(r.doc_id), style),
                      distinct_title(f"{label} " if label else "", title, others, width, style, values),
                      Text(f"{r.score:.3f}", style)), f"{r.rank}:{r.doc_id}"))
    for g, rank in sr.gold_ranks.items():
        if rank is None or rank > ins.k:
            title = visible(documents[g].title, one_line=True)
            rows.append(((moved(sr, g, rank_text(rank, ins.k, sr.depth)), Text(str(g), "green"),
                          cut(f"GOLD {title}", width, "green italic"), Text("", "")), f"out:{g}"))
    return rows


def fill_ranking(t: DataTable[Text], system: str, rows: tuple[RankingRow, ...] | list[RankingRow]) -> None:
    """The prepared rows of one system's ranking, in place of what the table showed."""
    t.clear(columns=True)
    t.border_title = system_label(system)
    t.add_columns("#", "DocID", "title", "score")
    for cells, key in rows:
        t.add_row(*cells, key=key)


def moved(sr: SystemRanking, doc_id: int, cell: Text) -> Text:
    """A reranked or tuned system's rank cell with the rank its base gave: "#16 → #3"."""
    if not sr.before:
        return cell
    was = sr.before.get(doc_id)
    return Text(f"#{was} → " if was is not None else "— → ", "dim") + cell


def first_row_doc(sr: SystemRanking, k: int) -> int | None:
    """The DocID of a freshly filled table's first row (its cursor's start): the top of the ranking,
    else the first gold document below K."""
    if sr.rows:
        return sr.rows[0].doc_id
    return next((g for g, rank in sr.gold_ranks.items() if rank is None or rank > k), None)


def row_doc(key: str) -> int:
    """The DocID of a ranking table's row key ("rank:doc" or "out:doc")."""
    return int(key.rsplit(":", 1)[1])


def gold_ranks(ins: QueryInspection, documents: Mapping[int, Document], width: int) -> Group:
    """Each gold document's rank in each system, and how many near misses there are to step through."""
    tbl = Table.grid(padding=(0, 1))
    tbl.add_column(style="green", no_wrap=True)
    for sr in ins.systems:
        tbl.add_column(no_wrap=True)
    tbl.add_row(Text("gold rank", "dim"), *[as_text(system_label(sr.system), "bold") for sr in ins.systems])
    for g in ins.gold:
        title = visible(documents[g].title, one_line=True)
        tbl.add_row(cut(f"{g} {title}", width + 6, ""), *[rank_text(sr.gold_ranks.get(g), ins.k, sr.depth) for sr in ins.systems])
    n = len(ins.near_misses)
    foot = Text(f"{n} near miss(es) ranked above gold — n/p to step through them", "yellow" if n else "dim")
    return Group(tbl, foot)


def cut(text: str, width: int, style: str) -> Text:
    """One line of at most ``width`` cells, an ellipsis where it was cut."""
    return Text(text if len(text) <= width else text[: width - 1] + "…", style)
