"""Dense retrieval over chunk vectors with USearch (HNSW, cosine), aggregated to documents.

Files in the index directory:
  vectors.npy         the f32 vectors (every index: exact search, and the exact re-scoring of
                      the graph's candidates, read memory-mapped)
  vectors.usearch     an "hnsw" index's graph over int8 copies of the vectors (keys = chunk rows)
  ivf_*.npy           an "ivf" index's coarse router (index/ivf.py: centroids, inverted lists)
  chunk_doc_ids.npy   int64 doc id of each chunk row
  dense.json          dims, counts, which index ("exact"/"ivf"/"hnsw") and its settings
A document scores as its best chunk (cosine similarity = 1 - cosine distance).

Build policy: an approximate structure is built only above ``hnsw_min_chunks`` chunks (default
``EXACT_MAX_CELLS // dims``): below that no search would use it. It is the IVF router
(``GraphSettings.router == "ivf"``, the default; index "ivf"), or with router "none" the HNSW
graph (index "hnsw"; stores built before the router keep theirs and are searched by it). The
router replaced the graph by measurement: at 1M chunks the graph took ~44 min to build and
reached recall@10 0.947; the router builds in minutes (figures: benchmarks/bench_dense.py).

Search policy: an index of at most ``EXACT_MAX_CELLS`` floats (chunks x dims; 100K chunks at
384-d) is searched exactly (one single-threaded numpy matrix-vector product); a larger one
through the router (the ``nprobe`` nearest lists scanned exactly, their best ``rescore x k + 16``
chunks kept) or the graph: ``rescore x k + 16`` candidate chunks found in the int8 graph (more
until no unseen chunk, given the int8 copies' error, could reach the k-th doc), then re-scored
exactly from the f32 vectors, so every score it returns is the exact one and the ranking is
the exact ranking whenever the graph reaches the candidates (recall and speed-up per size:
:class:`GraphSettings`, benchmarks/bench_dense.py). :meth:`DenseIndex.search_many` (evaluation: every
query of a tier at once) is exact up to ``BATCH_EXACT_MAX_CELLS``: one matrix product per block
of queries.

Exact scores are the float64 dot products of the best candidates (chosen by the float32 product
with a margin that bounds its rounding): the same numbers whichever BLAS kernel (matrix-vector
for one query, matrix-matrix for a block) or the graph's re-scoring found them, so every path
gives identical scores. Numbers: benchmarks/bench_dense.py, benchmarks/bench_index.py.

A store over a pool can be opened for a subset of its rows (``DenseIndex.open(path, rows=…)``):
the tier's vectors are gathered from the memory-mapped file, the pool's graph is searched with
the tier as a filter (over-fetch, keep the tier's rows), and results equal those of an index
built on the tier's vectors alone.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from usearch.index import Index

from index import ivf

try:  # installed with sentence-transformers (via scikit-learn); only a latency nicety
    from threadpoolctl import ThreadpoolController
except ImportError:  # pragma: no cover
    ThreadpoolController = None

VECTORS_FILE = "vectors.usearch"
EXACT_VECTORS_FILE = "vectors.npy"
DOC_IDS_FILE = "chunk_doc_ids.npy"
META_FILE = "dense.json"


@dataclass(frozen=True)
class GraphSettings:
    """How an HNSW graph is built and searched (recorded in dense.json). int8 (each vector scaled
    by 127 / its largest component, which leaves cosines unchanged and uses the whole int8 range)
    is 4x smaller than f32 and faster to compare; its ranking errors are removed by re-scoring
    every chunk of the candidates' docs exactly from the f32 vectors.

    Measured (benchmarks/bench_dense.py: hotpotqa MiniLM chunks resampled with noise, 100 real
    queries, 2 shared cores under load; recall@10 against exact, speed-up of p50 vs exact):
      100K M=16: ef 256 0.990 at 14.8x, ef 512 1.000 at 6.7x
      300K M=16: ef 512 0.978 at 21.5x, ef 2048 0.999 at 8.7x
      1M   M=16: ef 256 0.766 at 43.6x, ef 512 0.842 at 42.9x, ef 1024 0.896 at 29.5x: the set's
                 1127 tight clusters of ~890 near-copies are poorly linked at M=16; a few queries
                 never reach their cluster, whatever ef (the exact top-10 is otherwise within the
                 graph's top 11). The graph is searched only for tiers above 100K chunks.
    The IVF router (router "ivf", the default: no graph is built) on the same set: 1M chunks,
    nlist 4000, built in 257 s; nprobe 4 0.967, nprobe 8/16/32 1.000 at 52x/48x/45x (nprobe 32:
    5.2 ms vs 234 ms); 300K: nprobe 32 1.000 at 17x; 100K: nprobe 8 0.995, nprobe 32 1.000 at 11x."""

    connectivity: int = 16  # "M"
    expansion_add: int = 128  # efConstruction
    expansion_search: int = 2048  # ef (raised to the fetch count when that is larger)
    dtype: str = "i8"  # the graph's copy of the vectors: "i8" (scaled), "f16" or "f32"
    rescore: int = 4  # candidate chunks re-scored exactly per doc asked for (plus 16)
    threads: int = 0  # add() workers; 0: every core
    # Above hnsw_min_chunks: "ivf", the coarse router of index/ivf.py instead of a graph (dense.json
    # "index": "ivf"; 1M chunks: built in ~1 min, the graph in ~44), or "none": the HNSW graph.
    router: str = "ivf"
    nlist: int = 0  # 0: ivf.default_nlist(n); the built count is dense.json's "ivf_nlist"
    nprobe: int = 32  # lists scanned per query (over-probed in proportion for a subset)

    def as_meta(self) -> dict[str, Any]:
        return {f"graph_{k}": v for k, v in asdict(self).items() if k != "threads"}

    @classmethod
    def from_meta(cls, meta: dict[str, Any]) -> GraphSettings:
        """Settings of a built index; one built before they were recorded: an f32 graph."""
        got = {k[len("graph_"):]: v for k, v in meta.items() if k.startswith("graph_")}
        if not got:
            got = {"connectivity": meta.get("connectivity", 16), "expansion_add": meta.get("expansion_add", 128),
                   "expansion_search": 2048, "dtype": "f32", "rescore": 4}
        got.setdefault("router", "none")  # built before the router existed: search the graph
        return cls(**{k: v for k, v in got.items() if k in cls.__dataclass_fields__})


GRAPH = GraphSettings()
# search() is exact when chunks x dims is at most this (100K x 384: p50 ~13 ms, p95 ~15 ms).
EXACT_MAX_CELLS = 100_000 * 384
ADD_BATCH = 50_000
# search_many() is batched-exact when chunks x dims is at most this (1M x 384: 1.5 GB of f32).
BATCH_EXACT_MAX_CELLS = 1_000_000 * 384
# Similarity matrix held per block of queries in search_many (floats): 64 MB.
BLOCK_CELLS = 16_000_000


_blas: Any = None


def _one_blas_thread() -> contextlib.AbstractContextManager:
    """OpenBLAS's threaded gemv is slower than one thread on a busy 2-core machine (100K x 384:
    p95 28 ms vs 15 ms; 10K: 5 ms vs 0.7 ms), so the matrix-vector product runs on one."""
    global _blas
    if ThreadpoolController is None:
        return contextlib.nullcontext()
    if _blas is None:
        _blas = ThreadpoolController()
    return _blas.limit(limits=1, user_api="blas")


def _as_query(qvec: np.ndarray, dims: int) -> np.ndarray:
    q = np.asarray(qvec, dtype=np.float32).reshape(-1)
    if q.shape[0] != dims:
        raise ValueError(f"query has {q.shape[0]} dims, index has {dims}")
    return _as_queries(q[None, :], dims)[0]  # normalised as search_many does: the same bits


def _rank(doc_ids: np.ndarray, scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    if len(scores) > 4 * k:
        # Only docs scoring at least the k-th best can rank (ties at the cut included): an O(n)
        # partition first keeps the sort small (sorting 100K doc scores costs ~10 ms).
        kth = -np.partition(-scores, k - 1)[k - 1]
        keep = np.flatnonzero(scores >= kth)
        doc_ids, scores = doc_ids[keep], scores[keep]
    order = np.lexsort((doc_ids, -scores))[:k]
    return [(int(doc_ids[i]), float(scores[i])) for i in order]


def _as_queries(qvecs: np.ndarray, dims: int) -> np.ndarray:
    q = np.asarray(qvecs, dtype=np.float32)
    if q.ndim != 2 or q.shape[1] != dims:
        raise ValueError(f"queries have shape {q.shape}, index has {dims} dims")
    norms = np.linalg.norm(q, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(q / norms, dtype=np.float32)


def default_hnsw_min_chunks(dims: int) -> int:
    """Chunks above which an HNSW graph is built by default: where single-query search leaves
    the exact path (``EXACT_MAX_CELLS``)."""
    return EXACT_MAX_CELLS // max(dims, 1)


def _unit_rows(vecs: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (a zero row stays zero): row by row the same bits whether the
    whole matrix or a few of its rows are given, so exact and re-scored scores agree."""
    v = np.asarray(vecs, dtype=np.float32)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return v / norms


