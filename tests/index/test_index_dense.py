"""DenseIndex (USearch HNSW) on real MiniLM chunk vectors of the hotpot corpus."""

from __future__ import annotations

import json

import numpy as np
import pytest

from index import DenseIndex, SentenceTransformerEmbedder
from index import dense as dense_mod
from index.dense import GraphSettings
from support.paths import HOTPOT

TARGET_CHUNKS = 600  # enough for HNSW to be exercised (exact_max_chunks=0); embedding more only costs time


@pytest.fixture(scope="module")
def minilm() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder()


@pytest.fixture(scope="module")
def hotpot_chunks(minilm):
    """~600 real chunks (20-token windows, 4 overlap) of hotpot docs, embedded with MiniLM."""
    if not HOTPOT.is_dir():
        pytest.skip(f"{HOTPOT} missing")
    rows = [json.loads(line) for line in (HOTPOT / "corpus.jsonl").open(encoding="utf-8")]
    chunk_ids: list[int] = []
    texts: list[str] = []
    for i, r in enumerate(rows):
        doc_id = 10_000 + 3 * i  # real ids are strings: map to ints
        for c in minilm.chunk(f"{r['title']}\n{r['text']}", chunk_tokens=20, overlap=4):
            chunk_ids.append(doc_id)
            texts.append(c)
        if len(texts) >= TARGET_CHUNKS:
            break
    vectors = minilm.embed(texts)
    queries = [json.loads(line)["query"] for line in (HOTPOT / "queries.jsonl").open(encoding="utf-8")]
    qvecs = minilm.embed(queries)
    return np.asarray(chunk_ids, dtype=np.int64), vectors, qvecs


@pytest.fixture(scope="module")
def hotpot_dense(tmp_path_factory, hotpot_chunks) -> DenseIndex:
    """Opened with ``exact_max_chunks=0`` so that search() exercises HNSW at this small size."""
    ids, vectors, _ = hotpot_chunks
    path = tmp_path_factory.mktemp("dense") / "tier"
    # The graph path, built by one thread: a multi-threaded build of this small graph leaves 0-12
    # of its 600 nodes unreachable, build to build (measured), one thread none.
    DenseIndex.build(path, ids, vectors, hnsw_min_chunks=0, graph=GraphSettings(router="none", threads=1))
    return DenseIndex.open(path, exact_max_chunks=0)


class _Spy:
    """Counts calls to the wrapped callable."""

    def __init__(self, fn) -> None:
        self.fn, self.calls = fn, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.fn(*args, **kwargs)


def test_files_and_counts(hotpot_dense, hotpot_chunks):
    ids, vectors, _ = hotpot_chunks
    assert len(ids) >= TARGET_CHUNKS
    assert {p.name for p in hotpot_dense.path.iterdir()} >= {"vectors.usearch", "chunk_doc_ids.npy"}
    assert hotpot_dense.num_chunks == len(ids)
    assert hotpot_dense.num_docs == len(np.unique(ids)) < len(ids)
    np.testing.assert_array_equal(np.load(hotpot_dense.path / "chunk_doc_ids.npy"), ids)
    np.testing.assert_array_equal(hotpot_dense.vectors(), vectors)


def test_recall_at_10_vs_exact(hotpot_dense, hotpot_chunks):
    _, _, qvecs = hotpot_chunks
    assert len(qvecs) == 100
    recalls = []
    for q in qvecs:
        approx = {d for d, _ in hotpot_dense.search(q, 10)}
        exact = {d for d, _ in hotpot_dense.exact_search(q, 10)}
        assert len(exact) == 10
        recalls.append(len(approx & exact) / 10)
    recall = float(np.mean(recalls))
    print(f"\ndense doc-level recall@10 vs exact over {len(qvecs)} queries "
          f"({hotpot_dense.num_chunks} chunks, {hotpot_dense.num_docs} docs): {recall:.4f}")  # fmt: skip
    assert recall >= 0.99


def test_results_distinct_known_docs_exactly_k(hotpot_dense, hotpot_chunks):
    ids, _, qvecs = hotpot_chunks
    known = set(ids.tolist())
    for q in qvecs[:20]:
        for k in (1, 10, 50):
            res = hotpot_dense.search(q, k)
            docs = [d for d, _ in res]
            assert len(docs) == k == len(set(docs))
            assert set(docs) <= known
            scores = [s for _, s in res]
            assert scores == sorted(scores, reverse=True)
            assert all(-1.0001 <= s <= 1.0001 for s in scores)
    # k larger than the number of docs: every doc once.
    assert len(hotpot_dense.search(qvecs[0], 10**6)) == hotpot_dense.num_docs


