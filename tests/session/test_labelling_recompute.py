"""Issue 29: a label recomputes the figures at the project's K (never a literal one), and only with
the retrievers whose indexes are built (labelling while the dense index builds)."""

from __future__ import annotations

import shutil

from workbench.session import apply_relabelled, evaluate_all, label_document, open_session


def _free_doc(session, query_id: str) -> int:
    """A document of the project that is not yet gold for the query."""
    q = session.project.query(query_id)
    return next(d for d in sorted(session.project.documents) if d not in q.gold_doc_ids and d not in q.hard_negative_ids)


def test_a_label_on_a_k3_project_keeps_k3(evaluated_copy):
    root = evaluated_copy
    toml = root / "workbench.toml"
    toml.write_text(toml.read_text() + "[retrievers]\nk = 3\n")
    session, _ = open_session(root)
    session.set_results(evaluate_all(session))
    q = next(q for q in session.project.queries if q.is_labelled)
    r = label_document(session, q.query_id, _free_doc(session, q.query_id), "gold")
    assert r is not None and r.results
    assert {res.summary.k for res in r.results} == {3}  # was 10: relabel recomputed at a literal K


def test_a_label_while_the_dense_index_is_missing_updates_what_is_built(evaluated_copy):
    root = evaluated_copy
    shutil.rmtree(root / ".workbench" / "index" / "dense")  # the dense side still building
    session, _ = open_session(root)
    q = next(q for q in session.project.queries if q.is_labelled)
    doc = _free_doc(session, q.query_id)
    r = label_document(session, q.query_id, doc, "gold")  # raised "dense index … is missing" before
    assert r is not None
    assert r.version != "original" and doc in r.project.query(q.query_id).gold_doc_ids
    systems = {res.system for res in r.results}
    assert "bm25" in systems and not systems & {"dense", "hybrid"}
    apply_relabelled(session, r)
    assert session.project.queries_version == r.version
    scored = [a for res in r.results if res.system == "bm25" for a in res.per_query if a.query_id == q.query_id]
    assert scored and all(doc in a.gold_ranks for a in scored)  # bm25's figures follow the new gold


def test_the_inspector_reads_the_projects_k(evaluated_copy):
    """A query inspected without a K (the TUI's inspector) is cut at the project's K, not a literal 10."""
    from workbench.access.ladder import load_tiers
    from workbench.inspection.rankings import inspect_stored
    from workbench.project.load import load_project

    root = evaluated_copy
    toml = root / "workbench.toml"
    toml.write_text(toml.read_text() + "[retrievers]\nk = 3\n")
    p = load_project(root)
    tier = load_tiers(p).tiers[0]
    q = p.query(next(qid for qid in p.tier_query_ids(tier) if p.query(qid).is_labelled))
    assert inspect_stored(p, tier, q).k == 3
