"""Results kept by what they depend on (issue 29): adding a query or rerunning leaves every other
query's stored answers and rankings in place; an oracle answer serves every tier holding its query;
a result whose prompt changed is dropped and named."""

import msgspec
import pytest
from support.llm_project import tiny_project, fault_server  # noqa: F401  (fixtures)

from workbench.access.ladder import ensure_tiers
from workbench.access.runs import RunStore, SystemRun, query_text_hash, tier_docs_hash, tier_hash
from workbench.llm.client import ChatClient
from workbench.llm.store import LLMRunStore
from workbench.llm.counting import invalidation_note
from workbench.llm.tasks import TaskOptions, run_tier
from workbench.project.load import load_project
from workbench.records import Hit, ModelConfig, RankedList
from workbench.triage.queries import add_query


def _responder(messages):
    text = messages[-1]["content"]
    if "Gold answer:" in text:
        return "Score: 5"
    return "answer to " + text.split("Question:")[-1].strip()[:40]


def _setup(root, server, **cfg_kw):
    p = load_project(root)
    tiers = {t.name: t for t in ensure_tiers(p).tiers}
    cfg = ModelConfig(**{"model": "fault", "base_url": server.base_url, "timeout_s": 5, "max_retries": 1, **cfg_kw})
    # no response cache: a kept result is one the model is not asked for again
    return p, tiers, ChatClient("fake", cfg, server.base_url, cache=None, backoff_base_s=0.01)


async def _run(p, tier, client, task, **kw):
    async with client:
        return await run_tier(p, tier, "fake", client, TaskOptions(task, judge_samples=1, **kw), judge_client=client)


async def test_an_added_query_keeps_every_other_querys_answers(fault_server, tiny_project):  # noqa: F811
    fault_server.responder = _responder
    p, tiers, client = _setup(tiny_project, fault_server)
    before = await _run(p, tiers["shared"], client, "qa")
    assert before.complete and [r.query_id for r in before.qa] == ["q1", "q2", "q3"]
    add_query(tiny_project, "Which city is the capital of Germany?", answer="Berlin", gold=["3"])
    p2, tiers2, client2 = _setup(tiny_project, fault_server)
    shared = tiers2["shared"]
    assert tier_hash(p2, shared) != before.tier_hash  # the old key: every answer would be stale
    assert tier_docs_hash(p2, shared) == before.docs_hash
    # read before any rerun: the stored answers still count
    (stored,) = [r for r in LLMRunStore(p2).runs(shared) if r.system == "model:fake:qa"]
    assert stored.qa == before.qa
    asked = fault_server.chat_requests
    after = await _run(p2, shared, client2, "qa")
    new = [q for q in shared.query_ids if q not in ("q1", "q2", "q3")]
    assert len(new) == 1 and fault_server.chat_requests - asked == 2  # the new query: its answer and its judgement
    assert [r for r in after.qa if r.query_id != new[0]] == before.qa
    assert after.complete and after.invalidated == [] and invalidation_note(after) == ""


async def test_an_oracle_answer_serves_every_tier_holding_its_query(fault_server, tiny_project):  # noqa: F811
    fault_server.responder = _responder
    p, tiers, client = _setup(tiny_project, fault_server)
    holding = [t for t in tiers.values() if "q1" in t.query_ids]
    assert len(holding) > 1
    run = await _run(p, holding[0], client, "oracle", query_ids=("q1",))
    assert [r.query_id for r in run.qa] == ["q1"]
    for tier in holding:
        (oracle,) = [r for r in LLMRunStore(p).runs(tier) if r.system == "model:fake:oracle"]
        assert [r.query_id for r in oracle.qa] == ["q1"] and oracle.qa[0] == run.qa[0]
        assert oracle.tier == tier.name
    for tier in (t for t in tiers.values() if "q1" not in t.query_ids):
        assert not [r for r in LLMRunStore(p).runs(tier) if r.system == "model:fake:oracle"]
    # running the oracle on another tier resumes from that answer: the model is not asked again for q1
    asked = fault_server.chat_requests
    other = await _run(p, holding[1], client, "oracle", query_ids=("q1",))
    assert fault_server.chat_requests == asked and other.qa == run.qa


