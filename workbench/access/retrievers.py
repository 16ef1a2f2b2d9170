"""The retriever registry: bm25, dense, hybrid (RRF). Each ranks a tier's documents for a query.

``RETRIEVERS`` is the one home of retriever names: a class decorated with ``@register`` is
known to `workbench eval --retrievers`, the TUI, the inspector's column order and the choice
of a "best" retriever (``preferred()``: highest ``preference`` first). Adding a retriever is
one class here (see docs/ARCHITECTURE.md).

A retriever searches only within one tier: it opens that tier's own index, so results equal
those of an index built on the tier alone. Opened indexes and query embeddings are cached on
the retriever object, so evaluating many queries × tiers opens and embeds each once.
"""

from __future__ import annotations

from typing import Callable, TypeVar

from workbench.errors import BadInput
from workbench.access.indexing import embedder_name, embedding_errors, make_project_embedder, open_dense, read_manifest, require_index
from workbench.project.files import Project
from workbench.records import Hit, Tier
from workbench.access.runs import run_key


# Part of every run key: bump when search code changes results for the same index
# (2: dense search is exact up to 100K chunks; 3: exact dense scores re-scored in float64, the
# same for batched and per-query search; 4: the graph's candidates re-scored exactly, tiers as
# rows of one store over the pool), so stored runs made by older code are stale.
SEARCH_VERSION = 4


class Retriever:
    name = ""
    label = ""  # one line for help texts
    index_kinds: frozenset[str] = frozenset()  # the per-tier indexes it searches
    preference = 0  # when one system must stand for access (the TUI's default), the highest wins

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

    def search_many(self, tier: Tier, queries: list[str], depth: int,
                    progress: Callable[[int], None] | None = None) -> list[list[Hit]]:
        """:meth:`search` for every query (evaluation); a retriever that can search a batch at
        once (dense: one matrix product per block of queries) overrides it, with equal results."""
        out = []
        for n, query in enumerate(queries, 1):
            out.append(self.search(tier, query, depth))
            if progress:
                progress(n)
        return out

    @classmethod
    def create(cls, project: Project, get: Callable[[str], "Retriever"]) -> "Retriever":
        """A new instance; ``get(name)`` gives the shared instance of another retriever
        (hybrid fuses the bm25 and dense instances that eval also runs on their own)."""
        return cls(project)


R = TypeVar("R", bound=type[Retriever])
RETRIEVERS: dict[str, type[Retriever]] = {}  # name -> class, in registration (display) order


def register(cls: R) -> R:
    RETRIEVERS[cls.name] = cls
    return cls


def retriever_names() -> list[str]:
    """Every retriever, in display order."""
    return list(RETRIEVERS)


def preferred(available: list[str] | None = None) -> list[str]:
    """Retriever names best first (of ``available`` if given)."""
    names = sorted(RETRIEVERS, key=lambda n: -RETRIEVERS[n].preference)
    return [n for n in names if available is None or n in available]


def system_order(name: str) -> tuple[int, str]:
    """Sort key for system names: retrievers first in display order, then the rest by name."""
    order = list(RETRIEVERS)
    return (order.index(name), name) if name in RETRIEVERS else (len(order), name)


@register
class BM25Retriever(Retriever):
    name = "bm25"
    label = "BM25 over the tier's Tantivy index"
    preference = 1
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


@register
class DenseRetriever(Retriever):
    name = "dense"
    label = "cosine similarity over the tier's chunk embeddings"
    preference = 2
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
            with embedding_errors(self.project):
                vectors = self.embedder.embed(missing)
            for q, v in zip(missing, vectors):
                self._qvec[q] = v

    def _index(self, tier: Tier):
        if tier.name not in self._open:
            self._open[tier.name] = open_dense(self.project, tier)  # the tier's rows of the pool's store
        return self._open[tier.name]

    def search(self, tier: Tier, query: str, depth: int) -> list[Hit]:
        self.prepare([query])
        return [Hit(d, float(s)) for d, s in self._index(tier).search(self._qvec[query], depth)]

    def search_many(self, tier: Tier, queries: list[str], depth: int,
                    progress: Callable[[int], None] | None = None) -> list[list[Hit]]:
        if not queries:
            return []
        import numpy as np

        self.prepare(queries)
        found = self._index(tier).search_many(np.stack([np.asarray(self._qvec[q]) for q in queries]), depth)
        if progress:
            progress(len(queries))
        return [[Hit(d, float(s)) for d, s in hits] for hits in found]


def rrf_fuse(rankings: list[list[Hit]], rrf_k: int, depth: int) -> list[Hit]:
    """Reciprocal rank fusion: score(d) = Σ 1 / (rrf_k + rank_i(d)); ties by DocID."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, hit in enumerate(ranking, start=1):
            scores[hit.doc_id] = scores.get(hit.doc_id, 0.0) + 1.0 / (rrf_k + rank)
    fused = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    return [Hit(d, s) for d, s in fused[:depth]]


@register
class HybridRetriever(Retriever):
    name = "hybrid"
    label = "reciprocal rank fusion of bm25 and dense"
    preference = 3
    index_kinds = frozenset({"sparse", "dense"})

    def __init__(self, project: Project, bm25: BM25Retriever | None = None, dense: DenseRetriever | None = None):
        super().__init__(project)
        self.bm25 = bm25 or BM25Retriever(project)
        self.dense = dense or DenseRetriever(project)

    def key(self, tier: Tier) -> str:
        return run_key(self.name, self.config.rrf_k, self.config.hybrid_depth, self.bm25.key(tier), self.dense.key(tier))

    def prepare(self, queries: list[str]) -> None:
        self.dense.prepare(queries)

    @classmethod
    def create(cls, project: Project, get: Callable[[str], Retriever]) -> Retriever:
        bm25, dense = get("bm25"), get("dense")
        assert isinstance(bm25, BM25Retriever) and isinstance(dense, DenseRetriever)
        return cls(project, bm25, dense)

    def search(self, tier: Tier, query: str, depth: int) -> list[Hit]:
        arm = max(depth, self.config.hybrid_depth)
        return rrf_fuse([self.bm25.search(tier, query, arm), self.dense.search(tier, query, arm)], self.config.rrf_k, depth)

    def search_many(self, tier: Tier, queries: list[str], depth: int,
                    progress: Callable[[int], None] | None = None) -> list[list[Hit]]:
        arm = max(depth, self.config.hybrid_depth)
        sparse = self.bm25.search_many(tier, queries, arm)
        dense = self.dense.search_many(tier, queries, arm, progress)
        return [rrf_fuse([s, d], self.config.rrf_k, depth) for s, d in zip(sparse, dense, strict=True)]


def make_retrievers(project: Project, names: list[str] | None = None) -> dict[str, Retriever]:
    """Instantiate retrievers (default: all) sharing opened indexes and query embeddings."""
    names = retriever_names() if names is None else names
    unknown = [n for n in names if n not in RETRIEVERS]
    if unknown:
        raise BadInput(f"unknown retriever(s) {unknown}; known: {retriever_names()}", title="Unknown retriever")
    made: dict[str, Retriever] = {}

    def get(name: str) -> Retriever:
        if name not in made:
            made[name] = RETRIEVERS[name].create(project, get)
        return made[name]

    return {n: get(n) for n in names}
