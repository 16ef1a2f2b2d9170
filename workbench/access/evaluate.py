"""Access evaluation: rank every tier's queries with every system and score them.

Retriever runs are computed (or reused from the run store when their key is unchanged);
model localization runs are read from the store (they are produced by `workbench run`);
imported production runs (`run:<name>`, workbench/triage/runs.py) are restricted to each tier.
All are scored by the same metrics code, so they sit in one table. Unlabelled queries (no gold)
are ranked and stored like any other but left out of the figures, and counted.
"""

from __future__ import annotations

from typing import Callable

import msgspec

from workbench.access.indexing import index_status
from workbench.access.metrics import query_access, summarize
from workbench.names import SystemName
from workbench.progress import Progress
from workbench.project.settings import access_k
from workbench.project.files import Project
from workbench.records import AccessSummary, QueryAccess, RankedList, Tier
from workbench.access.retrievers import Retriever
from workbench.access.runs import RunStore, SystemRun, query_text_hash, tier_docs_hash, tier_hash

DEFAULT_DEPTH = 100  # ranks kept per query: deep enough to show where a gold document fell


class SystemResult(msgspec.Struct, frozen=True):
    system: str
    tier: str
    summary: AccessSummary
    per_query: list[QueryAccess]
    reused: bool
    n_unlabelled: int = 0  # queries of the tier without gold: ranked, not scored
    # production's runs (run:NAME): labelled queries of the tier it never served (left out of n, never
    # scored zero), those served with an unknown ranking, and those whose truncated ranking leaves
    # the figures at K unknown (query → the depth past which its ranking says nothing)
    not_served: list[str] = []
    ranking_unknown: list[str] = []
    unknown_past_depth: dict[str, int] = {}


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
    if cached is not None and cached.k >= depth and cached.docs_hash and _covers(project, cached, tier):
        return cached, True
    # Every original query of the tier is ranked (by its fixed text), whatever version is
    # loaded: one stored run serves every query-set version; scoring picks the version's queries.
    queries = [project.original_query(q) for q in tier.query_ids]
    texts = {q.query_id: query_text_hash(q.query) for q in queries}
    reusable = _reusable(store.load(retriever.name, tier.name), key, depth, texts)
    todo = [q for q in queries if q.query_id not in reusable]
    retriever.prepare([q.query for q in todo])
    # every query still to rank at once: dense search does them in a few matrix products
    found = dict(zip([q.query_id for q in todo], retriever.search_many(
        tier, [q.query for q in todo], depth, (lambda n: progress(len(reusable) + n)) if progress else None)))
    rankings = [RankedList(q.query_id, reusable[q.query_id] if q.query_id in reusable else found[q.query_id])
                for q in queries]
    if progress:
        progress(len(queries))
    run = SystemRun(retriever.name, tier.name, tier_hash(project, tier), key, depth, rankings, texts,
                    tier_docs_hash(project, tier))
    store.save(run)
    return run, False


def _covers(project: Project, run: SystemRun, tier: Tier) -> bool:
    """The run ranks exactly the tier's queries, each for its current text (a query added since: not)."""
    texts = {q: query_text_hash(project.original_query(q).query) for q in tier.query_ids}
    return [r.query_id for r in run.rankings] == list(tier.query_ids) and run.texts == texts


def _reusable(previous: SystemRun | None, key: str, depth: int, texts: dict[str, str]) -> dict[str, list]:
    """Rankings of an older run on the same index (same key) whose query text is unchanged: when
    only the tier's query set or labels changed, only new queries are searched."""
    if previous is None or previous.key != key or previous.k < depth:
        return {}
    return {r.query_id: r.hits[:depth] for r in previous.rankings
            if r.query_id in texts and previous.texts.get(r.query_id) == texts[r.query_id]}


def score_run(project: Project, run: SystemRun, k: int) -> tuple[AccessSummary, list[QueryAccess]]:
    """Scored against the loaded query-set version's gold; queries it leaves out are not scored
    (a gold document that is not in the tier simply cannot be retrieved there), nor are its
    unlabelled queries (no gold: no access figures), nor a query whose ranking was truncated above
    K with gold not found before its depth (unknown_past_depth: where that gold is, nothing says)."""
    per_query = []
    for r in run.rankings:
        if not (project.has_query(r.query_id) and project.query(r.query_id).gold_doc_ids):
            continue
        qa = query_access(r.query_id, [h.doc_id for h in r.hits], project.query(r.query_id).gold_doc_ids, k)
        if not _unknown_past_depth(run, qa, k):
            per_query.append(qa)
    return summarize(per_query, k), per_query


