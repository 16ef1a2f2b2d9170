"""`workbench explain` on the sample corpus (real Tantivy and USearch indexes, the real embedder):
for 20 (query, gold, stealer) triples, the BM25 terms' shares add up to the stored BM25 score, the
dense best chunk's cosine is the stored dense score, and the fusion's parts add up to the stored
hybrid score."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from workbench.access.ladder import load_tiers
from workbench.access.runs import RunStore
from workbench.cli import main
from workbench.inspection.explain import explain
from workbench.project.load import load_project
from workbench.project.settings import access_k


def _stored(project, tier) -> dict[str, dict[str, dict[int, float]]]:
    """system → query → doc → stored score, straight from the run store."""
    return {r.system: {x.query_id: {h.doc_id: h.score for h in x.hits} for x in r.rankings} for r in RunStore(project).runs(tier)}


def _triples(project, tier, k: int, n: int) -> list[tuple[str, int, int]]:
    """(query, gold, stealer): a document ranked above an outranked gold in hybrid's top K."""
    hybrid = next(r for r in RunStore(project).runs(tier) if r.system == "hybrid")
    out = []
    for ranked in hybrid.rankings:
        q = project.query(ranked.query_id)
        ids = [h.doc_id for h in ranked.hits]
        for g in sorted(q.gold_doc_ids):
            rank = ids.index(g) + 1 if g in ids else None
            if rank is None or rank > 1:
                stealer = next(d for d in ids[:k] if d not in q.gold_doc_ids)
                out.append((q.query_id, g, stealer))
                break
        if len(out) == n:
            break
    return out


def test_explain_adds_up_to_the_stored_scores(sample_project):
    p = load_project(sample_project)
    tier = next(t for t in load_tiers(p).tiers if t.name == "full")
    k = access_k(p)
    stored = _stored(p, tier)
    triples = _triples(p, tier, k, 20)
    assert len(triples) == 20
    rrf_k = p.config.retrievers.rrf_k
    checked = {"bm25": 0, "dense": 0, "hybrid": 0}
    for qid, gold, stealer in triples:
        e = explain(p, tier, p.query(qid), [gold, stealer], k)
        assert [d.doc_id for d in e.docs] == [gold, stealer] and e.docs[0].role == "gold"
        for d in e.docs:
            bm25 = stored["bm25"][qid].get(d.doc_id)
            assert d.bm25 is not None
            assert abs(sum(t.score for t in d.bm25.terms) - d.bm25.score) < 1e-3
            assert set(e.terms) == {t.term for t in d.bm25.terms} | set(d.bm25.unmatched)
            for t in d.bm25.terms:  # each share is Tantivy's BM25 of its own parts
                assert t.score == pytest.approx(2.2 * t.idf * t.tf_norm, rel=1e-4)
                assert t.tf_norm == pytest.approx(t.tf / (t.tf + 1.2 * (1 - 0.75 + 0.75 * t.doc_len / t.avg_len)), rel=1e-4)
            if bm25 is not None:
                assert abs(sum(t.score for t in d.bm25.terms) - bm25) < 1e-3
                checked["bm25"] += 1
            cos = stored["dense"][qid].get(d.doc_id)
            assert d.dense is not None and d.dense.score == max(d.dense.chunk_scores)
            if cos is not None:
                assert d.dense.score == pytest.approx(cos, abs=1e-6)
                checked["dense"] += 1
            fused = stored["hybrid"][qid].get(d.doc_id)
            assert d.fusion is not None
            ranks = {x.retriever: x.rank for x in d.fusion.parts}
            assert d.fusion.score == pytest.approx(sum(1 / (rrf_k + r) for r in ranks.values() if r is not None))
            if fused is not None:
                assert d.fusion.score == pytest.approx(fused, abs=1e-9)
                checked["hybrid"] += 1
        [c] = e.contrasts
        assert c.doc_id == stealer and c.against == gold and c.line
    assert min(checked.values()) >= 20  # every stealer (in the top K) and most golds have a stored score to meet


def test_explain_command_json_and_errors(sample_project):
    p = load_project(sample_project)
    q = p.query("hr-07")
    gold = sorted(q.gold_doc_ids)
    runner = CliRunner()
    result = runner.invoke(main, ["explain", str(sample_project), "hr-07", *map(str, gold), "--tier", "full", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert [d["doc_id"] for d in doc["docs"]] == gold and doc["tier"] == "full" and doc["system"] == "hybrid"
    assert doc["contrasts"][0]["against"] == gold[0]
    bad = runner.invoke(main, ["explain", str(sample_project), "hr-07", "999999999", "--tier", "full"])
    assert bad.exit_code == 2 and "999999999" in bad.output
    assert "not in the corpus" in bad.output
