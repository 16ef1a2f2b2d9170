"""Near-miss candidates per query: the nearest non-gold documents of the whole pool.

Why the project's own indexes and not sentence-transformers' ``util.mine_hard_negatives``:
the `full` tier's USearch index already holds every chunk vector (same embedder, same chunking
as retrieval) and its exact search is a matrix-vector product, so mining costs one query
embedding per query and nothing is re-embedded. ``mine_hard_negatives`` re-embeds the corpus
in-process, samples with an unseeded RNG (two runs give different candidates), and applies its
margin against the *minimum* positive score — for a multi-source query whose second gold
document barely resembles the question, that throws away nearly every real near miss. Here the
margin is taken from the *best-matching* gold document, sampling is seeded, and every candidate
records where it came from and its score.

A document scores as its best chunk (cosine similarity). Options (MiningOptions):
  candidates  dense candidates per query (the nearest non-gold documents above the floor)
  floor       similarity floor: candidates below it are not plausible near misses; a query with
              none above it is unsuitable for adversarial evaluation
  margin      if set, drop candidates scoring above (best gold similarity − margin): very close
              to or above the gold they may be duplicates of it. Off by default: a near miss
              outranking its gold is exactly what makes it hard, and the verifier — not a
              threshold — tells it from a false negative.
  pool, seed  if pool > candidates, draw the candidates from the top `pool` with a seeded
              sample (per query) instead of taking the top ones
  bm25        extra candidates per query from BM25 (labelled source "bm25"; "dense+bm25" when
              both found it)
  start       "mined" (the above), or "unjudged": no mining, the candidates are the documents
              some stored ranking of the tier holds in its top K that nobody judged and that
              state the query's answer (workbench/insight/unjudged.py: likely missing gold, or
              near misses close enough to carry the answer's words); only queries with one are
              verified, the others are carried into the version unchanged
"""

from __future__ import annotations

import random
from typing import Callable, Literal

import msgspec

from workbench.errors import BadInput
from workbench.project.files import Project
from workbench.records import Query, Tier
from workbench.project.suggest import command

Source = Literal["dense", "bm25", "dense+bm25", "unjudged"]
Start = Literal["mined", "unjudged"]
SCAN_DEPTH = 1000  # dense ranks read per query (gold similarities come from the same scan)