def test_exact_path_up_to_threshold(hotpot_dense, hotpot_chunks):
    """At or below exact_max_chunks, search() is exact_search(): identical lists, no HNSW call."""
    _, _, qvecs = hotpot_chunks
    n = hotpot_dense.num_chunks
    default = DenseIndex.open(hotpot_dense.path)
    assert default.exact_max_chunks == dense_mod.EXACT_MAX_CELLS // default.dims >= n
    for limit in (None, n):
        idx = DenseIndex.open(hotpot_dense.path) if limit is None else DenseIndex.open(
            hotpot_dense.path, exact_max_chunks=limit
        )
        hnsw = _Spy(idx._index.search)
        idx._index = _IndexProxy(idx._index, hnsw)
        for q in qvecs[:20]:
            for k in (1, 10, 50):
                assert idx.search(q, k) == idx.exact_search(q, k)
        assert hnsw.calls == 0


def test_hnsw_path_above_threshold(hotpot_dense, hotpot_chunks):
    """Above exact_max_chunks, search() goes through HNSW (no exact fallback for small k) and
    still returns k distinct docs with the exact top-10 nearly always."""
    _, _, qvecs = hotpot_chunks
    n = hotpot_dense.num_chunks
    idx = DenseIndex.open(hotpot_dense.path, exact_max_chunks=n - 1)
    exact = _Spy(idx._exact)  # the brute-force path behind search() and exact_search()
    idx._exact = exact
    hnsw = _Spy(idx._index.search)
    idx._index = _IndexProxy(idx._index, hnsw)
    recalls = []
    for q in qvecs:
        res = idx.search(q, 10)
        docs = [d for d, _ in res]
        assert len(docs) == 10 == len(set(docs))
        recalls.append(len(set(docs) & {d for d, _ in hotpot_dense.exact_search(q, 10)}) / 10)
    assert exact.calls == 0 and hnsw.calls >= len(qvecs)
    assert float(np.mean(recalls)) >= 0.99


class _IndexProxy:
    """Stands in for the usearch Index with ``search`` replaced (usearch objects are not patchable)."""

    def __init__(self, index, search) -> None:
        self._inner, self.search = index, search

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def __len__(self) -> int:
        return len(self._inner)


def test_rank_keeps_ties_at_the_cut():
    # _rank partitions before sorting: the tie group at the k-th score must still order by id.
    rng = np.random.default_rng(3)
    scores = rng.uniform(0.0, 0.5, 1000)
    ids = rng.permutation(1000).astype(np.int64) + 100
    tied = rng.choice(1000, 7, replace=False)
    scores[tied] = 0.9
    best = int(rng.integers(1000))
    while best in tied:
        best = int(rng.integers(1000))
    scores[best] = 0.95
    got = dense_mod._rank(ids, scores, 4)
    assert got == [(int(ids[best]), 0.95)] + [(int(d), 0.9) for d in sorted(ids[tied])[:3]]
    full = np.lexsort((ids, -scores))[:20]
    assert dense_mod._rank(ids, scores, 20) == [(int(ids[i]), float(scores[i])) for i in full]


def test_scores_match_exact_cosine(hotpot_dense, hotpot_chunks):
    _, _, qvecs = hotpot_chunks
    q = qvecs[0]
    approx = dict(hotpot_dense.search(q, 10))
    exact = dict(hotpot_dense.exact_search(q, 10))
    for d in approx.keys() & exact.keys():
        assert approx[d] == pytest.approx(exact[d], abs=1e-4)


def test_best_chunk_aggregation(tmp_path, minilm):
    doc_a_chunks = [
        "The Eiffel Tower is a wrought-iron lattice tower in Paris, France.",
        "Bananas are rich in potassium and grow in tropical climates.",
        "The stock exchange closed lower on Tuesday.",
    ]
    doc_b = "A recipe for chocolate chip cookies with brown sugar."
    doc_c = "Paris is the capital of France and hosts many museums."
    texts = [*doc_a_chunks, doc_b, doc_c]
    ids = np.array([7, 7, 7, 3, 5], dtype=np.int64)
    vecs = minilm.embed(texts)
    DenseIndex.build(tmp_path / "d", ids, vecs)
    idx = DenseIndex.open(tmp_path / "d")
    assert idx.num_docs == 3 and idx.num_chunks == 5
    q = minilm.embed(["Eiffel Tower wrought-iron lattice in Paris"])[0]
    res = idx.search(q, 3)
    assert [d for d, _ in res][0] == 7
    sims = vecs @ q
    # Doc 7 scores exactly as its best chunk, not the mean of its chunks.
    assert res[0][1] == pytest.approx(float(sims[:3].max()), abs=1e-5)
    assert res[0][1] > float(sims[:3].mean()) + 0.1
    assert dict(res)[5] == pytest.approx(float(sims[4]), abs=1e-5)
    exact = idx.exact_search(q, 3)
    assert [d for d, _ in exact] == [d for d, _ in res]
    assert [x for _, x in exact] == pytest.approx([x for _, x in res], abs=1e-5)


