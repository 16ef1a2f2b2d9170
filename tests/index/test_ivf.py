"""The IVF router (index/ivf.py) behind DenseIndex: near-exact top-10 above the threshold, the
exact path unchanged below it, old stores still searched by their graph, and a damaged router
file costing speed (exact search), never results."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from index import DenseIndex, ivf
from index.dense import GRAPH, GraphSettings

N, DIMS, K = 20_000, 64, 10


def _clustered(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows near 400 random centres (as embedded chunks of related documents are), unit length,
    and queries near the same centres."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((400, DIMS)).astype(np.float32)
    v = centres[rng.integers(0, 400, n)] + 0.35 * rng.standard_normal((n, DIMS)).astype(np.float32)
    q = centres[rng.integers(0, 400, 100)] + 0.35 * rng.standard_normal((100, DIMS)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True), q


@pytest.fixture(scope="module")
def data():
    vecs, queries = _clustered(N, 7)
    return np.arange(N, dtype=np.int64) // 2, vecs, queries  # two chunks a document


@pytest.fixture(scope="module")
def routed(tmp_path_factory, data):
    """A store above its (forced) threshold: the router, no graph; searched through it at any size."""
    ids, vecs, _ = data
    path = tmp_path_factory.mktemp("ivf") / "store"
    DenseIndex.build(path, ids, vecs, hnsw_min_chunks=0)
    return path


def _recall(idx: DenseIndex, queries: np.ndarray) -> float:
    hits = [len({d for d, _ in idx.search(q, K)} & {d for d, _ in idx.exact_search(q, K)}) / K for q in queries]
    return float(np.mean(hits))


def test_the_router_replaces_the_graph_and_is_recorded(routed):
    meta = json.loads((routed / "dense.json").read_text())
    assert meta["index"] == "ivf" and meta["graph_router"] == "ivf" and meta["graph_nprobe"] == GRAPH.nprobe
    assert meta["ivf_nlist"] == ivf.default_nlist(N) == 566
    assert not (routed / "vectors.usearch").exists()
    assert all((routed / name).is_file() for name in ivf.FILES)
    offsets = np.load(routed / ivf.OFFSETS_FILE)
    assert offsets[-1] == N and np.array_equal(np.sort(np.load(routed / ivf.ROWS_FILE)), np.arange(N))
    idx = DenseIndex.open(routed, exact_max_chunks=0)
    assert idx.kind == "ivf" and not idx.has_graph and idx.search_path() == "ivf"


def test_router_top10_is_the_exact_top10(routed, data):
    """Recall@10 >= 0.99 at the default nprobe, and the scores returned are the exact ones."""
    _, _, queries = data
    idx = DenseIndex.open(routed, exact_max_chunks=0)
    assert _recall(idx, queries) >= 0.99
    same = sum(idx.search(q, K) == idx.exact_search(q, K) for q in queries)
    assert same >= 95
    # one list probed finds far less: the probing, not the re-scoring, decides recall
    idx.graph = GraphSettings(nprobe=1)
    assert _recall(idx, queries) < 0.99


def test_a_subset_is_routed_over_its_own_rows(routed, data):
    _, _, queries = data
    rows = np.arange(0, N, 5)
    sub = DenseIndex.open(routed, exact_max_chunks=0, rows=rows)
    assert sub.search_path() == "ivf"
    for q in queries[:20]:
        assert all(d * 2 in set(rows) or d * 2 + 1 in set(rows) for d, _ in sub.search(q, K))
    assert _recall(sub, queries) >= 0.99


def test_below_the_threshold_the_exact_path_is_unchanged(tmp_path, routed, data):
    """A project below hnsw_min_chunks builds no router and searches exactly: byte-identical to
    the exact reference, and to the routed store's own exact search."""
    ids, vecs, queries = data
    DenseIndex.build(tmp_path / "small", ids, vecs)
    small = DenseIndex.open(tmp_path / "small")
    assert small.kind == "exact" and small.search_path() == "exact"
    assert not any((tmp_path / "small" / name).exists() for name in ivf.FILES)
    big = DenseIndex.open(routed)  # default threshold: 20K x 64 is searched exactly
    assert big.search_path() == "exact"
    for q in queries[:20]:
        assert small.search(q, K) == small.exact_search(q, K) == big.search(q, K)
    assert small.search_many(queries, K) == big.search_many(queries, K)


def test_a_store_built_before_the_router_still_opens_and_searches(tmp_path, data):
    """An "hnsw" store whose dense.json has no router settings: searched by its graph as before."""
    ids, vecs, queries = data
    path = tmp_path / "old"
    DenseIndex.build(path, ids[:2000], vecs[:2000], hnsw_min_chunks=0, graph=GraphSettings(router="none", threads=1))
    meta = json.loads((path / "dense.json").read_text())
    old = {k: v for k, v in meta.items() if k not in ("graph_router", "graph_nlist", "graph_nprobe")}
    (path / "dense.json").write_text(json.dumps(old))
    idx = DenseIndex.open(path, exact_max_chunks=0)
    assert idx.graph.router == "none" and idx.kind == "hnsw" and idx.search_path() == "hnsw"
    assert _recall(idx, queries) >= 0.99


@pytest.mark.parametrize("damage", ["truncate-vectors", "missing-centroids", "offsets-shape", "not-npy"])
def test_a_damaged_router_falls_back_to_exact(tmp_path, routed, data, damage):
    _, _, queries = data
    path = tmp_path / "store"
    shutil.copytree(routed, path)
    if damage == "truncate-vectors":
        f = path / ivf.VECTORS_FILE
        f.write_bytes(f.read_bytes()[: f.stat().st_size // 2])
    elif damage == "missing-centroids":
        (path / ivf.CENTROIDS_FILE).unlink()
    elif damage == "offsets-shape":
        np.save(path / ivf.OFFSETS_FILE, np.load(path / ivf.OFFSETS_FILE)[:-3])
    else:
        (path / ivf.ROWS_FILE).write_text("not an array\n")
    with pytest.warns(UserWarning, match="falls back to exact") as seen:
        idx = DenseIndex.open(path, exact_max_chunks=0)
    assert str(path) in str(seen[0].message)
    assert idx.kind == "ivf" and idx.search_path() == "exact"
    for q in queries[:10]:
        assert idx.search(q, K) == idx.exact_search(q, K)
    sub = idx.subset(np.arange(0, N, 3))
    assert sub.search_path() == "exact"


def test_training_is_seeded():
    vecs, _ = _clustered(3000, 3)
    a, b = ivf.train(vecs, 50, seed=1), ivf.train(vecs, 50, seed=1)
    assert np.array_equal(a, b) and a.shape == (50, DIMS)
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    labels = ivf.assign(vecs, a)
    assert len(np.unique(labels)) > 40  # lists are used, not one giant list
