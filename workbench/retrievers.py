"""The retriever registry: bm25, dense, hybrid (RRF). Each ranks a tier's documents for a query.

A retriever searches only within one tier: it opens that tier's own index, so results equal
those of an index built on the tier alone. Opened indexes and query embeddings are cached on
the retriever object, so evaluating many queries × tiers opens and embeds each once.
"""

from __future__ import annotations

from typing import Callable

from workbench.indexing import embedder_name, make_project_embedder, read_manifest, require_index
from workbench.project import Project
from workbench.records import Hit, Tier
from workbench.runs import run_key


# Part of every run key: bump when search code changes results for the same index
# (2: dense search is exact up to 100K chunks), so stored runs made by older code are stale.
SEARCH_VERSION = 2


class Retriever:
    name = ""
    index_kinds: frozenset[str] = frozenset()  # the per-tier indexes it searches

    def __init__(self, project: Project):
        self.project = project
        self.config = project.config.retrievers

    def key(self, tier: Tier) -> str:
        """Identity of this retriever's output on this tier (config + index manifests)."""
        raise NotImplementedError

    def search(self, tier: Tier, query: str, depth: int) -> list[Hit]:
        raise NotImplementedError

    def prepare(self, queries: list[str]) -> None:
        """Hook for batch work before many searches (e.g. embedding all queries at once)."""


class BM25Retriever(Retriever):
    name = "bm25"
    index_kinds = frozenset({"sparse"})

    def __init__(self, project: Project):
        super().__init__(project)
        self._open: dict[str, object] = {}

    def key(self, tier: Tier) -> str:
        path = require_index(self.project, tier, "sparse")
        return run_key(self.name, SEARCH_VERSION, read_manifest(path))

    def _index(self, tier: Tier):
        if tier.name not in self._open:
            from index import SparseIndex

            self._open[tier.name] = SparseIndex.open(require_index(self.project, tier, "sparse"))
        return self._open[tier.name]

    def search(self, tier: Tier, query: str, depth: int) -> list[Hit]:
        return [Hit(d, float(s)) for d, s in self._index(tier).search(query, depth)]


class DenseRetriever(Retriever):
    name = "dense"
    index_kinds = frozenset({"dense"})

    def __init__(self, project: Project, embedder=None):
        super().__init__(project)
        self._embedder = embedder
        self._open: dict[str, object] = {}
        self._qvec: dict[str, object] = {}

    @property
    def embedder(self):
        if self._embedder is None:
            self._embedder = make_project_embedder(self.project)
        return self._embedder

    def key(self, tier: Tier) -> str:
        path = require_index(self.project, tier, "dense")
        return run_key(self.name, SEARCH_VERSION, embedder_name(self.project), read_manifest(path))

    def prepare(self, queries: list[str]) -> None:
        missing = sorted({q for q in queries if q not in self._qvec})
        if missing:
            for q, v in zip(missing, self.embedder.embed(missing)):
                self._qvec[q] = v

    def _index(self, tier: Tier):
        if tier.name not in self._open:
            from index import DenseIndex

            self._open[tier.name] = DenseIndex.open(require_index(self.project, tier, "dense"))
        return self._open[tier.name]

    def search(self, tier: Tier, query: str, depth: int) -> list[Hit]:
        self.prepare([query])
        return [Hit(d, float(s)) for d, s in self._index(tier).search(self._qvec[query], depth)]


def rrf_fuse(rankings: list[list[Hit]], rrf_k: int, depth: int) -> list[Hit]:
    """Reciprocal rank fusion: score(d) = Σ 1 / (rrf_k + rank_i(d)); ties by DocID."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, hit in enumerate(ranking, start=1):
            scores[hit.doc_id] = scores.get(hit.doc_id, 0.0) + 1.0 / (rrf_k + rank)
    fused = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    return [Hit(d, s) for d, s in fused[:depth]]


class HybridRetriever(Retriever):
    name = "hybrid"
    index_kinds = frozenset({"sparse", "dense"})

    def __init__(self, project: Project, bm25: BM25Retriever | None = None, dense: DenseRetriever | None = None):
        super().__init__(project)
        self.bm25 = bm25 or BM25Retriever(project)
        self.dense = dense or DenseRetriever(project)

    def key(self, tier: Tier) -> str:
        return run_key(self.name, self.config.rrf_k, self.config.hybrid_depth, self.bm25.key(tier), self.dense.key(tier))

    def prepare(self, queries: list[str]) -> None:
        self.dense.prepare(queries)

    def search(self, tier: Tier, query: str, depth: int) -> list[Hit]:
        arm = max(depth, self.config.hybrid_depth)
        return rrf_fuse([self.bm25.search(tier, query, arm), self.dense.search(tier, query, arm)], self.config.rrf_k, depth)


RETRIEVERS: dict[str, Callable[..., Retriever]] = {
    "bm25": BM25Retriever,
    "dense": DenseRetriever,
    "hybrid": HybridRetriever,
}


def make_retrievers(project: Project, names: list[str]) -> dict[str, Retriever]:
    """Instantiate retrievers sharing opened indexes and query embeddings where they overlap."""
    unknown = [n for n in names if n not in RETRIEVERS]
    if unknown:
        raise ValueError(f"unknown retriever(s) {unknown}; known: {sorted(RETRIEVERS)}")
    bm25, dense = BM25Retriever(project), DenseRetriever(project)
    shared = {"bm25": bm25, "dense": dense, "hybrid": HybridRetriever(project, bm25, dense)}
    return {n: shared[n] for n in names}
