"""The rerank stage through sentence-transformers' own CrossEncoder: the reranked order is the
model's scores, the run is stored beside the others and scored by the same metrics code, the
score cache lets a bigger tier reuse a smaller one's pairs, and a cancelled rerank resumes."""

from __future__ import annotations

import pytest

from workbench.access.evaluate import evaluate
from workbench.rerank.systems import stored_runs
from workbench.access.ladder import load_tiers
from workbench.access.retrievers import make_retrievers
from workbench.access.runs import RunStore
from workbench.progress import Cancelled
from workbench.project.load import load_project
from workbench.rerank.cache import ScoreCache, document_text
from workbench.rerank.run import rerank

SYSTEM = "bm25>rerank:ce@4"


def _tiers(root):
    project = load_project(root)
    tiers = load_tiers(project).tiers
    return project, [t for t in tiers if t.kind == "base"], next(t for t in tiers if t.name == "full")


def test_the_top_depth_is_sorted_by_the_cross_encoders_own_scores(rerank_project, cross_encoder):
    from sentence_transformers import CrossEncoder

    project, _, full = _tiers(rerank_project)
    stats = rerank(project, [full], [SYSTEM], k=3)
    run = RunStore(project).load(SYSTEM, "full")
    base = RunStore(project).load("bm25", "full")
    assert run is not None and base is not None and stats.runs == [run]
    model = CrossEncoder(str(cross_encoder), device="cpu")
    for r in run.rankings:
        before = [h.doc_id for h in base.hits(r.query_id)]
        after = [h.doc_id for h in r.hits]
        assert sorted(after) == sorted(before), "reranking keeps the same documents"
        assert after[4:] == before[4:], "below the depth the base order is kept"
        query = project.query(r.query_id).query
        expected = model.predict([(query, document_text(project.documents[d])) for d in before[:4]])
        want = dict(zip(before[:4], (float(s) for s in expected)))
        assert [h.score for h in r.hits[:4]] == pytest.approx([want[d] for d in after[:4]], abs=1e-5)
        assert [h.score for h in r.hits[:4]] == sorted((h.score for h in r.hits[:4]), reverse=True)
        assert all(h.score < r.hits[3].score for h in r.hits[4:]), "TREC tools sort by score: the order holds"
    assert stats.scored == sum(min(4, len(r.hits)) for r in run.rankings)


def test_eval_lists_the_reranked_system_and_a_bigger_tier_reuses_scores(rerank_project):
    project, bases, full = _tiers(rerank_project)
    small = rerank(project, bases, [SYSTEM], k=3)
    assert small.scored > 0 and small.cached == 0
    big = rerank(project, [full], [SYSTEM], k=3)
    assert big.cached > 0, "pairs scored on the base tiers are read from the cache"
    assert big.scored + big.cached == sum(min(4, len(r.hits)) for r in big.runs[0].rankings)
    again = rerank(project, [full], [SYSTEM], k=3)
    assert again.reused_runs == 1 and again.scored == 0
    results = evaluate(project, [full], make_retrievers(project, ["bm25"]), k=3, stored=stored_runs)
    systems = {r.system for r in results}
    assert SYSTEM in systems and "bm25" in systems
    mine = next(r for r in results if r.system == SYSTEM)
    assert mine.summary.n_queries == len(project.queries)


def test_a_rebuilt_base_makes_the_reranked_run_stale(rerank_project):
    project, _, full = _tiers(rerank_project)
    rerank(project, [full], [SYSTEM], k=3)
    store = RunStore(project)
    base = store.load("bm25", "full")
    import msgspec

    store.save(msgspec.structs.replace(base, key="another-index"))
    results = evaluate(project, [full], {}, k=3, stored=stored_runs)
    assert SYSTEM not in {r.system for r in results}, "its base changed: not listed until reranked again"


def test_a_cancelled_rerank_stores_no_run_and_resumes_from_the_cache(rerank_project):
    project, _, full = _tiers(rerank_project)
    calls = []

    def cancel_after_two(stage, done, total):
        calls.append(done)
        if done == 2:
            raise Cancelled()

    with pytest.raises(Cancelled):
        rerank(project, [full], [SYSTEM], k=3, progress=cancel_after_two)
    assert RunStore(project).load(SYSTEM, "full") is None, "nothing half-written"
    cache = ScoreCache.for_state_dir(project.state_dir)
    kept = len(cache)
    cache.close()
    assert kept > 0
    resumed = rerank(project, [full], [SYSTEM], k=3)
    assert resumed.cached == kept and resumed.scored > 0
    assert RunStore(project).load(SYSTEM, "full") is not None
