"""The read commands as operations (diagnose, compare, stealers, unjudged, report) over a
selection (session/selection.py) whose rankings are ready: what to compute and which system to
show is decided here; `workbench/cli/` prints what these return, a screen renders it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.errors import BadInput
from workbench.session.selection import Selection
from workbench.project.settings import access_k

if TYPE_CHECKING:
    from workbench.diagnosis.verdicts import QueryVerdicts
    from workbench.diagnosis.compare import Comparison
    from workbench.insight.stealers import Steal
    from workbench.insight.unjudged import UnjudgedRow


def verdicts(sel: Selection, oracle_model: str | None = None) -> "QueryVerdicts":
    """Every verdict of the selection; ``oracle_model`` settles production's (an unknown one: BadInput first)."""
    from workbench.diagnosis.verdicts import VerdictReader, read_verdicts
    from workbench.llm.providers import resolve_model

    if oracle_model is not None:
        resolve_model(sel.project, oracle_model)  # an unknown model is a usage error before anything is read
    return read_verdicts(sel.project, sel.tiers, sel.query_ids, collector=VerdictReader(sel.project, oracle_model=oracle_model))


def shown_system(qv: "QueryVerdicts", system: str | None = None, sel: Selection | None = None) -> str:
    """The system whose verdicts are listed: the one asked for, else the diagnosis' own choice
    (one not among them: BadInput, saying on which tiers it lives when ``sel`` is given)."""
    from workbench.session.selection import unknown_system

    names = [s.name for s in qv.systems]
    chosen = system or qv.primary
    if chosen is None or chosen not in names:
        if sel is not None:
            raise unknown_system(sel, chosen, names)
        raise BadInput(f"unknown system {chosen!r}; known: {names}" if names else "no system has verdicts on these tiers")
    return chosen


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


def diagnosis_report(sel: Selection, seed: int = 0, focus: str = ""):
    """The report of the selection (one query asked for: that query's page); ``focus`` "production":
    production's system leads (`report --since`)."""
    from workbench.report import make_report

    return make_report(sel.project, sel.tiers, sel.query_ids, seed=seed, focus=focus)
