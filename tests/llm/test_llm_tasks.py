"""Tasks against a deterministic stub model: window check, cut-to-fit, rag, stored results,
one metrics path with the retrievers, use_rows, the CLI."""

import random

import pytest
from click.testing import CliRunner
from support.llm_project import make_tiny_project

from workbench.access.ladder import ensure_tiers
from workbench.cli import main
from workbench.llm.client import ChatClient, ResponseCache
from workbench.llm.figures import localize_rows, use_rows
from workbench.llm.store import LLMRunStore
from workbench.llm.tasks import RetrieverRunMissing, TaskOptions, run_tier, system_name
from workbench.access.metrics import query_access
from workbench.project.load import load_project
from workbench.records import Hit, ModelConfig, RankedList
from workbench.access.runs import RunStore, SystemRun, tier_hash


def _setup(root, server, **cfg_kw):
    p = load_project(root)
    tiers = {t.name: t for t in ensure_tiers(p).tiers}
    cfg = ModelConfig(**{"model": "fault", "base_url": server.base_url, "timeout_s": 5, "max_retries": 1, **cfg_kw})
    client = ChatClient("fake", cfg, server.base_url, cache=ResponseCache.for_state_dir(p.state_dir), backoff_base_s=0.01)
    return p, tiers, client


def test_system_names():
    assert system_name("local", TaskOptions("localize")) == "model:local:localize"
    assert system_name("local", TaskOptions("qa", variant="strict")) == "model:local:qa-strict"
    assert system_name("gpt", TaskOptions("rag", retriever="bm25", rag_k=3)) == "model:gpt:rag:bm25@3"
    with pytest.raises(ValueError):
        TaskOptions("rag")
    with pytest.raises(ValueError):
        TaskOptions("summarise")


async def test_localization_is_a_system_run_scored_like_a_retriever(fault_server, tiny_project):
    p, tiers, client = _setup(tiny_project, fault_server)
    tier = tiers["shared"]
    async with client:
        run = await run_tier(p, tier, "fake", client, TaskOptions("localize", k=10, seed=3))
    assert run.complete and run.fits
    sr = RunStore(p).load("model:fake:localize", "shared")
    assert sr.tier_hash == tier_hash(p, tier) and sr.key == run.key and sr.k == 10
    # the stub names the first three DocIDs of the prompt: they are the tier in its seeded shuffled order
    order = [int(x) for x in run.localize[0].output.split(", ")]
    expected = sorted(tier.doc_ids)
    random.Random(f"3:{tier.name}").shuffle(expected)
    assert order == expected[:3] and len(tier.doc_ids) > 3
    for r in sr.rankings:
        got = query_access(r.query_id, [h.doc_id for h in r.hits], p.query(r.query_id).gold_doc_ids, 10)
        assert got.sr_at_k == query_access(r.query_id, order, p.query(r.query_id).gold_doc_ids, 10).sr_at_k
    # the lead's evaluate reads it with the retrievers
    from workbench.access.evaluate import model_runs, score_run

    assert [x.system for x in model_runs(p, tier, RunStore(p))] == ["model:fake:localize"]
    summary, _ = score_run(p, sr, 10)
    assert summary.n_queries == 3
    rows = localize_rows(p, [tier])
    assert rows["shared"]["model:fake:localize"]["fits"] is True


async def test_same_seed_same_prompt_other_seed_other_order(fault_server, tiny_project):
    p, tiers, client = _setup(tiny_project, fault_server)
    async with client:
        a = await run_tier(p, tiers["shared"], "fake", client, TaskOptions("localize", seed=1))
        n = fault_server.chat_requests
        b = await run_tier(p, tiers["shared"], "fake", client, TaskOptions("localize", seed=1))
        assert fault_server.chat_requests == n  # rerun: zero calls
        c = await run_tier(p, tiers["shared"], "fake", client, TaskOptions("localize", seed=2))
    assert [r.output for r in a.localize] == [r.output for r in b.localize]
    assert a.key != c.key


async def test_tier_that_does_not_fit_is_not_run_nor_scored(fault_server, tiny_project):
    p, tiers, client = _setup(tiny_project, fault_server, context_window=300, max_tokens=64)
    async with client:
        loc = await run_tier(p, tiers["shared"], "fake", client, TaskOptions("localize"))
        qa = await run_tier(p, tiers["shared"], "fake", client, TaskOptions("qa"), judge_client=client)
    assert fault_server.chat_requests == 0
    assert not loc.fits and not qa.fits and "window budget 270" in loc.reason
    assert RunStore(p).load("model:fake:localize", "shared") is None
    row = use_rows(p, [tiers["shared"]])["shared"]["model:fake:qa"]
    assert row.fits is False and row.QA is None and row.n == 0 and row.input_tokens > row.budget_tokens


