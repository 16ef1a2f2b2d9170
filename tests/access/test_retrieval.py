"""Retrievers search within one tier exactly as an index built on that tier alone would."""

from __future__ import annotations

import msgspec
import pytest

from index import ReferenceBM25
from workbench.access.evaluate import evaluate
from workbench.access.indexing import StaleIndexError, index_status
from workbench.access.ladder import build_ladder, load_tiers
from workbench.project.load import load_project
from workbench.records import Hit
from workbench.access.retrievers import make_retrievers, rrf_fuse


@pytest.fixture(scope="module")
def project(built_project):
    return load_project(built_project)


@pytest.fixture(scope="module")
def tiers(project):
    return {t.name: t for t in load_tiers(project).tiers}


def test_bm25_on_a_tier_equals_bm25_over_that_tier_alone(project, tiers):
    """Statistics included: an independent pure-Python BM25 fed only the tier's documents
    ranks like the tier's index, while the same document scores differently in the full pool."""
    bm25 = make_retrievers(project, ["bm25"])["bm25"]
    tier, full = tiers["base:bridge"], tiers["full"]
    reference = ReferenceBM25([(i, project.documents[i].title, project.documents[i].text) for i in tier.doc_ids])
    differs = 0
    for qid in tier.query_ids[:10]:
        text = project.query(qid).query
        ours = bm25.search(tier, text, 10)
        ref = reference.search(text, 10)
        assert [h.doc_id for h in ours] == [d for d, _ in ref]
        assert [h.score for h in ours] == pytest.approx([s for _, s in ref], rel=1e-3)
        assert set(h.doc_id for h in ours) <= set(tier.doc_ids)
        in_full = {h.doc_id: h.score for h in bm25.search(full, text, len(full.doc_ids))}
        differs += any(abs(in_full[h.doc_id] - h.score) > 1e-4 for h in ours)
    assert differs >= 8  # idf and average length come from the tier, not the pool


def test_dense_searches_only_the_tier(project, tiers):
    dense = make_retrievers(project, ["dense"])["dense"]
    tier = tiers["base:comparison"]
    for qid in tier.query_ids[:5]:
        hits = dense.search(tier, project.query(qid).query, 20)
        assert len(hits) == 20 and len({h.doc_id for h in hits}) == 20
        assert {h.doc_id for h in hits} <= set(tier.doc_ids)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_rrf_hand_worked():
    a = [Hit(1, 9.0), Hit(2, 8.0), Hit(3, 7.0)]
    b = [Hit(3, 0.9), Hit(1, 0.8)]
    fused = rrf_fuse([a, b], rrf_k=60, depth=3)
    assert [h.doc_id for h in fused] == [1, 3, 2]
    assert fused[0].score == pytest.approx(1 / 61 + 1 / 62)
    assert fused[1].score == pytest.approx(1 / 63 + 1 / 61)


def test_rerun_with_nothing_changed_recomputes_nothing(project_copy):
    project = load_project(project_copy)
    tiers = load_tiers(project).tiers[:2]
    first = evaluate(project, tiers, make_retrievers(project, ["bm25", "hybrid"]), include_models=False)
    again = evaluate(project, tiers, make_retrievers(project, ["bm25", "hybrid"]), include_models=False)
    assert all(r.reused for r in again)
    assert [msgspec.to_builtins(r.summary) for r in first] == [msgspec.to_builtins(r.summary) for r in again]
    toml = project_copy / "workbench.toml"
    toml.write_text(toml.read_text() + "\n[retrievers]\nrrf_k = 10\n")
    changed = evaluate(load_project(project_copy), tiers, make_retrievers(load_project(project_copy), ["bm25", "hybrid"]), include_models=False)
    assert {r.system: r.reused for r in changed if r.tier == tiers[0].name} == {"bm25": True, "hybrid": False}


