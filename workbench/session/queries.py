"""Adding a query, one operation for both front ends: `add-query` and the TUI's "add a query
from a log" (session/labelling.add_query_from_log) write it through `add_query`, so its id, domain
and resolved IDs cannot drift between them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from workbench.progress import Progress
    from workbench.project.files import Project
    from workbench.records import Query, Tier


def add_query(root: Path, text: str, answer: str = "", gold: list[str] | None = None, negatives: list[str] | None = None,
              domain: str | None = None, query_id: str | None = None) -> Query:
    """The query written to queries.jsonl (gold / negatives: source ids or DocIDs; domain None: the
    gold documents' domain, or the project's only one)."""
    from workbench.triage.queries import add_query as write

    return write(root, text, answer, gold or [], negatives or [], domain, query_id)


class RankedQuery(NamedTuple):
    """The project after the add, its tiers, the added query: its rankings are stored."""

    project: Project
    tiers: list[Tier]
    query_id: str


def rank_added(root: Path, query_id: str, progress: Progress | None = None) -> RankedQuery:
    """Tiers, indexes and every retriever's rankings brought up to date for the added query."""
    from workbench.triage.queries import refresh

    project, tiers, _ = refresh(root, progress=progress)
    return RankedQuery(project, tiers, query_id)
