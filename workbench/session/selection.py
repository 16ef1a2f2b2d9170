"""What every read command (diagnose, compare, stealers, unjudged, report, positions) starts from,
decided once for the CLI and the TUI: the project under a query-set version, its tiers by a
spec, the query ids asked for, and the built-in retrievers' rankings they read (session/rankings.py)."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from workbench.errors import BadInput
from workbench.progress import Progress
from workbench.project.files import Project
from workbench.records import Tier
from workbench.project.suggest import command


class Selection(NamedTuple):
    """What a read command reads (a tuple: the commands unpack it as project, tiers, query ids)."""

    project: Project
    tiers: list[Tier]
    query_ids: set[str] | None  # None: every query


def select(root: Path, tier_spec: str = "all", queries: str = "", queries_version: str | None = None) -> Selection:
    """The project under the version, its tiers by ``tier_spec`` and the ``queries`` ids (comma list; empty: all)."""
    from workbench.access.ladder import StaleTiersError, load_tiers, select_tiers
    from workbench.project.load import load_project

    project = load_project(root, queries_version)
    try:
        tierset = load_tiers(project)
    except StaleTiersError as exc:  # the hint as a command that runs when pasted (index builds the ladder first)
        raise StaleTiersError(str(exc), hint=f"build the ladder and the indexes: {command('index', root)}") from None
    from workbench.triage.answers import restore_answer_runs

    restore_answer_runs(project, tierset.tiers)  # production's answers never vanish with a damaged run file
    tiers = select_tiers(tierset, tier_spec)
    qids = {q.strip() for q in queries.split(",") if q.strip()} or None
    if qids:
        unknown = sorted(qids - {q.query_id for q in project.queries})
        if unknown:
            raise BadInput(f"unknown query id(s): {unknown[:10]}")
    return Selection(project, tiers, qids)


def tiers_holding(sel: Selection, system: str) -> list[str]:
    """The project's tiers outside the selection with a stored run of ``system`` (a ranking or a
    model's / production's answers): where to look when the selection does not have it."""
    from workbench.access.ladder import load_tiers
    from workbench.access.runs import RunStore
    from workbench.llm.store import LLMRunStore

    chosen = {t.name for t in sel.tiers}
    stores = (RunStore(sel.project), LLMRunStore(sel.project))
    return [t.name for t in load_tiers(sel.project).tiers
            if t.name not in chosen and any(s.path(system, t.name).is_file() for s in stores)]


def unknown_system(sel: Selection, system: str | None, known: list[str]) -> BadInput:
    """The error for a system the selection has no verdicts of, saying where it lives when it is
    stored on other tiers (run:NAME:answers lives on `full`), else which systems are known."""
    elsewhere = tiers_holding(sel, system) if system else []
    if elsewhere:
        return BadInput(f"system {system!r} has no verdicts on the tiers asked for "
                        f"({', '.join(t.name for t in sel.tiers)}); it is stored on: {', '.join(elsewhere)}",
                        hint=f"add its tier: --tiers {','.join(elsewhere)}")
    return BadInput(f"unknown system {system!r}; known: {known}" if known else "no system has verdicts on these tiers")


def needs_rankings(sel: Selection, systems: list[str] | None = None) -> bool:
    """Whether reading ``sel`` first computes some built-in retriever's ranking (a front end shows progress then)."""
    from workbench.session.rankings import missing_rankings

    return bool(missing_rankings(sel.project, sel.tiers, systems))


def ready(sel: Selection, progress: Progress | None = None, systems: list[str] | None = None) -> list[str]:
    """The selection's missing rankings computed (or NotIndexed naming the command to run); see ensure_rankings."""
    from workbench.session.rankings import ensure_rankings

    return ensure_rankings(sel.project, sel.tiers, progress, systems)