def test_tie_order_by_doc_id_through_hnsw(tmp_path):
    # 12 docs whose chunk equals the query exactly (a 12-way tie), among 400 orthogonal chunks:
    # large enough that search() goes through HNSW, not the brute-force fallback.
    rng = np.random.default_rng(1)
    other = rng.standard_normal((400, 16)).astype(np.float32)
    other[:, 0] = 0.0
    tie = np.zeros((12, 16), dtype=np.float32)
    tie[:, 0] = 1.0
    vecs = np.concatenate([other, tie])
    tie_ids = [900, 40, 4, 17, 9, 25, 1000, 333, 77, 12, 501, 8]
    ids = np.array([*range(2000, 2400), *tie_ids], dtype=np.int64)
    perm = rng.permutation(len(ids))
    DenseIndex.build(tmp_path / "h", ids[perm], vecs[perm], hnsw_min_chunks=0, graph=GraphSettings(router="none", threads=1))
    idx = DenseIndex.open(tmp_path / "h", exact_max_chunks=0)
    q = np.eye(16, dtype=np.float32)[0]
    assert 2 * (4 * 3 + 16) < idx.num_chunks
    assert [d for d, _ in idx.search(q, 3)] == [4, 8, 9]
    assert [d for d, _ in idx.search(q, 12)] == sorted(tie_ids)


def test_tie_order_by_doc_id(tmp_path):
    v = np.zeros((6, 8), dtype=np.float32)
    v[:, 0] = 1.0
    ids = np.array([40, 4, 17, 9, 25, 1], dtype=np.int64)
    DenseIndex.build(tmp_path / "t", ids, v)
    idx = DenseIndex.open(tmp_path / "t")
    q = np.eye(8, dtype=np.float32)[0]
    assert [d for d, _ in idx.search(q, 3)] == [1, 4, 9]
    assert [d for d, _ in idx.exact_search(q, 3)] == [1, 4, 9]


def test_validation_and_empty(tmp_path):
    with pytest.raises(ValueError):
        DenseIndex.build(tmp_path / "bad", np.zeros(3, dtype=np.int64), np.zeros((2, 4), np.float32))
    DenseIndex.build(tmp_path / "empty", np.zeros(0, dtype=np.int64), np.zeros((0, 4), np.float32))
    idx = DenseIndex.open(tmp_path / "empty")
    assert idx.num_docs == 0 and idx.search(np.ones(4), 5) == [] and idx.exact_search(np.ones(4), 5) == []
    v = np.eye(4, dtype=np.float32)
    DenseIndex.build(tmp_path / "ok", np.arange(4), v)
    with pytest.raises(ValueError, match="dims"):
        DenseIndex.open(tmp_path / "ok").search(np.ones(5), 1)
    with pytest.raises(FileNotFoundError):
        DenseIndex.open(tmp_path / "missing")


@pytest.fixture(scope="module")
def hotpot_exact(tmp_path_factory, hotpot_chunks) -> DenseIndex:
    """The same chunks built as a workbench tier of this size is: exact, no HNSW graph."""
    ids, vectors, _ = hotpot_chunks
    path = tmp_path_factory.mktemp("dense-exact") / "tier"
    DenseIndex.build(path, ids, vectors)
    return DenseIndex.open(path)


def test_small_index_builds_no_graph(hotpot_exact, hotpot_dense):
    """Below hnsw_min_chunks no HNSW graph is built, and dense.json says which index each is."""
    meta = json.loads((hotpot_exact.path / "dense.json").read_text())
    assert meta["index"] == "exact" and meta["hnsw_min_chunks"] >= hotpot_exact.num_chunks
    assert not (hotpot_exact.path / "vectors.usearch").exists() and not hotpot_exact.has_graph
    assert json.loads((hotpot_dense.path / "dense.json").read_text())["index"] == "hnsw"
    assert hotpot_dense.has_graph and hotpot_dense.search_path() == "hnsw"
    assert hotpot_exact.search_path() == "exact" and hotpot_exact.search_path(batched=True) == "batched-exact"
    # no graph: even "always HNSW" searches exactly
    forced = DenseIndex.open(hotpot_exact.path, exact_max_chunks=0)
    assert forced.search_path() == "exact"
    assert np.array_equal(forced.vectors(), hotpot_dense.vectors())