def _unknown_past_depth(run: SystemRun, qa: QueryAccess, k: int) -> bool:
    depth = run.depths.get(qa.query_id)
    return depth is not None and depth < k and any(rank is None or rank > depth for rank in qa.gold_ranks.values())


def served_figures(project: Project, run: SystemRun, tier: Tier, k: int) -> dict:
    """What a production run's figures leave out, for SystemResult: the tier's labelled queries it
    never served, those whose ranking is unknown, those unknown past a truncation depth."""
    served = {r.query_id for r in run.rankings} | set(run.unknown)
    labelled = [q for q in project.tier_query_ids(tier) if project.query(q).gold_doc_ids]
    truncated = {}
    for r in run.rankings:
        if r.query_id in run.depths and project.has_query(r.query_id) and project.query(r.query_id).gold_doc_ids:
            qa = query_access(r.query_id, [h.doc_id for h in r.hits], project.query(r.query_id).gold_doc_ids, k)
            if _unknown_past_depth(run, qa, k):
                truncated[r.query_id] = run.depths[r.query_id]
    return {"not_served": [q for q in labelled if q not in served],
            "ranking_unknown": [q for q in run.unknown if q in set(labelled)],
            "unknown_past_depth": truncated}


def unlabelled_count(project: Project, tier: Tier) -> int:
    return sum(not project.query(q).gold_doc_ids for q in project.tier_query_ids(tier))


# The stored runs a tier's figures include beside its retrievers': the kinds above access (imported,
# tuned, reranked: workbench.rerank.systems.stored_runs) are passed down by the caller.
StoredRuns = Callable[[Project, Tier, "RunStore"], list[SystemRun]]


def model_runs(project: Project, tier: Tier, store: RunStore) -> list[SystemRun]:
    """Stored model localization runs that match the tier's current contents (what access itself
    knows; imported, tuned and reranked runs: workbench.rerank.systems.stored_runs)."""
    return [run for run in store.runs(tier) if SystemName.parse(run.system).kind == "model"]


def _per_query(progress: Progress | None, stage: str, total: int) -> Callable[[int], None] | None:
    if progress is None:
        return None
    report = progress
    return lambda n: report(stage, n, total)


def evaluate(
    project: Project,
    tiers: list[Tier],
    retrievers: dict[str, Retriever],
    k: int | None = None,
    depth: int = DEFAULT_DEPTH,
    include_models: bool = True,
    progress: Progress | None = None,
    built_only: bool = False,
    stored: StoredRuns = model_runs,
) -> list[SystemResult]:
    """Access figures per tier × system. With built_only, a retriever is left out of a tier whose
    indexes it needs are not built (yet) instead of failing; ``stored``: which stored runs count
    beside the retrievers' (every kind: workbench.rerank.systems.stored_runs). ``k`` None: the project's K."""
    k = access_k(project) if k is None else k
    store = RunStore(project)
    results = []
    needed = tuple(sorted(set().union(*(r.index_kinds for r in retrievers.values()))))  # only these are read
    for tier in tiers:
        unlabelled = unlabelled_count(project, tier)
        built = {kind for kind, state in index_status(project, tier, needed).items() if state == "ok"} if built_only else set()
        for name, retriever in retrievers.items():
            if built_only and not retriever.index_kinds <= built:
                continue
            run, reused = retrieve_tier(retriever, tier, project, max(depth, k), store,
                                        _per_query(progress, f"{name} {tier.name}", len(tier.query_ids)))
            summary, per_query = score_run(project, run, k)
            results.append(SystemResult(name, tier.name, summary, per_query, reused, unlabelled))
        if include_models:
            for run in stored(project, tier, store):
                summary, per_query = score_run(project, run, k)
                served = served_figures(project, run, tier, k) if SystemName.parse(run.system).kind == "run" else {}
                results.append(SystemResult(run.system, tier.name, summary, per_query, True, unlabelled, **served))
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


def results_json(results: list[SystemResult], k: int, use: msgspec.Struct | None = None, queries_version: str = "original") -> dict:
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
    doc: dict = {"k": k, "queries_version": queries_version, "tiers": tiers, "queries": queries,
           "unlabelled": {r.tier: r.n_unlabelled for r in results},
           # production's runs: n is the queries it served; these are left out of its figures, named
           "not_served": {}, "ranking_unknown": {}, "unknown_past_depth": {}}
    for r in results:
        for what in ("not_served", "ranking_unknown", "unknown_past_depth"):
            if getattr(r, what):
                doc[what].setdefault(r.tier, {})[r.system] = getattr(r, what)
    if use:
        doc["use"] = msgspec.to_builtins(use)
    return doc
