"""Access evaluation: rank every tier's queries with every system and score them.

Retriever runs are computed (or reused from the run store when their key is unchanged);
model localization runs are read from the store (they are produced by `workbench run`).
Both are scored by the same metrics code, so they sit in one table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import msgspec

from workbench.metrics import query_access, summarize
from workbench.names import SystemName
from workbench.progress import Progress
from workbench.project import Project
from workbench.records import AccessSummary, QueryAccess, RankedList, Tier
from workbench.retrievers import Retriever
from workbench.runs import RunStore, SystemRun, tier_hash

if TYPE_CHECKING:
    from workbench.llm.report import UseTable

DEFAULT_DEPTH = 100  # ranks kept per query: deep enough to show where a gold document fell


class SystemResult(msgspec.Struct, frozen=True):
    system: str
    tier: str
    summary: AccessSummary
    per_query: list[QueryAccess]
    reused: bool


def retrieve_tier(
    retriever: Retriever,
    tier: Tier,
    project: Project,
    depth: int,
    store: RunStore,
    progress: Callable[[int], None] | None = None,
) -> tuple[SystemRun, bool]:
    """The retriever's run on a tier: from the store if current, else computed and saved."""
    key = retriever.key(tier)
    cached = store.load_if_current(retriever.name, tier, key)
    if cached is not None and cached.k >= depth:
        return cached, True
    queries = [project.query(q) for q in tier.query_ids]
    retriever.prepare([q.query for q in queries])
    rankings = []
    for n, q in enumerate(queries, 1):
        rankings.append(RankedList(q.query_id, retriever.search(tier, q.query, depth)))
        if progress:
            progress(n)
    run = SystemRun(retriever.name, tier.name, tier_hash(project, tier), key, depth, rankings)
    store.save(run)
    return run, False


def score_run(project: Project, run: SystemRun, k: int) -> tuple[AccessSummary, list[QueryAccess]]:
    per_query = [
        query_access(r.query_id, [h.doc_id for h in r.hits], project.query(r.query_id).gold_doc_ids, k)
        for r in run.rankings
    ]
    return summarize(per_query, k), per_query


def model_runs(project: Project, tier: Tier, store: RunStore) -> list[SystemRun]:
    """Stored model localization runs that match the tier's current contents."""
    return [run for run in store.runs(tier) if SystemName.parse(run.system).kind != "retriever"]


def _per_query(progress: Progress | None, stage: str, total: int) -> Callable[[int], None] | None:
    if progress is None:
        return None
    report = progress
    return lambda n: report(stage, n, total)


def evaluate(
    project: Project,
    tiers: list[Tier],
    retrievers: dict[str, Retriever],
    k: int = 10,
    depth: int = DEFAULT_DEPTH,
    include_models: bool = True,
    progress: Progress | None = None,
) -> list[SystemResult]:
    store = RunStore(project)
    results = []
    for tier in tiers:
        for name, retriever in retrievers.items():
            run, reused = retrieve_tier(retriever, tier, project, max(depth, k), store,
                                        _per_query(progress, f"{name} {tier.name}", len(tier.query_ids)))
            summary, per_query = score_run(project, run, k)
            results.append(SystemResult(name, tier.name, summary, per_query, reused))
        if include_models:
            for run in model_runs(project, tier, store):
                summary, per_query = score_run(project, run, k)
                results.append(SystemResult(run.system, tier.name, summary, per_query, True))
    return results


def summary_figures(s: AccessSummary) -> dict[str, float | int | None]:
    k = s.k
    return {
        "R@1": s.r_at_1,
        f"SR@{k}": s.sr_at_k,
        f"FR@{k}": s.fr_at_k,
        f"MRR@{k}": s.mrr_at_k,
        "nDCG@10": s.ndcg_at_10,
        f"SR-FR@{k}": s.multi_gap,
        "n_queries": s.n_queries,
        "n_single": s.n_single,
        "n_multi": s.n_multi,
    }


def results_json(results: list[SystemResult], k: int, use: UseTable | None = None) -> dict:
    """The stable machine-readable eval document (see README: `eval --json`)."""
    tiers: dict[str, dict] = {}
    queries: dict[str, dict] = {}
    for r in results:
        tiers.setdefault(r.tier, {})[r.system] = summary_figures(r.summary)
        queries.setdefault(r.tier, {})[r.system] = {
            q.query_id: {
                "gold_ranks": {str(d): rank for d, rank in q.gold_ranks.items()},
                f"SR@{k}": q.sr_at_k,
                f"FR@{k}": q.fr_at_k,
                "R@1": q.r_at_1,
            }
            for q in r.per_query
        }
    doc = {"k": k, "tiers": tiers, "queries": queries}
    if use:
        doc["use"] = msgspec.to_builtins(use)
    return doc
