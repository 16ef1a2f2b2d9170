"""The Rankings pane: one table per system (gold and hard negatives marked, gold documents below
the top K at the end) and the gold-rank summary under them."""

from __future__ import annotations

from collections.abc import Mapping

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import DataTable

from screens.render import KIND_LABEL, KIND_STYLE, rank_text
from workbench.safe_text import as_text, visible
from workbench.session import Document, QueryInspection, SystemRanking, system_label

# The labelling keys act on the highlighted row of the focused ranking table, which names them.
LABEL_KEYS = "G gold · H hard neg · N not relevant · A answer · u undo"
NO_RUNS = "No stored runs for this tier yet: wait for the evaluation, or build indexes (Ctrl+B)."


def title_width(screen_width: int, n_systems: int) -> int:
    """Titles get the width there is (GOLD and HN rows often differ in one late word)."""
    return max(24, screen_width // max(1, n_systems) - 20)


def ranking_table(sr: SystemRanking) -> DataTable[Text]:
    """An empty table for one system's ranking (filled once mounted: `fill_ranking`)."""
    t: DataTable[Text] = DataTable(cursor_type="row", classes="ranking")
    t.border_title = system_label(sr.system)
    return t


def fill_ranking(t: DataTable[Text], sr: SystemRanking, ins: QueryInspection, documents: Mapping[int, Document],
                 width: int) -> None:
    """The system's top K, then each gold document it ranks below K (or not at all).

    Row keys are "rank:doc" for the top K and "out:doc" for a gold document below it."""
    t.add_columns("#", "DocID", "title", "score")
    for r in sr.rows:
        style = KIND_STYLE[r.kind]
        label = KIND_LABEL[r.kind]
        title = (f"{label} " if label else "") + visible(r.title, one_line=True)
        cell = Text(f"#{r.rank}", style) if sr.before else Text(str(r.rank), style)
        t.add_row(moved(sr, r.doc_id, cell), Text(str(r.doc_id), style), cut(title, width, style),
                  Text(f"{r.score:.3f}", style), key=f"{r.rank}:{r.doc_id}")
    for g, rank in sr.gold_ranks.items():
        if rank is None or rank > ins.k:
            title = visible(documents[g].title, one_line=True)
            t.add_row(moved(sr, g, rank_text(rank, ins.k, sr.depth)), Text(str(g), "green"),
                      cut(f"GOLD {title}", width, "green italic"), Text("", ""), key=f"out:{g}")


def moved(sr: SystemRanking, doc_id: int, cell: Text) -> Text:
    """A reranked or tuned system's rank cell with the rank its base gave: "#16 → #3"."""
    if not sr.before:
        return cell
    was = sr.before.get(doc_id)
    return Text(f"#{was} → " if was is not None else "— → ", "dim") + cell


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
