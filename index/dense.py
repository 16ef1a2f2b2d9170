"""Dense retrieval over chunk vectors with USearch (HNSW, cosine), aggregated to documents.

Files in the index directory:
  vectors.usearch     the HNSW graph + f32 vectors (keys 0..n-1 = chunk rows), for an "hnsw" index
  vectors.npy         the f32 vectors alone, for an "exact" index (no graph: nothing would use it)
  chunk_doc_ids.npy   int64 doc id of each chunk row
  dense.json          dims, counts, which index ("exact"/"hnsw") and its HNSW parameters
A document scores as its best chunk (cosine similarity = 1 - cosine distance).

Build policy: an HNSW graph is built only above ``hnsw_min_chunks`` chunks (default
``EXACT_MAX_CELLS // dims``): below that no search would use it, and building it is most of the
cost of indexing (214 s for 100K MiniLM vectors here).

Search policy: an index of at most ``EXACT_MAX_CELLS`` floats (chunks x dims; 100K chunks at
384-d) is searched exactly (one single-threaded numpy matrix-vector product: recall 1.0 and, at
that size, about as fast as an HNSW search deep enough for recall 0.99); a larger one goes through
HNSW with ``EXPANSION_SEARCH``. :meth:`DenseIndex.search_many` (evaluation: every query of a tier
at once) is exact up to ``BATCH_EXACT_MAX_CELLS``: one matrix product per block of queries costs
a few ms a query at 100K chunks, less than one HNSW search deep enough for recall 0.99.

Exact scores are the float64 dot products of the best candidates (chosen by the float32 product
with a margin that bounds its rounding): the same numbers whichever BLAS kernel (matrix-vector
for one query, matrix-matrix for a block) found them, so the batched and per-query paths give
identical rankings. Numbers: benchmarks/bench_index.py, benchmarks/bench_batched_dense.py.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from usearch.index import Index

try:  # installed with sentence-transformers (via scikit-learn); only a latency nicety
    from threadpoolctl import ThreadpoolController
except ImportError:  # pragma: no cover
    ThreadpoolController = None

VECTORS_FILE = "vectors.usearch"
EXACT_VECTORS_FILE = "vectors.npy"
DOC_IDS_FILE = "chunk_doc_ids.npy"
META_FILE = "dense.json"

CONNECTIVITY = 16  # HNSW "M"
EXPANSION_ADD = 128  # efConstruction
# ef (per query; raised automatically to the fetch count). On the benchmark's clustered 100K
# set (M=16, efC=128) recall@10 is 0.72 / 0.89 / 0.977 / 0.992 / 0.9975 at ef 256 / 512 / 1024 /
# 1536 / 2048, and latency grows about linearly (~7.5 us per unit of ef on this machine).
EXPANSION_SEARCH = 2048
# search() is exact when chunks x dims is at most this (100K x 384: p50 ~13 ms, p95 ~15 ms).
EXACT_MAX_CELLS = 100_000 * 384
ADD_BATCH = 10_000
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


class DenseIndex:
    def __init__(
        self,
        path: Path,
        index: Index | None,
        chunk_doc_ids: np.ndarray,
        dims: int,
        exact_max_chunks: int | None = None,
        vectors: np.ndarray | None = None,
    ) -> None:
        self.path = path
        self._index = index
        self.chunk_doc_ids = chunk_doc_ids
        self.dims = dims
        if exact_max_chunks is None:
            exact_max_chunks = EXACT_MAX_CELLS // max(dims, 1)
        self.exact_max_chunks = exact_max_chunks
        self._vectors: np.ndarray | None = vectors
        self._unit: np.ndarray | None = None
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
    ) -> None:
        """Index ``vectors`` (n x d float32, L2-normalised; row i belongs to ``chunk_doc_ids[i]``).

        An HNSW graph is built only when n > ``hnsw_min_chunks`` (default
        :func:`default_hnsw_min_chunks`; 0: always); otherwise the vectors are stored for exact
        search alone. ``dense.json``'s "index" says which ("hnsw" or "exact")."""
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
        kind = "hnsw" if n > hnsw_min_chunks else "exact"
        meta: dict[str, Any] = {
            "dims": int(dims),
            "num_chunks": int(n),
            "num_docs": int(len(np.unique(ids))),
            "metric": "cos",
            "dtype": "f32",
            "index": kind,
            "hnsw_min_chunks": int(hnsw_min_chunks),
        }
        if kind == "hnsw":
            index = Index(
                ndim=dims,
                metric="cos",
                dtype="f32",
                connectivity=CONNECTIVITY,
                expansion_add=EXPANSION_ADD,
                expansion_search=EXPANSION_SEARCH,
                multi=False,
            )
            for start in range(0, n, ADD_BATCH):
                end = min(start + ADD_BATCH, n)
                index.add(np.arange(start, end, dtype=np.uint64), vecs[start:end])
                if progress is not None:
                    progress(end)
            index.save(str(path / VECTORS_FILE))
            meta.update(connectivity=CONNECTIVITY, expansion_add=EXPANSION_ADD)
        else:
            np.save(path / EXACT_VECTORS_FILE, vecs)
            if progress is not None and n:
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
        expansion_search: int = EXPANSION_SEARCH,
        exact_max_chunks: int | None = None,
    ) -> DenseIndex:
        """Load the index (``view=True`` memory-maps the vectors file instead).

        :meth:`search` is exact when the index has at most ``exact_max_chunks`` chunks (default
        ``EXACT_MAX_CELLS // dims``; 0: always HNSW) or has no HNSW graph; the exact path holds a
        unit-vector copy in memory (chunks x dims x 4 bytes), even with ``view=True``.
        """
        path = Path(path)
        meta_path = path / META_FILE
        if not meta_path.is_file():
            raise FileNotFoundError(f"no dense index at {path}")
        meta = json.loads(meta_path.read_text())
        ids = np.load(path / DOC_IDS_FILE)
        index = None
        vectors = None
        if meta.get("index", "hnsw") == "exact":
            vectors = np.load(path / EXACT_VECTORS_FILE, mmap_mode="r" if view else None)
            if vectors.shape != (len(ids), int(meta["dims"])):
                raise ValueError(f"{path}: vectors of shape {vectors.shape} for {len(ids)} chunk doc ids")
        elif meta["num_chunks"]:
            index = Index.restore(str(path / VECTORS_FILE), view=view)
            if index is None:
                raise OSError(f"cannot read {path / VECTORS_FILE}")
            if len(index) != len(ids):
                raise ValueError(f"{path}: {len(index)} vectors but {len(ids)} chunk doc ids")
            index.expansion_search = expansion_search  # type: ignore[misc]  # settable; usearch's stub says read-only
        return cls(path, index, ids, int(meta["dims"]), exact_max_chunks=exact_max_chunks, vectors=vectors)

    @property
    def num_chunks(self) -> int:
        return int(len(self.chunk_doc_ids))

    @property
    def num_docs(self) -> int:
        return int(len(self._unique_ids))

    @property
    def has_graph(self) -> bool:
        """Whether an HNSW graph was built (an "exact" index has none)."""
        return self._index is not None

    def search_path(self, batched: bool = False) -> str:
        """Which path :meth:`search` (or, ``batched``, :meth:`search_many`) takes on this index."""
        if batched and self.num_chunks * self.dims <= BATCH_EXACT_MAX_CELLS:
            return "batched-exact"
        if self._index is None or self.num_chunks <= self.exact_max_chunks:
            return "exact"
        return "hnsw"

    def vectors(self) -> np.ndarray:
        """All chunk vectors (n x d float32), read back from the index file once."""
        if self._vectors is None:
            if self._index is None:
                self._vectors = np.zeros((0, self.dims), dtype=np.float32)
            else:
                got = self._index.get(np.arange(self.num_chunks, dtype=np.uint64))
                self._vectors = np.ascontiguousarray(np.asarray(got, dtype=np.float32))
        return self._vectors

    def _unit_vectors(self) -> np.ndarray:
        if self._unit is None:
            if self._vectors is not None or self._index is None:
                vecs = self.vectors()
            else:  # don't also cache the raw copy
                got = self._index.get(np.arange(self.num_chunks, dtype=np.uint64))
                vecs = np.asarray(got, dtype=np.float32)
            norms = np.linalg.norm(vecs, axis=1, keepdims=True)
            norms[norms == 0] = 1.0
            # Rows grouped by doc (self._order), so similarities need no gather before reduceat.
            self._unit = np.ascontiguousarray((vecs / norms)[self._order], dtype=np.float32)
        return self._unit

    # ----------------------------------------------------------------- search
    def search(self, qvec: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Top-``k`` distinct docs ``(doc_id, best-chunk cosine)`` best first, ties by doc_id.

        Up to ``exact_max_chunks`` chunks (or without a graph): :meth:`exact_search`. Above:
        approximate (HNSW). Chunks are fetched with oversampling, widened until ``k`` distinct
        docs are found (and the tie group at the cut is complete); past half the index it falls
        back to :meth:`exact_search` (HNSW may not reach every node).
        """
        if k <= 0 or self.num_chunks == 0:
            return []
        q = _as_query(qvec, self.dims)
        n = self.num_chunks
        if self._index is None or n <= self.exact_max_chunks:
            return self._exact(q, k)
        k = min(k, self.num_docs)
        count = 4 * k + 16
        while True:
            if count * 2 > n:
                # Fetching most of the index anyway: brute force is as cheap and, unlike HNSW,
                # guaranteed to reach every chunk.
                return self._exact(q, k)
            matches = self._index.search(q, count)
            keys = np.asarray(matches.keys, dtype=np.int64)
            sims = 1.0 - np.asarray(matches.distances, dtype=np.float64)
            docs = self.chunk_doc_ids[keys]
            best: dict[int, float] = {}
            for d, s in zip(docs.tolist(), sims.tolist(), strict=True):
                if d not in best or s > best[d]:
                    best[d] = s
            if len(best) >= k:
                kth = sorted(best.values(), reverse=True)[k - 1]
                if sims.min() < kth:  # an unseen chunk cannot tie or beat the k-th doc
                    break
            count *= 2
        ids = np.fromiter(best.keys(), dtype=np.int64, count=len(best))
        scores = np.fromiter(best.values(), dtype=np.float64, count=len(best))
        return _rank(ids, scores, k)

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
