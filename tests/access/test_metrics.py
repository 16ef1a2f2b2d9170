"""Access metrics: hand-worked cases, and a cross-check against trec_eval (ir_measures) on real runs."""

from __future__ import annotations

import math

import pytest

from workbench.access.metrics import query_access, summarize


def test_single_source_hand_worked():
    q = query_access("q", [5, 3, 9], [3], k=2)
    assert q.r_at_1 == 0.0 and q.fr_at_k is None
    assert q.sr_at_k == 1.0 and q.mrr_at_k == 0.5
    assert q.ndcg_at_10 == pytest.approx(1 / math.log2(3))
    assert q.gold_ranks == {3: 2}
    assert query_access("q", [3, 5], [3], k=1).r_at_1 == 1.0


def test_multi_source_full_recall_needs_every_gold_doc():
    partial = query_access("q", [1, 7, 8, 2], [1, 2], k=3)
    assert partial.r_at_1 is None
    assert partial.sr_at_k == 0.5 and partial.fr_at_k == 0.0
    assert partial.gold_ranks == {1: 1, 2: 4}  # ranks beyond K are kept
    full = query_access("q", [1, 7, 2], [1, 2], k=3)
    assert full.fr_at_k == 1.0 and full.sr_at_k == 1.0


def test_duplicates_count_once_and_empty_output_scores_zero():
    q = query_access("q", [4, 4, 4, 1], [1], k=2)
    assert q.sr_at_k == 1.0 and q.gold_ranks == {1: 2}
    empty = query_access("q", [], [1, 2], k=10)
    assert empty.sr_at_k == 0.0 and empty.fr_at_k == 0.0 and empty.mrr_at_k == 0.0
    assert empty.gold_ranks == {1: None, 2: None}


def test_summary_splits_single_and_multi():
    per_query = [
        query_access("s1", [1], [1], 10),
        query_access("s2", [9, 2], [2], 10),
        query_access("m1", [3, 4], [3, 4], 10),
        query_access("m2", [5, 9], [5, 6], 10),
    ]
    s = summarize(per_query, 10)
    assert (s.n_queries, s.n_single, s.n_multi) == (4, 2, 2)
    assert s.r_at_1 == 0.5
    assert s.fr_at_k == 0.5
    assert s.sr_at_k == pytest.approx((1 + 1 + 1 + 0.5) / 4)
    assert s.multi_gap == pytest.approx(0.75 - 0.5)


def test_cross_check_against_ir_measures(evaluated):
    """The field's reference implementation (trec_eval via ir_measures) agrees on real runs.
    (ir_measures rather than ranx: ranx compiles with numba for minutes on its first call.)"""
    import ir_measures
    from ir_measures import RR, R, nDCG

    from workbench.access.evaluate import evaluate
    from workbench.access.ladder import load_tiers
    from workbench.project.load import load_project
    from workbench.access.retrievers import make_retrievers
    from workbench.access.runs import RunStore

    project = load_project(evaluated)  # its runs are stored already: evaluate reuses them, writes nothing
    full = [t for t in load_tiers(project).tiers if t.name == "full"]
    results = evaluate(project, full, make_retrievers(project, ["bm25", "dense"]), k=10, include_models=False)
    assert {r.system for r in results} == {"bm25", "dense"} and all(r.reused for r in results)
    store = RunStore(project)
    qrels = [ir_measures.Qrel(q.query_id, str(g), 1) for q in project.queries for g in q.gold_doc_ids]
    for result in results:
        run = store.load(result.system, "full")
        # rank-derived scores: trec_eval breaks score ties its own way; the ranking is what is scored
        scored = [ir_measures.ScoredDoc(r.query_id, str(h.doc_id), float(len(r.hits) - i))
                  for r in run.rankings for i, h in enumerate(r.hits)]
        ref = ir_measures.calc_aggregate([R @ 10, RR @ 10, nDCG @ 10], qrels, scored)
        assert result.summary.n_queries == len(project.queries)
        assert result.summary.sr_at_k == pytest.approx(ref[R @ 10], abs=1e-9)
        assert result.summary.mrr_at_k == pytest.approx(ref[RR @ 10], abs=1e-9)
        assert result.summary.ndcg_at_10 == pytest.approx(ref[nDCG @ 10], abs=1e-9)