def _graph_rows(vecs: np.ndarray, dtype: str) -> np.ndarray:
    """The graph's copy of ``vecs``: for "i8" each row scaled by 127 / its largest |component|
    (a cosine does not see a row's scale; usearch's own cast would put unit MiniLM components,
    ~0.05, on a handful of levels)."""
    v = np.asarray(vecs, dtype=np.float32)
    if dtype != "i8":
        return np.ascontiguousarray(v)
    peak = np.abs(v).max(axis=1, keepdims=True) if len(v) else np.ones((0, 1), np.float32)
    peak[peak == 0] = 1.0
    return np.ascontiguousarray(np.clip(np.rint(v * (127.0 / peak)), -127, 127).astype(np.int8))


def _cosine_sims(distances: Any) -> np.ndarray:
    return 1.0 - np.asarray(distances, dtype=np.float64)


class DenseIndex:
    def __init__(
        self,
        path: Path,
        index: Index | None,
        chunk_doc_ids: np.ndarray,
        dims: int,
        exact_max_chunks: int | None = None,
        vectors: np.ndarray | None = None,
        graph: GraphSettings = GRAPH,
        rows: np.ndarray | None = None,
        store_vectors: np.ndarray | None = None,
        router: ivf.Router | None = None,
    ) -> None:
        """``rows`` (sorted positions in the store): this index is that subset of the store's
        chunks; ``store_vectors`` then holds every row (the graph's keys are store rows)."""
        self.path = path
        self._index = index
        self.chunk_doc_ids = chunk_doc_ids
        self.dims = dims
        if exact_max_chunks is None:
            exact_max_chunks = EXACT_MAX_CELLS // max(dims, 1)
        self.exact_max_chunks = exact_max_chunks
        self._vectors: np.ndarray | None = vectors
        self._unit: np.ndarray | None = None
        self.graph = graph
        self._rows = rows
        self._store_vectors = store_vectors
        self._local: np.ndarray | None = None  # store row -> own row (-1: not in this subset)
        self._router = router
        self._router_failed = False  # the store's router is damaged: search exactly
        if rows is not None and (index is not None or router is not None):
            total = len(index) if index is not None else len(router.rows)  # type: ignore[union-attr]
            self._local = np.full(total, -1, dtype=np.int64)
            self._local[rows] = np.arange(len(rows), dtype=np.int64)
        # For exact search: chunk rows grouped by doc id.
        self._order = np.argsort(chunk_doc_ids, kind="stable")
        sorted_ids = chunk_doc_ids[self._order]
        if len(sorted_ids):
            starts = np.flatnonzero(np.r_[True, sorted_ids[1:] != sorted_ids[:-1]])
        else:
            starts = np.zeros(0, dtype=np.int64)
        self._starts = starts
        self._sorted_ids = sorted_ids
        self._unique_ids = sorted_ids[starts] if len(sorted_ids) else sorted_ids
        # float32 rounding bound of a unit-vector dot product (|error| <= dims * eps): candidates
        # within twice this of the k-th best are re-scored in float64.
        self._margin = 2.0 * max(dims, 1) * float(np.finfo(np.float32).eps)

    # ------------------------------------------------------------------ build
    @staticmethod
    def build(
        path: Path,
        chunk_doc_ids: np.ndarray,
        vectors: np.ndarray,
        progress: Callable[[int], None] | None = None,
        hnsw_min_chunks: int | None = None,
        graph: GraphSettings = GRAPH,
    ) -> None:
        """Index ``vectors`` (n x d float32, L2-normalised; row i belongs to ``chunk_doc_ids[i]``).

        The f32 vectors are always stored (``vectors.npy``); an HNSW graph (``graph``'s
        settings) is built as well only when n > ``hnsw_min_chunks`` (default
        :func:`default_hnsw_min_chunks`; 0: always). ``dense.json``'s "index" says which
        ("hnsw" or "exact") and records the graph's settings."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        ids = np.ascontiguousarray(chunk_doc_ids, dtype=np.int64).reshape(-1)
        vecs = np.ascontiguousarray(vectors, dtype=np.float32)
        if vecs.ndim != 2:
            raise ValueError(f"vectors must be 2-D, got shape {vecs.shape}")
        if vecs.shape[0] != ids.shape[0]:
            raise ValueError(f"{vecs.shape[0]} vectors but {ids.shape[0]} chunk doc ids")
        n, dims = vecs.shape
        if dims == 0:
            raise ValueError("vectors have 0 dims")
        if hnsw_min_chunks is None:
            hnsw_min_chunks = default_hnsw_min_chunks(dims)
        kind = ("ivf" if graph.router == "ivf" else "hnsw") if n > hnsw_min_chunks else "exact"
        meta: dict[str, Any] = {
            "dims": int(dims),
            "num_chunks": int(n),
            "num_docs": int(len(np.unique(ids))),
            "metric": "cos",
            "dtype": "f32",
            "index": kind,
            "hnsw_min_chunks": int(hnsw_min_chunks),
        }
        np.save(path / EXACT_VECTORS_FILE, vecs)
        if kind == "hnsw":
            index = Index(
                ndim=dims,
                metric="cos",
                dtype=graph.dtype,
                connectivity=graph.connectivity,
                expansion_add=graph.expansion_add,
                expansion_search=graph.expansion_search,
                multi=False,
            )
            threads = graph.threads or (os.cpu_count() or 1)
            for start in range(0, n, ADD_BATCH):
                end = min(start + ADD_BATCH, n)
                index.add(np.arange(start, end, dtype=np.uint64), _graph_rows(vecs[start:end], graph.dtype),
                          threads=threads)
                if progress is not None:
                    progress(end)
            index.save(str(path / VECTORS_FILE))
            meta.update(graph.as_meta())
        elif kind == "ivf":
            meta["ivf_nlist"] = ivf.build(path, vecs, graph.nlist)
            meta.update(graph.as_meta())
            if progress is not None:
                progress(n)
        elif progress is not None and n:
            progress(n)
        np.save(path / DOC_IDS_FILE, ids)
        (path / META_FILE).write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
        if progress is not None and n == 0:
            progress(0)

    # ------------------------------------------------------------------- open
    @classmethod
    def open(
        cls,
        path: Path,
        view: bool = False,
        expansion_search: int | None = None,
        exact_max_chunks: int | None = None,
        rows: np.ndarray | None = None,
    ) -> DenseIndex:
        """Load the index (``view=True`` memory-maps the graph too; the f32 vectors always are).

        :meth:`search` is exact when the index has at most ``exact_max_chunks`` chunks (default
        ``EXACT_MAX_CELLS // dims``; 0: always HNSW) or has no HNSW graph; the exact path holds a
        unit-vector copy in memory (chunks x dims x 4 bytes). ``rows`` (sorted chunk rows of
        this store): open that subset alone, e.g. one tier of a store over the pool.
        """
        path = Path(path)
        meta_path = path / META_FILE
        if not meta_path.is_file():
            raise FileNotFoundError(f"no dense index at {path}")
        meta = json.loads(meta_path.read_text())
        ids = np.load(path / DOC_IDS_FILE)
        dims = int(meta["dims"])
        graph = GraphSettings.from_meta(meta)
        if expansion_search is not None:
            graph = replace(graph, expansion_search=expansion_search)
        index = None
        vectors = None
        if (path / EXACT_VECTORS_FILE).is_file() or meta.get("index", "hnsw") == "exact":
            vectors = np.load(path / EXACT_VECTORS_FILE, mmap_mode="r")
            if vectors.shape != (len(ids), dims):
                raise ValueError(f"{path}: vectors of shape {vectors.shape} for {len(ids)} chunk doc ids")
        if meta.get("index", "hnsw") == "hnsw" and meta["num_chunks"]:
            index = Index.restore(str(path / VECTORS_FILE), view=view)
            if index is None:
                raise OSError(f"cannot read {path / VECTORS_FILE}")
            if len(index) != len(ids):
                raise ValueError(f"{path}: {len(index)} vectors but {len(ids)} chunk doc ids")
            index.expansion_search = graph.expansion_search  # type: ignore[misc]  # settable; usearch's stub says read-only
        router, failed = None, False
        if meta.get("index") == "ivf" and meta["num_chunks"]:
            try:
                router = ivf.Router.open(path, len(ids), dims)
            except ivf.RouterError as e:  # a damaged router costs speed, never results
                warnings.warn(f"{e}; dense search falls back to exact", stacklevel=2)
                failed = True
        opened = cls(path, index, ids, dims, exact_max_chunks=exact_max_chunks, vectors=vectors, graph=graph,
                     router=router)
        opened._router_failed = failed
        return opened if rows is None else opened.subset(rows)

    def subset(self, rows: np.ndarray) -> DenseIndex:
        """The index of these chunk rows alone (sorted, distinct): it shares this one's graph
        (searched with the subset as filter) and memory-mapped vectors, and its results equal
        those of an index built on the rows' vectors alone."""
        if self._rows is not None:
            raise ValueError("a subset of a subset: take rows of the store")
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        n = self.num_chunks
        if len(rows) and (rows.min() < 0 or rows.max() >= n or np.any(np.diff(rows) <= 0)):
            raise ValueError(f"{self.path}: rows must be sorted, distinct positions below {n}")
        sub = DenseIndex(self.path, self._index, self.chunk_doc_ids[rows], self.dims,
                         exact_max_chunks=self.exact_max_chunks, graph=self.graph, rows=rows,
                         store_vectors=self.vectors(), router=self._router)
        sub._router_failed = self._router_failed
        return sub

    @property
    def num_chunks(self) -> int:
        return int(len(self.chunk_doc_ids))

    @property
    def num_docs(self) -> int:
        return int(len(self._unique_ids))

    @property
    def kind(self) -> str:
        """dense.json's "index": "hnsw" (a graph), "ivf" (the router, even when its files are
        damaged and search falls back to exact) or "exact"."""
        if self._index is not None:
            return "hnsw"
        return "ivf" if self._router is not None or self._router_failed else "exact"

    @property
    def has_graph(self) -> bool:
        """Whether an HNSW graph was built (an "exact" index has none)."""
        return self._index is not None

    def search_path(self, batched: bool = False) -> str:
        """Which path :meth:`search` (or, ``batched``, :meth:`search_many`) takes on this index."""
        if batched and self.num_chunks * self.dims <= BATCH_EXACT_MAX_CELLS:
            return "batched-exact"
        if self.kind == "exact" or self.num_chunks <= self.exact_max_chunks or self._router_failed:
            return "exact"
        return "ivf" if self._router is not None else "hnsw"

    def vectors(self) -> np.ndarray:
        """All chunk vectors (n x d float32): the stored file (memory-mapped), this subset's rows
        of it, or (an index built before the file was kept beside its graph) the graph's copy."""
        if self._vectors is None:
            if self._rows is not None and self._store_vectors is not None:
                self._vectors = np.ascontiguousarray(self._store_vectors[self._rows], dtype=np.float32)
            elif self._index is None:
                self._vectors = np.zeros((0, self.dims), dtype=np.float32)
            else:
                got = self._index.get(np.arange(self.num_chunks, dtype=np.uint64))
                self._vectors = np.ascontiguousarray(np.asarray(got, dtype=np.float32))
        return self._vectors

    def _unit_vectors(self) -> np.ndarray:
        if self._unit is None:
            # Rows grouped by doc (self._order), so similarities need no gather before reduceat. A
            # subset gathers its rows from the store's file straight into that order (one copy
            # held: the unit vectors, not also the raw rows).
            if self._vectors is None and self._rows is not None and self._store_vectors is not None:
                grouped = self._store_vectors[self._rows[self._order]]
            else:
                grouped = self.vectors()[self._order]
            self._unit = np.ascontiguousarray(_unit_rows(grouped), dtype=np.float32)
        return self._unit

    def _store_rows(self, keys: np.ndarray) -> np.ndarray:
        """f32 vectors of sorted store rows, read from the memory-mapped file."""
        store = self._store_vectors if self._store_vectors is not None else self.vectors()
        return np.asarray(store[keys], dtype=np.float32)

    # ----------------------------------------------------------------- search
    def search(self, qvec: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Top-``k`` distinct docs ``(doc_id, best-chunk cosine)`` best first, ties by doc_id.

        Up to ``exact_max_chunks`` chunks (or with neither router nor graph, or a damaged
        router): :meth:`exact_search`. Above: candidates from the router (:meth:`_routed`) or the graph (``rescore x k + 16`` chunks of this index, over-fetched in
        proportion when it is a subset of the graph's store, doubled until no unseen chunk could
        tie or beat the k-th doc given the int8 copies' error), re-scored exactly from the f32 vectors;
        past half the graph it falls back to :meth:`exact_search` (HNSW may not reach every node).
        """
        if k <= 0 or self.num_chunks == 0:
            return []
        q = _as_query(qvec, self.dims)
        if self.search_path() == "exact":
            return self._exact(q, k)
        return self._approximate(q, k)

    def _approximate(self, q: np.ndarray, k: int) -> list[tuple[int, float]]:
        k = min(k, self.num_docs)
        if self._router is not None:
            return self._routed(q, k)
        assert self._index is not None
        total = len(self._index)
        count = math.ceil((self.graph.rescore * k + 16) * total / self.num_chunks)
        gq = _graph_rows(q[None, :], self.graph.dtype)[0]
        while True:
            if count * 2 > total:
                # Fetching most of the graph anyway: brute force is as cheap and, unlike HNSW,
                # guaranteed to reach every chunk.
                return self._exact(q, k)
            matches = self._index.search(gq, count, threads=1)
            keys = np.asarray(matches.keys, dtype=np.int64)
            sims = _cosine_sims(matches.distances)
            if self._local is None:
                mine, found = keys, sims
            else:  # a subset of the store: keep its own rows
                keep = self._local[keys] >= 0
                mine, found = keys[keep], sims[keep]
            if len(mine):
                ranked = self._rescore_keys(q, np.sort(mine), k)
                if len(ranked) >= k and sims.min() + 2 * self._graph_error(q, mine, found) < ranked[-1][1]:
                    # An unseen chunk's graph similarity is at most the last one fetched and its
                    # exact score at most that plus the graph's error (twice the largest seen
                    # here, for margin): it cannot tie or beat the k-th doc.
                    return ranked
            count *= 2

    def _graph_error(self, q: np.ndarray, keys: np.ndarray, sims: np.ndarray) -> float:
        """The largest gap between the graph's similarities of ``keys`` (int8 or f16 copies) and
        their exact scores."""
        order = np.argsort(keys)
        exact = _unit_rows(self._store_rows(keys[order])).astype(np.float64) @ q.astype(np.float64)
        return float(np.abs(exact - sims[order]).max())

    def _routed(self, q: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Candidates from the router's nearest lists (more of them for a subset, in proportion
        to its share of the store): the ``rescore x k + 16`` most similar chunks, re-scored
        exactly with every chunk of their docs; too few docs in the lists: exact search."""
        assert self._router is not None
        share = len(self._router.rows) / self.num_chunks
        with _one_blas_thread():  # many small products: threads cost more than they give
            keys, sims = self._router.probe(q, math.ceil(self.graph.nprobe * share))
        if self._local is not None:
            keep = self._local[keys] >= 0
            keys, sims = keys[keep], sims[keep]
        count = self.graph.rescore * k + 16
        if len(keys) > count:
            keys = keys[np.argpartition(-sims, count - 1)[:count]]
        local = keys if self._local is None else self._local[keys]
        if len(np.unique(self.chunk_doc_ids[local])) < k:
            return self._exact(q, k)
        return self._rescore_keys(q, np.sort(keys), k)

    def _rescore_keys(self, q: np.ndarray, keys: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Rank the docs of the graph's candidate ``keys`` on exact scores: every chunk of every
        candidate doc (a doc found through a lesser chunk still scores as its best one) re-scored
        as the exact path does (float64 dot products of the f32 unit vectors)."""
        local = keys if self._local is None else self._local[keys]
        at = np.searchsorted(self._unique_ids, np.unique(self.chunk_doc_ids[local]))
        ends = np.r_[self._starts[1:], len(self._order)]
        rows = np.sort(np.concatenate([self._order[self._starts[i]:ends[i]] for i in at]))  # own rows
        unit = _unit_rows(self._store_rows(rows if self._rows is None else self._rows[rows]))
        exact = (unit.astype(np.float64) * q.astype(np.float64)).sum(axis=1)
        docs = self.chunk_doc_ids[rows]
        order = np.argsort(docs, kind="stable")
        docs, exact = docs[order], exact[order]
        starts = np.flatnonzero(np.r_[True, docs[1:] != docs[:-1]])
        return _rank(docs[starts], np.maximum.reduceat(exact, starts), k)

    def chunk_scores(self, qvec: np.ndarray, doc_id: int) -> list[float]:
        """The cosine of each of ``doc_id``'s chunks (in chunking order) with ``qvec``, scored as
        :meth:`search` scores them (float64 dot products of the f32 unit vectors): the best is the doc's score."""
        q = _as_query(qvec, self.dims)
        rows = np.flatnonzero(self.chunk_doc_ids == int(doc_id))
        unit = _unit_rows(self._store_rows(rows if self._rows is None else self._rows[rows]))
        return [float(x) for x in (unit.astype(np.float64) * q.astype(np.float64)).sum(axis=1)]

    def search_many(self, qvecs: np.ndarray, k: int) -> list[list[tuple[int, float]]]:
        """:meth:`search` for every row of ``qvecs`` (m x d). Up to ``BATCH_EXACT_MAX_CELLS``:
        exact, one matrix product per block of queries (:meth:`search_path` says which path);
        identical to :meth:`exact_search` query by query."""
        q = _as_queries(qvecs, self.dims)
        if k <= 0 or self.num_chunks == 0:
            return [[] for _ in range(len(q))]
        if self.search_path(batched=True) != "batched-exact":
            return [self.search(row, k) for row in q]
        unit = self._unit_vectors()
        block = max(1, BLOCK_CELLS // self.num_chunks)
        out: list[list[tuple[int, float]]] = []
        for start in range(0, len(q), block):
            qs = q[start:start + block]
            with _one_blas_thread():
                sims = qs @ unit.T  # queries x chunks (rows grouped by doc)
            best = np.maximum.reduceat(sims, self._starts, axis=1)
            out.extend(self._rescored(unit, row, sims[j], best[j], k) for j, row in enumerate(qs))
        return out

    def exact_search(self, qvec: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Brute-force reference for :meth:`search` over the same vectors (numpy)."""
        if k <= 0 or self.num_chunks == 0:
            return []
        return self._exact(_as_query(qvec, self.dims), k)

    def _exact(self, q: np.ndarray, k: int) -> list[tuple[int, float]]:
        """:meth:`exact_search` for an already normalised query (``search`` passes its own)."""
        unit = self._unit_vectors()
        with _one_blas_thread():
            sims = unit @ q
        best = np.maximum.reduceat(sims, self._starts)
        return self._rescored(unit, q, sims, best, k)

    def _rescored(self, unit: np.ndarray, q: np.ndarray, sims: np.ndarray, best: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Top-``k`` docs from float32 chunk similarities ``sims`` (rows of ``unit``) and their
        per-doc maxima ``best``: every chunk that could reach the k-th doc despite float32
        rounding is re-scored in float64 (numpy's per-row sum: independent of the BLAS kernel and
        of how many queries shared the product), and the docs ranked on those scores."""
        if k < len(best):
            kth = -np.partition(-best, k - 1)[k - 1]
            cand = np.flatnonzero(sims >= kth - self._margin)
        else:
            cand = np.arange(len(sims))
        exact = (unit[cand].astype(np.float64) * q.astype(np.float64)).sum(axis=1)
        docs = self._sorted_ids[cand]  # ascending: rows are grouped by doc
        starts = np.flatnonzero(np.r_[True, docs[1:] != docs[:-1]])
        return _rank(docs[starts], np.maximum.reduceat(exact, starts), k)
