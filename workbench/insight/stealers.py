"""Stealers: the documents that take an outranked gold document's place.

A gold document is *outranked* in a ranking when a non-gold document sits above it in the top K;
each such document is a *stealer* of it (a gold document below K, or not retrieved at all, is
outranked by every non-gold document of the top K). Every steal records the system, the tier, both
ranks, the score gap (stealer − gold; None when the gold was not retrieved), the word overlap with
the gold (Jaccard of word sets, as the near misses use) and the embedding similarity (cosine of the
two documents' mean chunk vectors from the dense index; None when no dense index is built).

Across queries, a stealer counts once per (query, gold document) it displaces: the most frequent
ones are listed with the near-miss diff (workbench/inspection/worddiff.py) against the gold they
displace most often. Rankings are the stored runs (retrievers, model localizations, imported runs).
"""

from __future__ import annotations

from collections import Counter, defaultdict

import msgspec

from workbench.access.indexing import index_status, open_dense
from workbench.access.metrics import unique_in_order
from workbench.access.retrievers import system_order
from workbench.insight.stored import labelled_rankings, ordered_runs
from workbench.diagnosis.nearmiss import MAX_WORDS, around_changes
from workbench.inspection.rankings import _words, jaccard, row_kind
from workbench.inspection.worddiff import salient_changes, word_diff
from workbench.project.files import Project
from workbench.records import Tier

TOP_STEALERS = 5


class Steal(msgspec.Struct, frozen=True):
    query_id: str
    tier: str
    system: str
    gold: int
    gold_rank: int | None  # None: not retrieved at all
    stealer: int
    stealer_rank: int
    kind: str  # hard_negative | other (the stealer's label for this query)
    score_gap: float | None
    overlap: float  # word-set Jaccard with the gold
    embedding_similarity: float | None


class Stealer(msgspec.Struct, frozen=True):
    doc_id: int
    title: str
    displaced: int  # distinct (query, gold) pairs it outranks
    queries: list[str]
    systems: list[str]
    tiers: int
    hard_negative_for: list[str]  # queries where it is a labelled hard negative
    mean_overlap: float
    mean_embedding_similarity: float | None
    gold: int  # the gold document it displaces most often, the diff's other side
    gold_title: str
    stealer_has: list[str]  # salient words only the stealer has (years, numbers, names first)
    gold_has: list[str]
    stealer_spans: list[tuple[str, bool]] = []
    gold_spans: list[tuple[str, bool]] = []


class DocVectors:
    """Per-document unit vectors (mean of its chunk vectors) from the largest tier with a built dense index."""

    def __init__(self, project: Project, tiers: list[Tier]):
        self.project, self.tiers = project, sorted(tiers, key=lambda t: -len(t.doc_ids))
        self._vectors: dict[int, object] | None = None

    def _load(self) -> dict[int, object]:
        import numpy as np

        for tier in self.tiers:
            if index_status(self.project, tier)["dense"] != "ok":
                continue
            idx = open_dense(self.project, tier)
            vecs, ids = idx.vectors(), idx.chunk_doc_ids
            out: dict[int, object] = {}
            for doc_id in np.unique(ids):
                v = vecs[ids == doc_id].mean(axis=0)
                out[int(doc_id)] = v / (np.linalg.norm(v) or 1.0)
            return out
        return {}

    def similarity(self, a: int, b: int) -> float | None:
        if self._vectors is None:
            self._vectors = self._load()
        va, vb = self._vectors.get(a), self._vectors.get(b)
        if va is None or vb is None:
            return None
        return round(float(va @ vb), 4)  # type: ignore[operator]


def steals(project: Project, tiers: list[Tier], k: int | None = None, query_ids: set[str] | None = None,
           vectors: DocVectors | None = None) -> list[Steal]:
    """Every steal of every stored ranking of these tiers."""
    k = k or project.config.retrievers.k
    vectors = vectors or DocVectors(project, tiers)
    words: dict[int, set[str]] = {}

    def overlap(a: int, b: int) -> float:
        for d in (a, b):
            if d not in words:
                words[d] = _words(project.documents[d])
        return round(jaccard(words[a], words[b]), 4)

    out = []
    for tier in tiers:
        for run in ordered_runs(project, tier):
            for ranked, q in labelled_rankings(project, run, query_ids):
                hits = unique_in_order(ranked.hits, key=lambda h: h.doc_id)
                pos = {h.doc_id: (n, h.score) for n, h in enumerate(hits, 1)}
                for g in sorted(q.gold_doc_ids):
                    g_rank, g_score = pos.get(g, (None, None))
                    above = hits[: min(k, g_rank - 1 if g_rank else k)]
                    for n, h in enumerate(above, 1):
                        if h.doc_id in q.gold_doc_ids or h.doc_id not in project.documents:
                            continue
                        out.append(Steal(q.query_id, tier.name, run.system, g, g_rank, h.doc_id, n, row_kind(h.doc_id, q),
                                         None if g_score is None else round(h.score - g_score, 6), overlap(h.doc_id, g),
                                         vectors.similarity(h.doc_id, g)))
    return out


def top_stealers(project: Project, found: list[Steal], limit: int = TOP_STEALERS) -> list[Stealer]:
    """The documents that displace gold most often across queries, each with its diff against its usual victim."""
    by_doc: dict[int, list[Steal]] = defaultdict(list)
    for s in found:
        by_doc[s.stealer].append(s)

    def displaced(ss: list[Steal]) -> int:
        return len({(s.query_id, s.gold) for s in ss})

    ranked = sorted(by_doc.items(), key=lambda kv: (-displaced(kv[1]), -len(kv[1]), kv[0]))[:limit]
    out = []
    for doc_id, ss in ranked:
        gold = Counter((s.query_id, s.gold) for s in ss)
        victim = Counter(g for _, g in gold).most_common(1)[0][0]
        doc, gdoc = project.documents[doc_id], project.documents[victim]
        diff = word_diff(f"{doc.title}\n{doc.text}", f"{gdoc.title}\n{gdoc.text}")
        left, right = salient_changes(diff)
        sims = [s.embedding_similarity for s in ss if s.embedding_similarity is not None]
        out.append(Stealer(
            doc_id=doc_id, title=doc.title, displaced=displaced(ss), queries=sorted({s.query_id for s in ss}),
            systems=sorted({s.system for s in ss}, key=system_order), tiers=len({s.tier for s in ss}),
            hard_negative_for=sorted({s.query_id for s in ss if s.kind == "hard_negative"}),
            mean_overlap=round(sum(s.overlap for s in ss) / len(ss), 4),
            mean_embedding_similarity=round(sum(sims) / len(sims), 4) if sims else None,
            gold=victim, gold_title=gdoc.title, stealer_has=(left or diff.left_only)[:MAX_WORDS],
            gold_has=(right or diff.right_only)[:MAX_WORDS], stealer_spans=around_changes(diff.left),
            gold_spans=around_changes(diff.right),
        ))
    return out
