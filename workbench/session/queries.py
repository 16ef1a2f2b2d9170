"""Adding a query, one operation for both front ends: `add-query` and the TUI's "add a query
from a log" (session/labelling.add_query_from_log) write it through `add_query`, so its id, domain
and resolved IDs cannot drift between them."""

from __future__ import annotations

import msgspec

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.access.evaluate import SystemResult
    from workbench.progress import Progress
    from workbench.project.files import Project
    from workbench.records import Query, Tier, TierSet


def add_query(root: Path, text: str, answer: str = "", gold: list[str] | None = None, negatives: list[str] | None = None,
              domain: str | None = None, query_id: str | None = None) -> Query:
    """The query written to queries.jsonl (gold / negatives: source ids or DocIDs; domain None: the
    gold documents' domain, or the project's only one)."""
    from workbench.triage.queries import add_query as write

    return write(root, text, answer, gold or [], negatives or [], domain, query_id)


class RankedQuery(msgspec.Struct, frozen=True):
    """The project after the add (under ``version`` when given), its tiers, the added query, and
    every system's figures: its rankings are stored."""

    project: Project
    tierset: TierSet
    query_id: str
    results: list[SystemResult]

    @property
    def tiers(self) -> list[Tier]:
        return list(self.tierset.tiers)


def rank_queries(root: Path, version: str | None = None, tierset: TierSet | None = None,
                 progress: Progress | None = None) -> tuple[Project, TierSet, list[SystemResult]]:
    """The one ranking step after an edit (add-query, the TUI's add and every label): with no
    ``tierset`` (queries.jsonl changed), tiers and indexes made current first; then every built
    retriever's figures under ``version``'s labels, at the project's K, beside the stored runs
    that count. A ranking already stored for a query is kept (access/runs.py keys it by the
    tier's documents and the query's text), so only the new query is ranked."""
    from workbench.access.indexing import build_indexes
    from workbench.access.ladder import ensure_tiers
    from workbench.access.retrievers import make_retrievers
    from workbench.project.load import load_project
    from workbench.session.evaluation import evaluate_systems

    if tierset is None:
        original = load_project(root)
        tierset = ensure_tiers(original)
        build_indexes(original, list(tierset.tiers), progress=progress)
    project = load_project(root, version)
    # only built retrievers: labelling while the dense index builds updates what is built
    results = evaluate_systems(project, list(tierset.tiers), make_retrievers(project, None), built_only=True,
                               progress=progress)
    return project, tierset, results


def rank_added(root: Path, query_id: str, progress: Progress | None = None) -> RankedQuery:
    """Tiers, indexes and every retriever's rankings brought up to date for the added query."""
    project, tierset, results = rank_queries(root, progress=progress)
    return RankedQuery(project, tierset, query_id, results)


class TopRanks(msgspec.Struct, frozen=True):
    """One system's ranking of the added query on one tier: its top documents (DocID, title) and
    where each gold document landed (None: not ranked)."""

    tier: str
    system: str
    top: list[tuple[int, str]]
    gold_ranks: dict[int, int | None]


class AddedQuery(msgspec.Struct, frozen=True):
    """`add-query`: the query written, and (unless it was only added) its top documents per tier
    and system."""

    query: Query
    ranks: list[TopRanks] | None


def top_ranks(project: Project, tiers: list[Tier], query_id: str, shown: int = 3) -> list[TopRanks]:
    """The query's ``shown`` top documents per tier (where it is in the tier) and system."""
    from workbench.inspection.rankings import inspect_stored

    q = project.query(query_id)
    out = []
    for t in tiers:
        if query_id not in t.query_ids:
            continue
        for s in inspect_stored(project, t, q).systems:
            out.append(TopRanks(t.name, s.system, [(r.doc_id, r.title) for r in s.rows[:shown]], dict(s.gold_ranks)))
    return out


def add_and_rank(root: Path, text: str, answer: str = "", gold: list[str] | None = None, negatives: list[str] | None = None,
                 domain: str | None = None, query_id: str | None = None, *, rank: bool = True,
                 progress: Progress | None = None) -> AddedQuery:
    """`add-query`: the query added (as the TUI's add writes it), then run through every retriever
    on every tier (``rank``), with its top documents."""
    q = add_query(root, text, answer, gold, negatives, domain, query_id)
    if not rank:
        return AddedQuery(q, None)
    ranked = rank_added(root, q.query_id, progress=progress)
    return AddedQuery(q, top_ranks(ranked.project, ranked.tiers, ranked.query_id))