@pytest.mark.parametrize("block_cells", [None, 1, 3 * 600])
def test_batched_exact_equals_per_query_exact(hotpot_exact, hotpot_dense, hotpot_chunks, monkeypatch, block_cells):
    """search_many (one float32 matrix product per block of queries) gives exactly the lists
    and scores of per-query exact search, on either index, whatever the block size."""
    if block_cells is not None:  # 1: one query per block; 1800: blocks of 3 with a remainder
        monkeypatch.setattr(dense_mod, "BLOCK_CELLS", block_cells)
    _, _, qvecs = hotpot_chunks
    for k in (1, 10, 100, 10**6):
        batched = hotpot_exact.search_many(qvecs, k)
        assert batched == [hotpot_exact.exact_search(q, k) for q in qvecs]
        assert batched == [hotpot_exact.search(q, k) for q in qvecs]
        assert hotpot_dense.search_many(qvecs, k) == batched  # the graph's index: same vectors, same path


def test_exact_scores_are_float64_best_chunk(hotpot_exact, hotpot_chunks):
    ids, vectors, qvecs = hotpot_chunks
    q = qvecs[0].astype(np.float64)
    q /= np.linalg.norm(q)
    unit = vectors.astype(np.float64) / np.linalg.norm(vectors.astype(np.float64), axis=1, keepdims=True)
    sims = unit @ q
    for doc, score in hotpot_exact.exact_search(qvecs[0], 20):
        assert score == pytest.approx(float(sims[ids == doc].max()), abs=1e-6)


def test_search_many_validation(hotpot_exact):
    with pytest.raises(ValueError, match="dims"):
        hotpot_exact.search_many(np.ones((2, 5)), 3)
    assert hotpot_exact.search_many(np.ones((2, hotpot_exact.dims)), 0) == [[], []]


def _int8_brute_force(index) -> _Spy:
    """The graph's search over every int8 copy (usearch's exact=True): the candidates the graph
    would find if its traversal reached every node: the graph's recall (test_the_graph_path_recall)
    is not what the candidate and re-scoring logic tested here depends on."""
    return _Spy(lambda *args, **kwargs: index.search(*args, exact=True, **kwargs))


def _recall_at(got: list[tuple[int, float]], want: list[tuple[int, float]]) -> float:
    return len({d for d, _ in got} & {d for d, _ in want}) / len(want)


def test_graph_settings_recorded_and_candidates_rescored_exactly(hotpot_dense, hotpot_chunks):
    """The graph holds int8 copies; with candidates from every copy, the graph's path returns
    exactly exact_search's docs and scores: it widens until no unseen chunk, given the int8
    error, could reach the k-th doc, and re-scores every chunk of the candidates' docs."""
    meta = json.loads((hotpot_dense.path / "dense.json").read_text())
    assert meta["graph_dtype"] == dense_mod.GRAPH.dtype == "i8"
    assert (meta["graph_connectivity"], meta["graph_expansion_add"], meta["graph_expansion_search"], meta["graph_rescore"]) == (
        dense_mod.GRAPH.connectivity, dense_mod.GRAPH.expansion_add, dense_mod.GRAPH.expansion_search, dense_mod.GRAPH.rescore)
    assert (hotpot_dense.path / "vectors.npy").is_file()  # the f32 vectors the candidates are re-scored from
    _, vectors, qvecs = hotpot_chunks
    idx = DenseIndex.open(hotpot_dense.path, exact_max_chunks=0, expansion_search=2 * len(vectors))
    assert idx.graph.dtype == "i8" and idx.search_path() == "hnsw"
    exact = _Spy(idx._exact)
    idx._exact = exact
    hnsw = _int8_brute_force(idx._index)
    idx._index = _IndexProxy(idx._index, hnsw)
    for q in qvecs:
        for k in (1, 10):
            assert idx.search(q, k) == idx.exact_search(q, k)
    assert hnsw.calls >= 2 * len(qvecs) and exact.calls == 2 * len(qvecs)  # the exact calls: exact_search's own


