"""The stored rankings the sharper views read: each tier's runs in the systems' display order,
and in each run the rankings of labelled queries (optionally of some queries only)."""

from __future__ import annotations

from collections.abc import Iterator

from workbench.access.retrievers import system_order
from workbench.access.runs import RunStore, SystemRun
from workbench.project.files import Project
from workbench.records import Query, RankedList, Tier


def ordered_runs(project: Project, tier: Tier) -> list[SystemRun]:
    return sorted(RunStore(project).runs(tier), key=lambda r: system_order(r.system))


def labelled_rankings(project: Project, run: SystemRun, query_ids: set[str] | None = None) -> Iterator[tuple[RankedList, Query]]:
    """(ranking, query) for each ranking of ``run`` whose query is in the project, labelled, and
    among ``query_ids`` when given."""
    for ranked in run.rankings:
        if not project.has_query(ranked.query_id) or (query_ids is not None and ranked.query_id not in query_ids):
            continue
        q = project.query(ranked.query_id)
        if q.is_labelled:
            yield ranked, q
