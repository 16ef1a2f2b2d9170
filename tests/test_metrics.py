"""Access metrics: hand-worked cases, and a cross-check against ranx on real runs."""

from __future__ import annotations

import math

import pytest

from workbench.metrics import query_access, summarize


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
        query_access("s1", [1], [1]),
        query_access("s2", [9, 2], [2]),
        query_access("m1", [3, 4], [3, 4]),
        query_access("m2", [5, 9], [5, 6]),
    ]
    s = summarize(per_query, 10)
    assert (s.n_queries, s.n_single, s.n_multi) == (4, 2, 2)
    assert s.r_at_1 == 0.5
    assert s.fr_at_k == 0.5
    assert s.sr_at_k == pytest.approx((1 + 1 + 1 + 0.5) / 4)
    assert s.multi_gap == pytest.approx(0.75 - 0.5)


def test_cross_check_against_ranx(evaluated):
    from ranx import Qrels, Run, evaluate as ranx_evaluate

    from workbench.evaluate import evaluate
    from workbench.ladder import load_tiers
    from workbench.project import load_project
    from workbench.retrievers import make_retrievers

    project = load_project(evaluated)  # its runs are stored already: evaluate reuses them, writes nothing
    full = [t for t in load_tiers(project).tiers if t.name == "full"]
    results = evaluate(project, full, make_retrievers(project, ["bm25", "dense"]), k=10, include_models=False)
    from workbench.runs import RunStore

    store = RunStore(project)
    qrels = Qrels({q.query_id: {str(g): 1 for g in q.gold_doc_ids} for q in project.queries})
    for result in results:
        run = store.load(result.system, "full")
        ranx_run = Run({r.query_id: {str(h.doc_id): h.score for h in r.hits} for r in run.rankings})
        ref = ranx_evaluate(qrels, ranx_run, ["recall@10", "mrr@10", "ndcg@10"])
        assert result.summary.sr_at_k == pytest.approx(ref["recall@10"], abs=1e-9)
        assert result.summary.mrr_at_k == pytest.approx(ref["mrr@10"], abs=1e-9)
        assert result.summary.ndcg_at_10 == pytest.approx(ref["ndcg@10"], abs=1e-9)
