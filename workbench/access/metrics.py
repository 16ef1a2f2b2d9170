"""Access metrics (docs/METHOD.md §1, appendix A.5 of EverMemBench-S), one code path for every system.

R_q@K is the first K unique DocIDs of a system's ranking. Then, per query:
  SR@K = |R_q@K ∩ G_q| / |G_q|          (all queries)
  R@1  = 1[R_q@1 ∈ G_q]                  (single-source queries only)
  FR@K = 1[G_q ⊆ R_q@K]                  (multi-source queries only)
  MRR@K, nDCG@10 with binary relevance   (all queries)
An empty ranking (a model that output no DocIDs) scores zero, never "skipped".
"""

from __future__ import annotations

import math
from statistics import fmean
from typing import Callable, Hashable, Iterable, TypeVar

from workbench.records import AccessSummary, QueryAccess

T = TypeVar("T")


def unique_in_order(items: Iterable[T], key: Callable[[T], Hashable] | None = None) -> list[T]:
    """The first occurrence of each item (or of each ``key(item)``), in order."""
    if key is None:
        return list(dict.fromkeys(items))  # the same, in C (every query of every run of an eval goes through here)
    seen: set[Hashable] = set()
    out = []
    for item in items:
        k = item if key is None else key(item)
        if k not in seen:
            seen.add(k)
            out.append(item)
    return out


def query_access(query_id: str, ranked: Iterable[int], gold: Iterable[int], k: int) -> QueryAccess:
    ranking = unique_in_order(ranked)
    gold_set = set(gold)
    if not gold_set:
        raise ValueError(f"query {query_id!r} has no gold documents")
    position = dict(zip(ranking, range(1, len(ranking) + 1)))
    gold_ranks = {g: position.get(g) for g in sorted(gold_set)}
    top_k = set(ranking[:k])
    hits_k = len(top_k & gold_set)
    multi = len(gold_set) > 1
    first = min((r for r in gold_ranks.values() if r is not None), default=None)
    dcg = sum(1.0 / math.log2(r + 1) for r in gold_ranks.values() if r is not None and r <= 10)
    idcg = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(gold_set), 10) + 1))
    return QueryAccess(
        query_id=query_id,
        n_gold=len(gold_set),
        r_at_1=None if multi else float(bool(ranking) and ranking[0] in gold_set),
        sr_at_k=hits_k / len(gold_set),
        fr_at_k=float(hits_k == len(gold_set)) if multi else None,
        mrr_at_k=1.0 / first if first is not None and first <= k else 0.0,
        ndcg_at_10=dcg / idcg,
        gold_ranks=gold_ranks,
    )


def _mean(values: list[float]) -> float | None:
    return fmean(values) if values else None


def summarize(per_query: list[QueryAccess], k: int) -> AccessSummary:
    single = [q for q in per_query if q.r_at_1 is not None]
    multi = [q for q in per_query if q.fr_at_k is not None]
    sr_multi = _mean([q.sr_at_k for q in multi])
    fr = _mean([q.fr_at_k for q in multi])  # type: ignore[misc]
    return AccessSummary(
        k=k,
        n_queries=len(per_query),
        n_single=len(single),
        n_multi=len(multi),
        r_at_1=_mean([q.r_at_1 for q in single]),  # type: ignore[misc]
        sr_at_k=_mean([q.sr_at_k for q in per_query]),
        fr_at_k=fr,
        mrr_at_k=_mean([q.mrr_at_k for q in per_query]),
        ndcg_at_10=_mean([q.ndcg_at_10 for q in per_query]),
        multi_gap=None if fr is None or sr_multi is None else sr_multi - fr,
    )