async def test_a_changed_prompt_drops_only_that_querys_answer_and_says_so(fault_server, tiny_project):  # noqa: F811
    fault_server.responder = _responder
    p, tiers, client = _setup(tiny_project, fault_server)
    tier = tiers["shared"]
    first = await _run(p, tier, client, "qa")
    # q2's stored prompt is not what it would be now (as after its text or context changed)
    store = LLMRunStore(p)
    stored = store.load("model:fake:qa", tier.name)
    store.save(msgspec.structs.replace(stored, qa=[msgspec.structs.replace(r, key="other") if r.query_id == "q2" else r
                                                   for r in stored.qa]))
    asked = fault_server.chat_requests
    again = await _run(p, tier, client, "qa")
    assert fault_server.chat_requests - asked == 2 and again.invalidated == ["q2"]
    assert [r for r in again.qa if r.query_id != "q2"] == [r for r in first.qa if r.query_id != "q2"]
    assert invalidation_note(again) == ("1 stored answer of model:fake:qa on tier shared no longer matched "
                                        "their prompt: rerun (q2)")


async def test_a_run_of_one_query_keeps_the_other_answers_stored_before_results_had_keys(fault_server, tiny_project):  # noqa: F811
    from workbench.llm.tasks import run_key_for, with_project_k

    fault_server.responder = _responder
    p, tiers, client = _setup(tiny_project, fault_server)
    tier = tiers["shared"]
    first = await _run(p, tier, client, "qa")
    # the file as the workbench wrote it before: no per-result keys, the run keyed by the old rule
    opts = with_project_k(TaskOptions("qa", judge_samples=1), p)
    legacy = run_key_for(tier_hash(p, tier), "fake", client.config, opts, (client.name, client.config), "")
    store = LLMRunStore(p)
    store.save(msgspec.structs.replace(first, key=legacy, docs_hash="",
                                       qa=[msgspec.structs.replace(r, key="", judge_key="") for r in first.qa]))
    asked = fault_server.chat_requests
    again = await _run(p, tier, client, "qa", query_ids=("q2",))
    assert fault_server.chat_requests == asked and again.invalidated == []
    kept = {r.query_id: r.answer for r in store.load("model:fake:qa", tier.name).qa}
    assert kept == {r.query_id: r.answer for r in first.qa} and len(kept) == 3


