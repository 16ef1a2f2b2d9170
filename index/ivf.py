"""A coarse router for dense search at scale: IVF-style cluster probing (numpy/BLAS only).

Spherical k-means centroids of the store's unit vectors (trained on a seeded sample), and
per centroid an inverted list of the store rows nearest to it. A query is compared with every
centroid, the ``nprobe`` most similar lists are scanned exactly (float32) and their rows
returned with their similarities; the dense index re-scores the candidates exactly, so the
router only decides which chunks are looked at.

Files beside the store (all .npy, read memory-mapped):
  ivf_centroids.npy  nlist x d float32 unit centroids
  ivf_offsets.npy    nlist + 1 int64: list j is positions offsets[j]:offsets[j+1] below
  ivf_rows.npy       n int64 store rows, grouped by list
  ivf_vectors.npy    n x d float32 unit vectors in that order (a list is one contiguous read)
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

CENTROIDS_FILE = "ivf_centroids.npy"
OFFSETS_FILE = "ivf_offsets.npy"
ROWS_FILE = "ivf_rows.npy"
VECTORS_FILE = "ivf_vectors.npy"
FILES = (CENTROIDS_FILE, OFFSETS_FILE, ROWS_FILE, VECTORS_FILE)
# Similarity matrix held per block while assigning rows to centroids (floats): 64 MB.
BLOCK_CELLS = 16_000_000
GATHER_ROWS = 100_000


class RouterError(Exception):
    """The router's files are missing, unreadable or disagree with the store."""


def default_nlist(n: int) -> int:
    """About 4 sqrt(n) lists (1M rows: 4000 lists of ~250)."""
    return max(1, min(n, round(4 * math.sqrt(max(n, 1)))))