def test_changed_corpus_makes_indexes_stale(project_copy):
    docs = project_copy / "documents.jsonl"
    lines = docs.read_text().splitlines(keepends=True)
    docs.write_text("".join(lines[:-1]) + lines[-1].replace('"text":"', '"text":"edited ', 1))
    project = load_project(project_copy)
    tier = build_ladder(project).tiers[0]
    assert index_status(project, tier) == {"sparse": "stale", "dense": "stale"}
    with pytest.raises(StaleIndexError, match="workbench index"):
        make_retrievers(project, ["bm25"])["bm25"].search(tier, "anything", 5)


def test_interrupted_rebuild_leaves_the_previous_index_usable(project_copy):
    from workbench.access.indexing import build_sparse, sparse_dir

    project = load_project(project_copy)
    tier = load_tiers(project).tiers[0]
    before = make_retrievers(project, ["bm25"])["bm25"].search(tier, project.query(tier.query_ids[0]).query, 10)

    def interrupt(stage, done, total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_sparse(project, tier, progress=interrupt)
    assert index_status(project, tier)["sparse"] == "ok"
    assert [p.name for p in sparse_dir(project, tier).parent.iterdir() if p.name.startswith(".")] == []
    after = make_retrievers(project, ["bm25"])["bm25"].search(tier, project.query(tier.query_ids[0]).query, 10)
    assert after == before


def test_a_build_reports_indexes_usable_sparse_first_then_dense_smallest_tier_first(project_copy):
    """What the TUI's background build relies on: each report comes once its indexes load, and
    evaluating in between scores exactly the systems whose indexes are built."""
    import shutil

    from workbench.access.indexing import build_indexes

    project = load_project(project_copy)
    tiers = load_tiers(project).tiers
    shutil.rmtree(project.state_dir / "index")
    events: list[tuple[str, list[str], set[tuple[str, str]]]] = []

    def ready(kind, names):
        shown = evaluate(project, tiers, make_retrievers(project), built_only=True)
        events.append((kind, names, {(r.system, r.tier) for r in shown}))
        assert all(index_status(project, t)[kind] == "ok" for t in tiers if t.name in names)

    build_indexes(project, tiers, ready=ready)
    kind, names, shown = events[0]
    assert kind == "sparse" and sorted(names) == sorted(t.name for t in tiers)
    assert shown == {("bm25", t.name) for t in tiers}
    dense_order = [names for kind, names, _ in events[1:]]
    assert [k for k, _, _ in events[1:]] == ["dense"] * len(tiers) and all(len(n) == 1 for n in dense_order)
    sizes = {t.name: len(t.doc_ids) for t in tiers}
    assert [sizes[n[0]] for n in dense_order] == sorted(sizes.values())
    for i, (_, names, shown) in enumerate(events[1:], 1):
        done = {n for _, ns, _ in events[1:i + 1] for n in ns}
        assert {t for s, t in shown if s == "dense"} == done == {t for s, t in shown if s == "hybrid"}


@pytest.mark.parametrize("name", ["bm25", "dense", "hybrid"])
def test_batched_search_equals_per_query_search(project, tiers, name):
    """Evaluation ranks a tier's queries in one search_many call (dense: one matrix product per
    block of queries); the rankings and scores are those of per-query search, hit for hit."""
    retriever = make_retrievers(project, [name])[name]
    for tier in (tiers["base:bridge"], tiers["full"]):
        texts = [project.query(q).query for q in tier.query_ids]
        assert retriever.search_many(tier, texts, 100) == [retriever.search(tier, t, 100) for t in texts]


def test_dense_manifest_says_which_path_runs(project, tiers):
    from workbench.access.indexing import dense_dir, read_manifest

    for tier in tiers.values():  # every tier of this project is far below hnsw_min_chunks
        manifest = read_manifest(dense_dir(project, tier))
        assert manifest.index == "exact" and manifest.search == "single exact, eval batched-exact"
        assert manifest.hnsw_min_chunks == project.config.retrievers.hnsw_min_chunks
        assert not (dense_dir(project, tier) / "vectors.usearch").exists()
