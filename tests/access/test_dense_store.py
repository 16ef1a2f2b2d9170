"""One dense store over the pool, per tier a row list into it (workbench/access/indexing.py)."""

from __future__ import annotations

import msgspec
import numpy as np

from index.dense import GRAPH
from workbench.access.indexing import (
    DENSE_FORMAT, MANIFEST, build_indexes, dense_dir, dense_store_dir, index_status, read_manifest, store_id,
)
from workbench.access.ladder import load_tiers
from workbench.access.retrievers import make_retrievers
from workbench.project.load import load_project


def test_tiers_list_rows_of_one_store(built_project):
    project = load_project(built_project)
    tiers = load_tiers(project).tiers
    store = read_manifest(dense_store_dir(project))
    assert store is not None and set(store.files) >= {"vectors.npy", "chunk_doc_ids.npy", "doc_ids.npy"}
    pool_ids = np.load(dense_store_dir(project) / "chunk_doc_ids.npy")
    assert store.n_chunks == len(pool_ids) == read_manifest(dense_dir(project, tiers[-1])).n_chunks  # "full"
    for tier in tiers:
        manifest = read_manifest(dense_dir(project, tier))
        assert set(manifest.files) == {"rows.npy"} and manifest.store == store_id(store)
        rows = np.load(dense_dir(project, tier) / "rows.npy")
        assert set(pool_ids[rows].tolist()) == set(tier.doc_ids) and len(rows) == manifest.n_chunks
    # the vectors are stored once: the tiers' chunks add up to more than the store holds
    assert sum(read_manifest(dense_dir(project, t)).n_chunks for t in tiers) > store.n_chunks


def test_a_graph_over_the_pool_is_recorded_and_changes_no_ranking(project_copy):
    """Above hnsw_min_chunks (0 here) the store gets one graph, the manifests say so with its
    settings, and the tiers' rankings stay those of exact search (small tiers search exactly)."""
    project = load_project(project_copy)
    tiers = load_tiers(project).tiers
    picked = [tiers[0], tiers[-1]]
    texts = [project.query(q).query for q in picked[0].query_ids]
    before = {t.name: make_retrievers(project, ["dense"])["dense"].search_many(t, texts, 50) for t in picked}
    toml = project_copy / "workbench.toml"
    toml.write_text(toml.read_text() + "\n[retrievers]\nhnsw_min_chunks = 0\n")
    project = load_project(project_copy)
    assert {index_status(project, t)["dense"] for t in tiers} == {"stale"}  # built under another setting
    done = build_indexes(project, tiers, kinds=("dense",))
    assert "dense pool" in done["built"]
    store = read_manifest(dense_store_dir(project))
    assert store.index == "ivf" and "ivf_centroids.npy" in store.files and store.graph == GRAPH.as_meta()
    for tier in tiers:
        manifest = read_manifest(dense_dir(project, tier))
        assert manifest.index == "ivf" and manifest.graph == GRAPH.as_meta()
        assert manifest.search == "single exact, eval batched-exact" and manifest.hnsw_min_chunks == 0
    after = make_retrievers(project, ["dense"])["dense"]
    for t in picked:
        assert after.search_many(t, texts, 50) == before[t.name]


def test_an_old_per_tier_dense_index_is_rebuilt_as_rows(project_copy):
    project = load_project(project_copy)
    tier = load_tiers(project).tiers[0]
    folder = dense_dir(project, tier)
    old = read_manifest(folder)
    (folder / MANIFEST).write_bytes(msgspec.json.encode(msgspec.structs.replace(old, format=DENSE_FORMAT - 1, store="")))
    (folder / "vectors.npy").write_bytes(b"an old tier's own vectors")
    assert index_status(project, tier)["dense"] == "stale"
    done = build_indexes(project, [tier], kinds=("dense",))
    assert done["built"] == [f"dense {tier.name}"]  # the store already holds the tier: only its rows
    assert index_status(project, tier)["dense"] == "ok" and not (folder / "vectors.npy").exists()


def test_a_store_rebuilt_over_more_documents_repoints_every_tier(project_copy):
    """A store that lacks a tier's documents is rebuilt over all of them, and every tier's rows
    are listed again; a build of one tier it already holds keeps it (a store never shrinks)."""
    import shutil

    project = load_project(project_copy)
    tiers = sorted(load_tiers(project).tiers, key=lambda t: len(t.doc_ids))
    shutil.rmtree(dense_store_dir(project))
    build_indexes(project, [tiers[0]], kinds=("dense",))  # a store over the smallest tier alone
    assert read_manifest(dense_store_dir(project)).n_docs == len(tiers[0].doc_ids)
    assert index_status(project, tiers[0])["dense"] == "ok" and index_status(project, tiers[-1])["dense"] == "stale"
    done = build_indexes(project, tiers, kinds=("dense",))
    # the smallest tier listed the small store: re-pointed; the others listed a store with the
    # very content rebuilt now (the identity is the files' hashes), so their rows hold again
    assert done["built"] == ["dense pool", f"dense {tiers[0].name}"]
    assert {index_status(project, t)["dense"] for t in tiers} == {"ok"}
    assert read_manifest(dense_store_dir(project)).n_docs == len(set().union(*(t.doc_ids for t in tiers)))
    again = build_indexes(project, [tiers[0]], kinds=("dense",), force=True)
    assert again["built"] == ["dense pool", f"dense {tiers[0].name}"]  # force rebuilds, over every document it held
    assert {index_status(project, t)["dense"] for t in tiers} == {"ok"}