async def test_qa_and_oracle_rows(fault_server, tiny_project):
    p, tiers, client = _setup(tiny_project, fault_server)
    answers = {"capital": "Paris", "apple pie?": "I do not know.", "two pies": "apple pie and cherry pie"}

    def responder(messages):
        text = messages[-1]["content"]
        if "Gold answer:" in text:
            predicted = text.split("Predicted answer:")[-1]
            return "Score: 5" if "Paris" in predicted or "cherry" in predicted else "Score: 0"
        return next(v for k, v in answers.items() if k in text.split("Question:")[-1])

    fault_server.responder = responder
    async with client:
        qa = await run_tier(p, tiers["shared"], "fake", client, TaskOptions("qa", judge_samples=3), judge_client=client)
        oracle = await run_tier(p, tiers["shared"], "fake", client, TaskOptions("oracle", judge_samples=1), judge_client=client)
    assert qa.complete and [r.refusal for r in qa.qa] == [False, True, False]
    assert [r.judge_median for r in qa.qa] == [5.0, 0.0, 5.0]
    assert all(len(r.judge_scores) == 3 for r in qa.qa)
    assert [r.exact for r in qa.qa] == [True, False, True]
    assert sorted(oracle.qa[2].context_doc_ids) == [4, 6]
    rows = use_rows(p, [tiers["shared"]])["shared"]
    assert set(rows) == {"model:fake:qa", "model:fake:oracle"}
    r = rows["model:fake:qa"]
    assert r.task == "qa" and rows["model:fake:oracle"].task == "oracle"
    assert r.QA == pytest.approx(10 / 3) and r.n == 3 and r.refusals == 1 and r.judge_failures == 0
    assert r.EM == pytest.approx(2 / 3) and r.fits is True and r.p50_s is not None
    assert r.p95_s >= r.p50_s and r.prompt_tokens > 0


def _fake_bm25(p, tier, ranking):
    run = SystemRun("bm25", tier.name, tier_hash(p, tier), "k", 100,
                    [RankedList(q, [Hit(d, 1.0 / (i + 1)) for i, d in enumerate(ranking)]) for q in tier.query_ids])
    RunStore(p).save(run)


async def test_rag_needs_a_retriever_run(fault_server, tiny_project):
    p, tiers, client = _setup(tiny_project, fault_server)
    async with client:
        with pytest.raises(RetrieverRunMissing, match="workbench eval .* --retrievers bm25"):
            await run_tier(p, tiers["shared"], "fake", client, TaskOptions("rag", retriever="bm25"), judge_client=client)


async def test_rag_cut_to_fit_never_drops_gold_or_hard_negatives(fault_server, tiny_project):
    p, tiers, client = _setup(tiny_project, fault_server, context_window=220, max_tokens=32, safety_margin=0.0)
    tier = tiers["shared"]
    _fake_bm25(p, tier, [2, 5, 1, 3, 4, 6])
    async with client:
        run = await run_tier(p, tier, "fake", client, TaskOptions("rag", retriever="bm25", rag_k=6, judge_samples=1), judge_client=client)
    assert run.complete and run.fits
    assert any(r.dropped_doc_ids for r in run.qa)
    for r in run.qa:
        q = p.query(r.query_id)
        protected = set(q.gold_doc_ids) | set(q.hard_negative_ids)
        assert not protected & set(r.dropped_doc_ids)
        assert protected <= set(r.context_doc_ids)
        assert r.dropped_doc_ids == [d for d in [6, 4, 3, 1, 5, 2] if d in r.dropped_doc_ids]  # lowest rank first
    assert run.input_tokens <= run.budget_tokens


async def test_stale_results_are_recomputed_not_mixed(fault_server, tiny_project):
    p, tiers, client = _setup(tiny_project, fault_server)
    async with client:
        a = await run_tier(p, tiers["base:geo"], "fake", client, TaskOptions("qa", judge_samples=1), judge_client=client)
    p2, tiers2, client2 = _setup(tiny_project, fault_server, max_tokens=64)
    async with client2:
        b = await run_tier(p2, tiers2["base:geo"], "fake", client2, TaskOptions("qa", judge_samples=1), judge_client=client2)
    assert a.key != b.key and len(b.qa) == 1
    assert LLMRunStore(p).load("model:fake:qa", "base:geo").key == b.key