def _unit(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(v / norms, dtype=np.float32)


def assign(unit: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """Index of each row's most similar centroid (blocks keep the similarity matrix small)."""
    out = np.empty(len(unit), dtype=np.int64)
    block = max(1, BLOCK_CELLS // max(len(centroids), 1))
    for start in range(0, len(unit), block):
        rows = _unit(unit[start:start + block])
        out[start:start + len(rows)] = np.argmax(rows @ centroids.T, axis=1)
    return out


def train(vectors: np.ndarray, nlist: int, seed: int = 0, per_list: int = 32, iters: int = 8) -> np.ndarray:
    """Spherical k-means on ``per_list x nlist`` rows drawn with ``seed`` (the same store and
    settings give the same centroids). An emptied list is re-seeded with a random sample row."""
    rng = np.random.default_rng(seed)
    n = len(vectors)
    m = min(n, nlist * per_list)
    sample = _unit(vectors[np.sort(rng.choice(n, m, replace=False))])
    cent = sample[rng.choice(m, nlist, replace=False)].copy()
    for _ in range(iters):
        labels = assign(sample, cent)
        order = np.argsort(labels, kind="stable")
        counts = np.bincount(labels, minlength=nlist)
        present = np.flatnonzero(counts)
        starts = np.r_[0, np.cumsum(counts[present])[:-1]]
        sums = np.add.reduceat(sample[order], starts, axis=0)
        cent[present] = sums
        empty = np.flatnonzero(counts == 0)
        if len(empty):
            cent[empty] = sample[rng.choice(m, len(empty), replace=False)]
        cent = _unit(cent)
    return cent


def _save(path: Path, array: np.ndarray) -> None:
    tmp = path.with_name(path.stem + ".tmp.npy")
    np.save(tmp, array)
    os.replace(tmp, path)


def build(path: Path, vectors: np.ndarray, nlist: int = 0, seed: int = 0) -> int:
    """Write the router of ``vectors`` (n x d, the store's rows) into ``path``; returns nlist.
    Each file is written to a temporary name and renamed, the centroids last: a build cut short
    leaves no router that :func:`Router.open` would accept."""
    path = Path(path)
    n, dims = vectors.shape
    nlist = min(nlist or default_nlist(n), n)
    for name in FILES:
        (path / name).unlink(missing_ok=True)
    cent = train(vectors, nlist, seed)
    labels = assign(vectors, cent)
    order = np.argsort(labels, kind="stable")
    offsets = np.r_[0, np.cumsum(np.bincount(labels, minlength=nlist))].astype(np.int64)
    tmp = path / (Path(VECTORS_FILE).stem + ".tmp.npy")
    out = np.lib.format.open_memmap(tmp, mode="w+", dtype=np.float32, shape=(n, dims))
    for start in range(0, n, GATHER_ROWS):
        rows = order[start:start + GATHER_ROWS]
        out[start:start + len(rows)] = _unit(vectors[np.sort(rows)])[np.argsort(np.argsort(rows))]
    out.flush()
    del out
    os.replace(tmp, path / VECTORS_FILE)
    _save(path / ROWS_FILE, order.astype(np.int64))
    _save(path / OFFSETS_FILE, offsets)
    _save(path / CENTROIDS_FILE, cent)
    return nlist


class Router:
    def __init__(self, centroids: np.ndarray, offsets: np.ndarray, rows: np.ndarray, vectors: np.ndarray) -> None:
        self.centroids = centroids
        self.offsets = offsets
        self.rows = rows
        self.vectors = vectors

    @property
    def nlist(self) -> int:
        return len(self.centroids)

    @classmethod
    def open(cls, path: Path, num_rows: int, dims: int) -> Router:
        """The router beside a store of ``num_rows`` x ``dims``; :class:`RouterError` when a file
        is missing, truncated or of the wrong shape (the caller falls back, never fails)."""
        path = Path(path)
        try:
            cent = np.load(path / CENTROIDS_FILE)
            offsets = np.load(path / OFFSETS_FILE)
            rows = np.load(path / ROWS_FILE, mmap_mode="r")
            vectors = np.load(path / VECTORS_FILE, mmap_mode="r")
        except (OSError, ValueError, EOFError) as e:
            raise RouterError(f"{path}: unreadable IVF router: {e}") from e
        nlist = len(cent)
        if (cent.ndim != 2 or cent.shape[1] != dims or nlist == 0 or cent.dtype != np.float32
                or not np.all(np.isfinite(cent))):
            raise RouterError(f"{path / CENTROIDS_FILE}: centroids of shape {cent.shape} for {dims} dims")
        if (offsets.shape != (nlist + 1,) or offsets[0] != 0 or offsets[-1] != num_rows
                or np.any(np.diff(offsets) < 0)):
            raise RouterError(f"{path / OFFSETS_FILE}: offsets do not cover {num_rows} rows in {nlist} lists")
        if rows.shape != (num_rows,) or vectors.shape != (num_rows, dims) or vectors.dtype != np.float32:
            raise RouterError(f"{path}: router rows {rows.shape} / vectors {vectors.shape} for a store of {num_rows} x {dims}")
        # plain ndarray views of the maps: slicing a np.memmap costs ~15 us of Python per list
        return cls(cent, offsets, rows.view(np.ndarray), vectors.view(np.ndarray))

    def probe(self, q: np.ndarray, nprobe: int) -> tuple[np.ndarray, np.ndarray]:
        """(store rows, float32 similarities to unit ``q``) of the ``nprobe`` lists nearest to q."""
        nprobe = max(1, min(nprobe, self.nlist))
        cs = self.centroids @ q
        lists = np.sort(np.argpartition(-cs, nprobe - 1)[:nprobe]) if nprobe < self.nlist else np.arange(self.nlist)
        lo, hi = self.offsets[lists], self.offsets[lists + 1]
        sims = np.empty(int((hi - lo).sum()), dtype=np.float32)
        keys = np.empty(len(sims), dtype=np.int64)
        at = 0
        for a, b in zip(lo.tolist(), hi.tolist()):
            sims[at:at + b - a] = self.vectors[a:b] @ q
            keys[at:at + b - a] = self.rows[a:b]
            at += b - a
        return keys, sims
