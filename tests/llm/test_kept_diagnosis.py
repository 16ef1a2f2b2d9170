"""After add-query, `diagnose --json` differs only where the new query reaches (issue 29): every
other query's verdicts, stored rankings and stored model answers are what they were."""

import json

from click.testing import CliRunner
from support.llm_project import fault_server  # noqa: F401  (fixture)

from workbench.access.ladder import ensure_tiers
from workbench.access.runs import RunStore
from workbench.cli import main
from workbench.llm.client import ChatClient
from workbench.llm.store import LLMRunStore
from workbench.llm.tasks import TaskOptions, run_tier
from workbench.project.load import load_project
from workbench.records import ModelConfig
from workbench.triage.queries import add_query


def _diagnosis(root) -> dict:
    r = CliRunner().invoke(main, ["diagnose", str(root), "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def _verdicts(doc: dict, skip: str = "") -> dict:
    return {(v["query_id"], v["tier"], v["system"]): v for v in doc["verdicts"] if v["query_id"] != skip}


async def test_add_query_changes_the_diagnosis_only_where_it_reaches(evaluated_copy, fault_server):  # noqa: F811
    fault_server.responder = lambda m: "Score: 5" if "Gold answer:" in m[-1]["content"] else "an answer"
    p = load_project(evaluated_copy)
    tiers = ensure_tiers(p).tiers
    q = tiers[0].query_ids[0]
    cfg = ModelConfig(model="fault", base_url=fault_server.base_url, timeout_s=5, max_retries=1)
    client = ChatClient("fake", cfg, fault_server.base_url, cache=None, backoff_base_s=0.01)
    async with client:
        oracle = await run_tier(p, tiers[0], "fake", client, TaskOptions("oracle", judge_samples=1, query_ids=(q,)),
                                judge_client=client)
    before = _diagnosis(evaluated_copy)
    added = add_query(evaluated_copy, "Which river runs through the capital named in the first document?", answer="none")
    r = CliRunner().invoke(main, ["eval", str(evaluated_copy)])
    assert r.exit_code == 0, r.output
    after = _diagnosis(evaluated_copy)
    assert _verdicts(after, added.query_id) == _verdicts(before)
    p2 = load_project(evaluated_copy)
    full = [t for t in ensure_tiers(p2).tiers if t.name == "full"][0]
    assert RunStore(p2).load("bm25", "full").ranking(added.query_id)  # unlabelled: ranked, no verdict
    assert added.query_id in full.query_ids
    for tier in (t for t in ensure_tiers(p2).tiers if q in t.query_ids):
        (run,) = [r for r in LLMRunStore(p2).runs(tier) if r.system == "model:fake:oracle"]
        assert run.qa == oracle.qa  # the oracle answer stays, and serves every tier holding the query


def test_a_label_changes_the_diagnosis_only_for_its_query(evaluated_copy):
    from workbench.project.labels import label

    p = load_project(evaluated_copy)
    tier = ensure_tiers(p).tiers[0]
    q = tier.query_ids[1]
    doc = next(d for d in tier.doc_ids if d not in p.query(q).gold_doc_ids and d not in p.query(q).hard_negative_ids)
    before = _diagnosis(evaluated_copy)
    info = label(p, q, doc, "hard_negative", by="test")
    assert info is not None
    r = CliRunner().invoke(main, ["diagnose", str(evaluated_copy), "--json", "--queries-version", info.name])
    assert r.exit_code == 0, r.output
    # the same verdicts; only the suggested commands name the version they were read under
    after = json.loads(r.output.replace(f" --queries-version {info.name}", ""))
    assert _verdicts(after, q) == _verdicts(before, q)