def test_cli_run_with_a_configured_endpoint(fault_server, tmp_path):
    from workbench.project.files import write_config
    from workbench.records import LadderConfig, ProjectConfig

    root = make_tiny_project(tmp_path / "proj")
    write_config(root, ProjectConfig(name="tiny", ladder=LadderConfig(seed=7, base_budget=600, prompt_overhead=100),
                                     models={"stub": ModelConfig(model="fault", base_url=fault_server.base_url, max_retries=1)}))
    runner = CliRunner()
    res = runner.invoke(main, ["run", str(root), "--task", "localize,qa", "--tiers", "shared", "--judge-samples", "1"])
    assert res.exit_code == 0, res.output
    assert "model:stub:localize" in res.output and "model:stub:qa" in res.output
    n = fault_server.chat_requests
    res = runner.invoke(main, ["run", str(root), "--task", "localize,qa", "--tiers", "shared", "--judge-samples", "1"])
    assert res.exit_code == 0 and fault_server.chat_requests == n
    assert "model calls 0" in res.output
    res = runner.invoke(main, ["run", str(root), "--task", "rag", "--tiers", "shared"])
    # no --retriever: the preferred one (hybrid), whose stored run is missing here, so it says how to make it
    assert res.exit_code != 0 and "rag reads the top 5 of hybrid" in res.output and "--retrievers hybrid" in res.output
    res = runner.invoke(main, ["run", str(root), "--task", "qa", "--model", "nope"])
    assert res.exit_code == 2 and "unknown model 'nope'" in res.output  # bad input: 2, as in every command


def test_cli_reports_failures_with_nonzero_exit(fault_server, tmp_path):
    from workbench.project.files import write_config
    from workbench.records import LadderConfig, ProjectConfig

    root = make_tiny_project(tmp_path / "proj")
    write_config(root, ProjectConfig(name="tiny", ladder=LadderConfig(seed=7, base_budget=600, prompt_overhead=100),
                                     models={"stub": ModelConfig(model="fault", base_url=fault_server.base_url, max_retries=0)}))
    fault_server.default = 500
    res = CliRunner().invoke(main, ["run", str(root), "--task", "localize", "--tiers", "base:geo"])
    assert res.exit_code == 1 and "server_error" in res.output and "rerun" in res.output


async def test_an_oracle_run_under_a_version_reads_its_labels_and_is_stored_apart(fault_server, tiny_project):
    """`run --queries-version`: the oracle's context is the version's gold, and its run lives in the
    version's own store, leaving the original's oracle run as it was."""
    import msgspec

    from workbench.llm.store import store_for, version_runs_root
    from workbench.project.versions import write_version

    p, tiers, client = _setup(tiny_project, fault_server)
    fault_server.responder = lambda messages: "apple pie and cherry pie"
    async with client:
        original = await run_tier(p, tiers["shared"], "fake", client, TaskOptions("oracle", judge_samples=1), judge_client=client)
    q3 = p.query("q3")
    write_version(p, [p.query("q1"), p.query("q2"), msgspec.structs.replace(q3, gold_doc_ids=[4, 5, 6], hard_negative_ids=[])],
                  [], made_by="test", name="v")
    pv = load_project(tiny_project, "v")
    async with client:
        run = await run_tier(pv, tiers["shared"], "fake", client, TaskOptions("oracle", judge_samples=1), judge_client=client)
    by_query = {r.query_id: r for r in run.qa}
    assert sorted(by_query["q3"].context_doc_ids) == [4, 5, 6]
    root = version_runs_root(pv)
    assert root is not None and store_for(pv, "oracle").path(run.system, "shared").is_relative_to(root)
    assert store_for(pv, "oracle").path(run.system, "shared").is_file()
    kept = LLMRunStore(p).load(run.system, "shared")
    assert kept is not None and kept.key == original.key and sorted(kept.qa[2].context_doc_ids) == [4, 6]


def test_the_size_shown_before_running_is_the_one_the_refusal_names(tiny_project):
    """The panel's input size and the "does not fit" notice give one figure (they disagreed:
    302,732 vs ~302,604), both for the cheap precheck and for the exact count."""
    import re

    from workbench.llm.tasks import estimate_input

    p = load_project(tiny_project)
    tier = next(t for t in ensure_tiers(p).tiers if t.name == "full")
    queries = [p.query(q) for q in tier.query_ids]
    for window in (60, tier.tokens + 40):  # far too small (precheck), then just too small (exact count)
        cfg = ModelConfig(context_window=window, max_tokens=32, safety_margin=0.0)
        worst, reason = estimate_input(p, tier, cfg, TaskOptions("qa"), queries)
        assert reason, window
        assert re.search(r"input (?:at least )?([\d,]+) tokens", reason).group(1) == f"{worst:,}"