class MiningOptions(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    candidates: int = 5  # 0 = BM25 candidates only
    floor: float = 0.3
    margin: float | None = None
    pool: int = 0  # 0 = the top `candidates`
    seed: int = 13
    bm25: int = 0
    tier: str = "full"
    start: Start = "mined"


class Candidate(msgspec.Struct, frozen=True):
    query_id: str
    doc_id: int
    source: Source
    similarity: float | None  # dense cosine (None: BM25 only, below the dense scan)
    dense_rank: int | None  # 1-based among the non-gold documents
    bm25_score: float | None = None


class MinedQuery(msgspec.Struct, frozen=True):
    query_id: str
    candidates: list[Candidate]
    gold_similarity: dict[int, float | None]  # None: below the dense scan depth
    # non-gold documents among the top `candidates` that the floor or the margin removed
    below_floor: int = 0
    over_margin: list[int] = []


def _pick(ranked: list[tuple[int, float]], opts: MiningOptions, query_id: str) -> list[tuple[int, float]]:
    if opts.pool > opts.candidates:
        pool = ranked[: opts.pool]
        chosen = set(random.Random(f"{opts.seed}:{query_id}").sample(range(len(pool)), min(opts.candidates, len(pool))))
        return [p for i, p in enumerate(pool) if i in chosen]
    return ranked[: opts.candidates]


def mine_query(query: Query, dense_hits: list, bm25_hits: list, opts: MiningOptions) -> MinedQuery:
    """Candidates for one query from its dense (and BM25) ranking of the pool (Hit lists)."""
    gold = set(query.gold_doc_ids)
    sims = {h.doc_id: h.score for h in dense_hits}
    gold_sim = {g: sims.get(g) for g in query.gold_doc_ids}
    known = [s for s in gold_sim.values() if s is not None]
    # a gold document below the scan scores at most the scan's last score
    best_gold = max(known) if known else (dense_hits[-1].score if dense_hits else None)
    ranked: list[tuple[int, float]] = []
    rank: dict[int, int] = {}
    for h in dense_hits:
        if h.doc_id in gold:
            continue
        rank[h.doc_id] = len(rank) + 1
        ranked.append((h.doc_id, h.score))
    over_margin: list[int] = []
    if opts.margin is not None and best_gold is not None:
        over_margin = [d for d, s in ranked[: max(opts.candidates, opts.pool)] if s > best_gold - opts.margin]
        ranked = [(d, s) for d, s in ranked if s <= best_gold - opts.margin]
    plausible = [(d, s) for d, s in ranked if s >= opts.floor]
    below = sum(1 for _, s in ranked[: opts.candidates] if s < opts.floor)
    chosen = _pick(plausible, opts, query.query_id)
    out = [Candidate(query.query_id, d, "dense", s, rank[d]) for d, s in chosen]
    if opts.bm25 > 0:
        by_doc = {c.doc_id: i for i, c in enumerate(out)}
        added = 0
        for h in bm25_hits:
            if added >= opts.bm25:
                break
            if h.doc_id in gold or h.doc_id in over_margin:
                continue
            if h.doc_id in by_doc:
                i = by_doc[h.doc_id]
                out[i] = msgspec.structs.replace(out[i], source="dense+bm25", bm25_score=h.score)
                continue
            out.append(Candidate(query.query_id, h.doc_id, "bm25", sims.get(h.doc_id), rank.get(h.doc_id), h.score))
            added += 1
    return MinedQuery(query.query_id, out, gold_sim, below, over_margin)


def mine(
    project: Project,
    tier: Tier,
    opts: MiningOptions,
    progress: Callable[[int, int], None] | None = None,
) -> list[MinedQuery]:
    """Candidates for every query of the loaded version, searched over ``tier`` (default the full pool);
    with start "unjudged", for the queries with an answer-bearing unjudged document on it."""
    from workbench.access.retrievers import BM25Retriever, DenseRetriever

    if opts.start == "unjudged":
        return unjudged_candidates(project, tier, progress)

    dense = DenseRetriever(project)
    bm25 = BM25Retriever(project) if opts.bm25 > 0 else None
    queries = project.queries
    dense.prepare([q.query for q in queries])
    depth = min(len(tier.doc_ids), max(SCAN_DEPTH, 4 * (opts.pool or opts.candidates)))
    out = []
    for n, q in enumerate(queries, 1):
        dense_hits = dense.search(tier, q.query, depth)
        bm25_hits = bm25.search(tier, q.query, opts.bm25 + len(q.gold_doc_ids) + opts.candidates) if bm25 else []
        out.append(mine_query(q, dense_hits, bm25_hits, opts))
        if progress:
            progress(n, len(queries))
    return out


def unjudged_candidates(project: Project, tier: Tier, progress: Callable[[int, int], None] | None = None) -> list[MinedQuery]:
    """Per query with one, its answer-bearing unjudged documents in the top K of the tier's stored
    rankings, each once (no similarity or dense rank: they were not mined)."""
    from workbench.access.runs import RunStore
    from workbench.insight.unjudged import query_unjudged

    if not RunStore(project).runs(tier):
        raise NoRankings(f"no stored ranking on tier {tier.name!r}: `collide --from unjudged` starts from the systems' top K; "
                         f"run `{command('eval', project.root, tiers=tier.name)}` first")
    out = []
    ids = [qid for qid in project.tier_query_ids(tier) if project.query(qid).is_labelled]
    for n, qid in enumerate(ids, 1):
        found = [s.doc for s in query_unjudged(project, tier, qid) if s.doc.answer_bearing]
        if found:
            q = project.query(qid)
            out.append(MinedQuery(qid, [Candidate(qid, d.doc_id, "unjudged", None, None) for d in found],
                                  {g: None for g in q.gold_doc_ids}))
        if progress:
            progress(n, len(ids))
    return out


class NoRankings(BadInput):
    title = "No rankings to start from"