def test_a_stored_file_of_before_loads_and_counts_while_its_tier_hash_holds(tiny_project):  # noqa: F811
    p = load_project(tiny_project)
    tier = {t.name: t for t in ensure_tiers(p).tiers}["shared"]
    old = SystemRun("run:x", tier.name, tier_hash(p, tier), "k", 3, [RankedList(q, [Hit(1, 1.0)]) for q in tier.query_ids])
    raw = msgspec.json.encode(old).replace(b',"docs_hash":""', b"")
    assert b"docs_hash" not in raw
    path = RunStore(p).path("run:x", tier.name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    assert [r.system for r in RunStore(p).runs(tier)] == ["run:x"]
    # read once while current, it is stamped with the tier's documents: an added query keeps it
    add_query(tiny_project, "Which city is the capital of Germany?", answer="Berlin", gold=["3"])
    p2 = load_project(tiny_project)
    shared = {t.name: t for t in ensure_tiers(p2).tiers}["shared"]
    assert tier_hash(p2, shared) != old.tier_hash
    assert [r.system for r in RunStore(p2).runs(shared)] == ["run:x"]


def test_a_ranking_is_kept_by_the_tier_documents_and_its_query_text(tiny_project):  # noqa: F811
    p = load_project(tiny_project)
    tier = {t.name: t for t in ensure_tiers(p).tiers}["shared"]
    texts = {q: query_text_hash(p.original_query(q).query) for q in tier.query_ids}
    texts["q2"] = "changed"
    run = SystemRun("bm25", tier.name, "old-tier-hash", "k", 3, [RankedList(q, [Hit(1, 1.0)]) for q in tier.query_ids],
                    texts, tier_docs_hash(p, tier))
    RunStore(p).save(run)
    (got,) = RunStore(p).runs(tier)
    assert [r.query_id for r in got.rankings] == [q for q in tier.query_ids if q != "q2"]
    assert RunStore(p).query_rankings(tier, "q1") == {"bm25": [Hit(1, 1.0)]}


@pytest.mark.llm
def test_the_real_models_answers_survive_an_added_query_and_the_oracle_serves_other_tiers(local_server, tmp_path):
    from click.testing import CliRunner

    from support.llm_project import make_tiny_project
    from workbench.cli import main

    root = make_tiny_project(tmp_path / "tiny", models={"local": ModelConfig(max_tokens=24)})
    args = ["run", str(root), "--task", "qa,oracle", "--tiers", "shared", "--queries", "q1", "--judge-samples", "1"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    p = load_project(root)
    tiers = {t.name: t for t in ensure_tiers(p).tiers}
    stored = {r.system: r for r in LLMRunStore(p).runs(tiers["shared"])}
    (oracle_geo,) = [r for r in LLMRunStore(p).runs(tiers["base:geo"]) if r.system == "model:local:oracle"]
    assert oracle_geo.qa == stored["model:local:oracle"].qa and oracle_geo.qa[0].query_id == "q1"
    add_query(root, "Which city is the capital of Germany?", answer="Berlin", gold=["3"])
    p2 = load_project(root)
    tiers2 = {t.name: t for t in ensure_tiers(p2).tiers}
    after = {r.system: r for r in LLMRunStore(p2).runs(tiers2["shared"])}
    assert after["model:local:qa"].qa == stored["model:local:qa"].qa
    assert after["model:local:oracle"].qa == stored["model:local:oracle"].qa


def test_the_tuis_run_of_one_query_says_which_stored_answer_an_edit_made_stale(fault_server, tmp_path):  # noqa: F811
    from support.llm_project import make_tiny_project

    from workbench import session as core
    from workbench.inspection.model_evidence import scratch_store

    fault_server.responder = _responder
    root = make_tiny_project(tmp_path / "p", models={"fake": ModelConfig(model="fault", base_url=fault_server.base_url,
                                                                          timeout_s=5, max_retries=1)})
    ensure_tiers(load_project(root))
    s, _ = core.open_session(root)
    tier = s.tiers[0]
    query = s.project.query(tier.query_ids[0])
    notes: list[str] = []
    first = core.run_model_task(s, tier, query, "fake", "qa", on_update=lambda e: None, on_note=notes.append)
    assert first is not None and first.answer and notes == []
    # its stored prompt is not what it would be now (as after its text or context changed)
    store = scratch_store(s.project, query.query_id, task="qa")
    stored = store.load("model:fake:qa", tier.name)
    store.save(msgspec.structs.replace(stored, qa=[msgspec.structs.replace(r, key="other") for r in stored.qa]))
    core.run_model_task(s, tier, query, "fake", "qa", on_update=lambda e: None, on_note=notes.append)
    assert notes == [f"1 stored answer of model:fake:qa on tier {tier.name} no longer matched their prompt: "
                     f"rerun ({query.query_id})"]


def test_a_label_says_which_stored_answer_it_left_behind_and_only_that_one(fault_server, tmp_path):  # noqa: F811
    from support.llm_project import make_tiny_project

    from workbench import session as core

    fault_server.responder = _responder
    root = make_tiny_project(tmp_path / "p", models={"fake": ModelConfig(model="fault", base_url=fault_server.base_url,
                                                                          timeout_s=5, max_retries=1)})
    ensure_tiers(load_project(root))
    s, _ = core.open_session(root)
    q1 = s.project.query("q1")
    holding = s.tiers_for("q1")
    assert core.run_model_task(s, holding[0], q1, "fake", "oracle", on_update=lambda e: None) is not None
    # a label on another query leaves q1's oracle answer counting: nothing said about it
    other = core.label_document(s, "q2", 5, "hard_negative")
    assert other is not None and "no longer counts" not in other.note
    core.apply_relabelled(s, other)
    assert all("model:fake:oracle" in core.known_results(s, t, "q1") for t in holding)
    # a new gold for q1 changes the oracle's prompt: its answer no longer counts (inspector and verdicts
    # alike), and the note says so
    changed = core.label_document(s, "q1", 2, "gold")
    assert changed is not None
    assert (f"q1: the answer of fake:oracle on {len(holding)} tiers read the labels before this change and no "
            "longer counts") in changed.note
    core.apply_relabelled(s, changed)
    assert not any("model:fake:oracle" in core.known_results(s, t, "q1") for t in holding)
