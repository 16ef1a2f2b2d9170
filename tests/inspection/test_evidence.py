import json

from support.tui import first_near_miss_case
from workbench.inspection.evidence import ModelEvidence, evidence_dict, evidence_markdown, write_evidence
from workbench.inspection.rankings import inspect_stored
from workbench.access.ladder import load_tiers



def test_evidence_markdown_and_json(evaluated, tmp_path):
    p, q, tier, _ = first_near_miss_case(evaluated)
    tiers = [t for t in load_tiers(p).tiers if q.query_id in t.query_ids]
    inspections = [inspect_stored(p, t, q) for t in tiers]
    models = [
        ModelEvidence(system="model:local:qa", tier=tier.name, task="qa", prompt_tokens=900, budget_tokens=7372,
                      answer="a spirit", judge_score=4.0, judge_scores=[4], judge_reason="4 close enough"),
        ModelEvidence(system="model:local:localize", tier=tier.name, task="localize", fits=False,
                      prompt_tokens=90000, budget_tokens=7372, note="too big"),
    ]
    doc = evidence_dict(p, q, inspections, models)
    md_path, json_path = write_evidence(tmp_path, doc)
    data = json.loads(json_path.read_text())
    assert data["query"]["query_id"] == q.query_id
    assert [t["tier"] for t in data["tiers"]] == [t.name for t in tiers]
    t = next(t for t in data["tiers"] if t["tier"] == tier.name)
    assert set(t["systems"]) >= {"bm25", "dense", "hybrid"}
    assert set(t["systems"]["bm25"]["gold_ranks"]) == {str(g) for g in q.gold_doc_ids}
    nm = t["near_misses"][0]
    assert nm["imitates"] in q.gold_doc_ids and "distractor_only" in nm["diff"]
    assert data["models"][0]["judge_score"] == 4.0
    md = md_path.read_text()
    assert q.query in md and f"Tier `{tier.name}`" in md
    assert "Near misses" in md and "imitates gold" in md
    assert "judge: 4/5" in md and "does not fit" in md
    assert md == evidence_markdown(doc)
