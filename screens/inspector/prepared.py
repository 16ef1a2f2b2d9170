"""What the inspector's panes show for one inspection, made in the inspect worker: the ranking
tables' rows (each title's word diff against the gold it is told apart from), the gold-rank
summary, and each near miss's head and word diff. A key (n, p, ], [, 1) then only puts prepared
text on screen, and the UI thread reads no document (titles and texts are read here, off it).

The record is immutable data posted to the screen (InspectionReady); nothing here touches a widget."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rich.console import Group
from rich.text import Text
from textual.message import Message

from screens.inspector.nearmiss import miss_diff, miss_head
from screens.inspector.rankings import RankingRow, gold_ranks, ranking_rows, tables_that_fit, title_width
from workbench.session import Document, ModelEvidence, QueryInspection


@dataclass(frozen=True)
class PreparedMiss:
    head: Text
    diff: tuple[Text, Text] | None  # distractor, gold (None: the inspection holds no diff for it)


@dataclass(frozen=True)
class PreparedTables:
    """The ranking tables' rows for one screen width (the titles take the width there is)."""

    screen_width: int
    title_width: int
    rows: Mapping[str, tuple[RankingRow, ...]]  # system -> its rows, in order
    gold_ranks: Group


@dataclass(frozen=True)
class PreparedInspection:
    inspection: QueryInspection
    gold_titles: Mapping[int, str]  # the query's gold documents (the head names them)
    misses: tuple[PreparedMiss, ...]  # one per near miss, in the stepper's order
    tables: PreparedTables


def prepare_tables(ins: QueryInspection, documents: Mapping[int, Document], screen_width: int) -> PreparedTables:
    width = title_width(screen_width, tables_that_fit(screen_width, len(ins.systems))) if ins.systems else 12
    rows = {sr.system: tuple(ranking_rows(sr, ins, documents, width)) for sr in ins.systems}
    return PreparedTables(screen_width, width, rows, gold_ranks(ins, documents, width))


def prepare(ins: QueryInspection, gold: list[int], documents: Mapping[int, Document], screen_width: int) -> PreparedInspection:
    """Everything the panes draw for ``ins`` at ``screen_width`` (in a worker: it reads documents)."""
    misses = tuple(PreparedMiss(miss_head(ins, i, documents), miss_diff(ins, i, documents))
                   for i in range(len(ins.near_misses)))
    titles = {g: documents[g].title for g in gold if g in documents}
    return PreparedInspection(ins, titles, misses, prepare_tables(ins, documents, screen_width))


class InspectionReady(Message):
    """One query on one tier, prepared for the panes, and the model results already stored for it."""

    def __init__(self, prepared: PreparedInspection, known: dict[str, ModelEvidence]) -> None:
        super().__init__()
        self.prepared, self.known = prepared, known

    @property
    def inspection(self) -> QueryInspection:
        return self.prepared.inspection
