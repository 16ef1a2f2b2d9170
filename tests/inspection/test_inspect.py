from pathlib import Path

from support.tui import first_near_miss_case
from workbench.inspection.rankings import GOLD, HARD_NEGATIVE, NEAR_MISS_MIN_OVERLAP, OTHER, inspect_query, stored_rankings
from workbench.project.files import Project
from workbench.records import Document, Hit, Query, Tier



def _tiny() -> tuple[Project, Tier, Query]:
    docs = {
        1: Document(1, "Eiffel Tower", "Completed in 1889 by Gustave Eiffel in Paris."),
        2: Document(2, "Gustave Eiffel", "French engineer born in 1832 in Dijon."),
        3: Document(3, "Eiffel Tower replica", "Completed in 1964 in Tokyo, a copy of the Eiffel Tower."),
        4: Document(4, "Bananas", "A fruit."),
    }
    q = Query("q1", "When was the tower by the engineer born in Dijon completed?", "1889", [1, 2], [3])
    p = Project(root=Path("/nonexistent"), config=None, documents=docs, queries=[q])  # type: ignore[arg-type]
    tier = Tier("full", "full", 0, 0, [1, 2, 3, 4], ["q1"], [])
    return p, tier, q


def test_rows_kinds_gold_ranks_and_near_misses():
    p, tier, q = _tiny()
    rankings = {
        "dense": [Hit(3, 0.9), Hit(1, 0.8), Hit(4, 0.1)],  # gold 2 never retrieved
        "bm25": [Hit(1, 5.0), Hit(2, 4.0), Hit(3, 1.0)],
        "model:local:localize": [],
    }
    ins = inspect_query(p, tier, q, rankings, k=2)
    assert [s.system for s in ins.systems] == ["bm25", "dense", "model:local:localize"]  # retrievers first
    dense = ins.system("dense")
    assert [(r.rank, r.doc_id, r.kind) for r in dense.rows] == [(1, 3, HARD_NEGATIVE), (2, 1, GOLD)]
    assert dense.gold_ranks == {1: 2, 2: None}
    assert ins.system("bm25").gold_ranks == {1: 1, 2: 2}
    assert ins.system("bm25").all_gold_in_top_k and not dense.all_gold_in_top_k
    assert ins.system("model:local:localize").gold_ranks == {1: None, 2: None}
    # bm25 ranks no distractor above gold; dense ranks the replica above both gold documents
    assert len(ins.near_misses) == 1
    m = ins.near_misses[0]
    assert (m.doc_id, m.kind, m.ranks, m.above_gold, m.imitates) == (3, HARD_NEGATIVE, {"dense": 1}, [1, 2], 1)
    assert m.similarity > 0


def test_other_distractor_below_top_k_is_not_a_near_miss():
    p, tier, q = _tiny()
    p.documents[5] = Document(5, "Eiffel Tower lift", "Completed in 1899 by Gustave Eiffel in Paris for the tower.")
    ins = inspect_query(p, tier, q, {"bm25": [Hit(5, 3.0), Hit(1, 2.0), Hit(2, 1.0), Hit(3, 0.5)]}, k=3)
    assert [(m.doc_id, m.kind, m.above_gold) for m in ins.near_misses] == [(5, OTHER, [1, 2])]
    assert [r.doc_id for r in ins.system("bm25").rows] == [5, 1, 2]  # top K only


def test_an_unrelated_document_above_gold_is_not_a_near_miss():
    # issue 10: documents sharing 12% of their words were listed as near misses; a floor keeps
    # only look-alikes (verified hard negatives are near misses whatever their overlap)
    p, tier, q = _tiny()
    ins = inspect_query(p, tier, q, {"bm25": [Hit(4, 3.0), Hit(3, 2.5), Hit(1, 2.0), Hit(2, 1.0)]}, k=3)
    assert [(m.doc_id, m.kind) for m in ins.near_misses] == [(3, HARD_NEGATIVE)]
    assert all(m.similarity >= NEAR_MISS_MIN_OVERLAP or m.kind == HARD_NEGATIVE for m in ins.near_misses)


def test_stored_rankings_on_a_real_project(evaluated):
    p, q, tier, ins = first_near_miss_case(evaluated)
    stored = stored_rankings(p, tier, q.query_id)
    assert {"bm25", "dense", "hybrid"} <= set(stored)
    for sr in ins.systems:
        assert set(sr.gold_ranks) == set(q.gold_doc_ids)
        assert len(sr.rows) <= ins.k
        for r in sr.rows:
            assert r.title == p.documents[r.doc_id].title
            assert r.kind == (GOLD if r.doc_id in q.gold_doc_ids else HARD_NEGATIVE if r.doc_id in q.hard_negative_ids else OTHER)
    for m in ins.near_misses:
        assert m.doc_id not in q.gold_doc_ids and m.imitates in q.gold_doc_ids
        for system, rank in m.ranks.items():
            gr = ins.system(system).gold_ranks
            assert any(r is None or r > rank for r in gr.values())