def test_the_graph_path_recall(hotpot_dense, hotpot_chunks):
    """The real traversal (ef above the graph's size): every score returned is the doc's exact
    one, best first, and nearly every exact top-10 doc is found."""
    _, vectors, qvecs = hotpot_chunks
    idx = DenseIndex.open(hotpot_dense.path, exact_max_chunks=0, expansion_search=2 * len(vectors))
    recalls = []
    for q in qvecs:
        got, want = idx.search(q, 10), idx.exact_search(q, 10)
        exact_of = dict(idx.exact_search(q, 10**6))
        assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
        assert all(s == exact_of[d] for d, s in got)
        recalls.append(_recall_at(got, want))
    assert sum(recalls) / len(recalls) >= 0.95


def test_int8_copies_use_the_whole_range():
    v = np.array([[0.05, -0.02, 0.01], [0.0, 0.0, 0.0]], dtype=np.float32)
    got = dense_mod._graph_rows(v, "i8")
    assert got.dtype == np.int8 and got[0].tolist() == [127, -51, 25] and got[1].tolist() == [0, 0, 0]
    assert dense_mod._graph_rows(v, "f16").dtype == np.float32  # usearch casts f16 itself


@pytest.fixture(scope="module")
def subset_rows(hotpot_chunks):
    """Rows of every other document of the hotpot chunks: a tier inside a store over the pool."""
    ids, _, _ = hotpot_chunks
    keep = np.unique(ids)[::2]
    return np.flatnonzero(np.isin(ids, keep))


def test_a_subset_of_the_store_equals_an_index_of_its_rows_alone(tmp_path, hotpot_dense, hotpot_exact, hotpot_chunks, subset_rows):
    ids, vectors, qvecs = hotpot_chunks
    DenseIndex.build(tmp_path / "alone", ids[subset_rows], vectors[subset_rows])
    alone = DenseIndex.open(tmp_path / "alone")
    for store in (hotpot_exact, hotpot_dense):  # with and without a graph
        sub = DenseIndex.open(store.path, rows=subset_rows)
        assert sub.num_chunks == len(subset_rows) and sub.num_docs == alone.num_docs
        np.testing.assert_array_equal(sub.vectors(), vectors[subset_rows])
        for k in (1, 10, 100, 10**6):
            assert sub.search_many(qvecs, k) == alone.search_many(qvecs, k)
            assert [sub.search(q, k) for q in qvecs[:10]] == [alone.exact_search(q, k) for q in qvecs[:10]]


def test_the_store_graph_searched_with_a_tier_filter(hotpot_dense, hotpot_chunks, subset_rows):
    """Above exact_max_chunks a subset searches the store's graph, keeps its own rows
    (over-fetching in proportion) and re-scores exactly: only its docs, the exact top-k
    (candidates from every int8 copy, as in the test above)."""
    ids, _, qvecs = hotpot_chunks
    store = DenseIndex.open(hotpot_dense.path, exact_max_chunks=0)
    sub = store.subset(subset_rows)
    assert sub.search_path() == "hnsw"
    hnsw = _int8_brute_force(store._index)
    sub._index = _IndexProxy(store._index, hnsw)
    mine = set(ids[subset_rows].tolist())
    for q in qvecs:
        got = sub.search(q, 10)
        assert {d for d, _ in got} <= mine
        assert got == sub.exact_search(q, 10)
    assert hnsw.calls >= len(qvecs)
    with pytest.raises(ValueError, match="sorted"):
        store.subset(subset_rows[::-1])


def test_an_index_built_before_graph_settings_still_loads(tmp_path, hotpot_chunks):
    """An f32 graph without vectors.npy or graph_* settings (the previous format) opens and
    searches: vectors read back from the graph, candidates re-scored from them."""
    from usearch.index import Index

    ids, vectors, qvecs = hotpot_chunks
    path = tmp_path / "old"
    path.mkdir()
    old = Index(ndim=vectors.shape[1], metric="cos", dtype="f32", connectivity=16, expansion_add=128)
    old.add(np.arange(len(ids), dtype=np.uint64), vectors, threads=1)  # one thread: every node reachable
    old.save(str(path / "vectors.usearch"))
    np.save(path / "chunk_doc_ids.npy", ids)
    (path / "dense.json").write_text(json.dumps({"dims": vectors.shape[1], "num_chunks": len(ids), "num_docs": len(np.unique(ids)),
                                                 "metric": "cos", "dtype": "f32", "index": "hnsw", "connectivity": 16,
                                                 "expansion_add": 128}))
    idx = DenseIndex.open(path, exact_max_chunks=0)
    assert idx.graph.dtype == "f32" and idx.search_path() == "hnsw"
    np.testing.assert_array_equal(idx.vectors(), vectors)
    recall = np.mean([len({d for d, _ in idx.search(q, 10)} & {d for d, _ in idx.exact_search(q, 10)}) / 10 for q in qvecs])
    assert recall >= 0.99
