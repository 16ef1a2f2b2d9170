"""The read commands as operations (diagnose --json, compare, stealers, unjudged, report) over a
selection (session/selection.py) whose rankings are ready: what to compute and which system to
show is decided here; `workbench/cli/` prints what these return, a screen renders it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from workbench.session.selection import Selection
from workbench.project.settings import access_k

if TYPE_CHECKING:
    from workbench.diagnosis.verdicts import QueryVerdicts
    from workbench.diagnosis.compare import Comparison
    from workbench.insight.position import PositionTable
    from workbench.insight.stealers import Steal, Stealer
    from workbench.insight.unjudged import UnjudgedRow


class StealersView(msgspec.Struct, frozen=True):
    """`stealers`: every steal in the top ``k``, and the most frequent stealers (none for one query's steals)."""

    k: int
    steals: list[Steal]
    stealers: list[Stealer]


class UnjudgedView(msgspec.Struct, frozen=True):
    """`unjudged`: per system x tier, the top K's documents nobody judged, and where to label them."""

    rows: list[UnjudgedRow]
    label_command: str


class PositionsView(msgspec.Struct, frozen=True):
    """`positions`: long-context recall and correctness by the gold's depth, and what makes the runs when none is stored."""

    tables: list[PositionTable]
    run_command: str


def verdicts(sel: Selection, oracle_model: str | None = None) -> "QueryVerdicts":
    """Every verdict of the selection; ``oracle_model`` settles production's (an unknown one: BadInput first)."""
    from workbench.diagnosis.verdicts import read_verdicts
    from workbench.session.diagnosing import verdict_reader

    return read_verdicts(sel.project, sel.tiers, sel.query_ids, collector=verdict_reader(sel, oracle_model))


def compared(sel: Selection, a: str, b: str, seed: int = 0, against_version: str | None = None) -> "Comparison":
    """The paired test of A and B (two systems, two levels, or B under ``against_version``)."""
    from workbench.diagnosis.compare import compare
    from workbench.project.load import load_project

    project_b = load_project(sel.project.root, against_version) if against_version else None
    return compare(sel.project, sel.tiers, a, b, sel.query_ids, seed=seed, project_b=project_b)


def stolen(sel: Selection, k: int | None = None) -> "list[Steal]":
    """Every steal (a document ranked above an outranked gold one) in the top K (default: the project's)."""
    from workbench.insight.stealers import steals

    return steals(sel.project, sel.tiers, k or access_k(sel.project), sel.query_ids)


def unjudged_rows(sel: Selection, k: int | None = None) -> "list[UnjudgedRow]":
    """Per system × tier: the top K's documents nobody judged (default K: the project's)."""
    from workbench.insight.unjudged import unjudged

    return unjudged(sel.project, sel.tiers, k or access_k(sel.project), sel.query_ids)


def stealers_view(sel: Selection, k: int | None = None, limit: int = 5, one_query: bool = False) -> StealersView:
    """The steals in the top K (default: the project's) and, unless ``one_query``, the ``limit`` most frequent stealers."""
    from workbench.insight.stealers import top_stealers

    found = stolen(sel, k)
    return StealersView(k or access_k(sel.project), found, [] if one_query else top_stealers(sel.project, found, limit))


def unjudged_view(sel: Selection, k: int | None = None) -> UnjudgedView:
    """``unjudged_rows`` and the command that opens the TUI to label them."""
    from workbench.project.suggest import command

    return UnjudgedView(unjudged_rows(sel, k), command("open", sel.project.root))


def positions_view(sel: Selection) -> PositionsView:
    """Localization recall and answer correctness by the gold's depth, from the stored long-context runs."""
    from workbench.insight.position import position_tables
    from workbench.project.suggest import command

    return PositionsView(position_tables(sel.project, sel.tiers, query_ids=sel.query_ids),
                         command("run", sel.project.root, task="localize,qa"))


def diagnosis_report(sel: Selection, seed: int = 0, focus: str = ""):
    """The report of the selection (one query asked for: that query's page); ``focus`` "production":
    production's system leads (`report --since`)."""
    from workbench.report import make_report

    return make_report(sel.project, sel.tiers, sel.query_ids, seed=seed, focus=focus)
