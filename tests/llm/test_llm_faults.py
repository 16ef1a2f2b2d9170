"""Fault injection through tests/support/fault_server.py: retries, nothing wrong cached, failures reported,
interrupted/failed runs resume without recomputing or duplicating finished queries."""

import asyncio
import sqlite3

import pytest

from workbench.access.ladder import ensure_tiers
from workbench.llm.client import ChatClient, LLMCallError, ResponseCache
from workbench.llm.store import LLMRunStore
from workbench.llm.tasks import TaskOptions, run_tier
from workbench.project.load import load_project
from workbench.records import ModelConfig
from workbench.access.runs import RunStore

MSG = [{"role": "user", "content": "hello"}]


def make_client(server, tmp_path, use_cache=True, **kw):
    cfg = ModelConfig(**{"model": "fault", "base_url": server.base_url, "timeout_s": 5, "max_retries": 3, **kw})
    cache = ResponseCache(tmp_path / "cache.sqlite")
    return ChatClient("fake", cfg, server.base_url, cache=cache, use_cache=use_cache, backoff_base_s=0.01), cache


@pytest.mark.parametrize("fault", [429, 500, 503, "cut", "garbage", "no_choices"])
async def test_retries_then_caches_only_the_good_answer(fault_server, tmp_path, fault):
    fault_server.script = [fault, fault]
    client, cache = make_client(fault_server, tmp_path)
    async with client:
        c = await client.complete(MSG)
        assert c.text == "Paris" and not c.cached
        assert fault_server.chat_requests == 3
        again = await client.complete(MSG)
    assert again.cached and again.text == "Paris" and fault_server.chat_requests == 3
    assert len(cache) == 1


async def test_timeout_is_retried(fault_server, tmp_path):
    fault_server.script = [("delay", 1.5)]
    client, _ = make_client(fault_server, tmp_path, timeout_s=0.5)
    async with client:
        c = await client.complete(MSG)
    assert c.text == "Paris" and fault_server.chat_requests == 2


async def test_persistent_failure_raises_and_caches_nothing(fault_server, tmp_path):
    fault_server.default = 500
    client, cache = make_client(fault_server, tmp_path, max_retries=2)
    async with client:
        with pytest.raises(LLMCallError) as err:
            await client.complete(MSG)
    assert err.value.kind == "server_error" and err.value.attempts == 3
    assert fault_server.chat_requests == 3 and len(cache) == 0
    assert client.stats.failures == 1 and "server_error" in client.stats.errors[0]


async def test_client_errors_are_not_retried(fault_server, tmp_path):
    fault_server.default = 400
    client, _ = make_client(fault_server, tmp_path)
    async with client:
        with pytest.raises(LLMCallError) as err:
            await client.complete(MSG)
    assert err.value.kind == "client_error" and fault_server.chat_requests == 1


async def until(condition, what: str) -> None:
    """Wait for a condition the test cannot be notified of (polled; the limit only guards a hang)."""
    async def poll():
        while not condition():
            await asyncio.sleep(0.005)

    try:
        await asyncio.wait_for(poll(), 30)
    except asyncio.TimeoutError:
        raise AssertionError(f"never happened: {what}") from None


async def test_concurrency_limit(fault_server, tmp_path):
    fault_server.default = "hold"
    client, _ = make_client(fault_server, tmp_path, concurrency=2)
    async with client:
        calls = [asyncio.ensure_future(client.complete([{"role": "user", "content": str(i)}])) for i in range(4)]
        await until(lambda: fault_server.in_flight == 2, "two requests reach the server")
        # the other two are parked on the client's semaphore, so nothing more can be sent
        await until(lambda: len(client.semaphore._waiters or ()) == 2, "two calls wait for a free slot")
        assert fault_server.chat_requests == 2
        fault_server.release()
        await asyncio.gather(*calls)
    assert fault_server.chat_requests == 4 and fault_server.max_in_flight == 2


async def test_no_cache_bypasses_reads(fault_server, tmp_path):
    client, cache = make_client(fault_server, tmp_path)
    async with client:
        await client.complete(MSG)
    client2 = ChatClient("fake", client.config, fault_server.base_url, cache=cache, use_cache=False)
    async with client2:
        c = await client2.complete(MSG)
    assert not c.cached and fault_server.chat_requests == 2


async def test_api_key_sent_but_never_stored(fault_server, tmp_path, monkeypatch, tiny_project):
    secret = "sk-test-SECRET-123"
    monkeypatch.setenv("WB_TEST_KEY", secret)
    client, cache = make_client(fault_server, tmp_path, api_key_env="WB_TEST_KEY")
    async with client:
        await client.complete(MSG)
    assert fault_server.headers[0].get("Authorization", fault_server.headers[0].get("authorization")) == f"Bearer {secret}"
    cache.close()
    assert secret.encode() not in (tmp_path / "cache.sqlite").read_bytes()
    rows = sqlite3.connect(tmp_path / "cache.sqlite").execute("SELECT key, value FROM responses").fetchall()
    assert all(secret not in k and secret.encode() not in v for k, v in rows)


async def test_missing_key_variable_is_a_clear_error(fault_server, tmp_path, monkeypatch):
    monkeypatch.delenv("WB_ABSENT_KEY", raising=False)
    client, _ = make_client(fault_server, tmp_path, api_key_env="WB_ABSENT_KEY")
    async with client:
        with pytest.raises(LLMCallError, match="WB_ABSENT_KEY"):
            await client.complete(MSG)
    assert fault_server.chat_requests == 0


async def test_failed_query_is_reported_others_kept_and_rerun_resumes(fault_server, tiny_project):
    p = load_project(tiny_project)
    tier = next(t for t in ensure_tiers(p).tiers if t.name == "shared")
    q2 = p.query("q2").query
    fault_server.rules = [(q2, 500)]
    cfg = ModelConfig(model="fault", base_url=fault_server.base_url, timeout_s=5, max_retries=1)
    cache = ResponseCache.for_state_dir(p.state_dir)
    async with ChatClient("fake", cfg, fault_server.base_url, cache=cache, backoff_base_s=0.01) as c:
        run = await run_tier(p, tier, "fake", c, TaskOptions("localize"))
    assert not run.complete
    assert [f.query_id for f in run.failures] == ["q2"] and "server_error" in run.failures[0].error
    assert sorted(r.query_id for r in run.localize) == ["q1", "q3"]
    # incomplete: nothing on the access side yet (a failed call is not a zero-recall answer)
    assert RunStore(p).load("model:fake:localize", "shared") is None
    assert LLMRunStore(p).load("model:fake:localize", "shared").localize == run.localize

    fault_server.rules = []
    before = fault_server.chat_requests
    async with ChatClient("fake", cfg, fault_server.base_url, cache=cache, backoff_base_s=0.01) as c:
        run2 = await run_tier(p, tier, "fake", c, TaskOptions("localize"))
    assert fault_server.chat_requests - before == 1  # only q2
    assert run2.complete and not run2.failures
    assert [r.query_id for r in run2.localize] == ["q1", "q2", "q3"]
    sr = RunStore(p).load("model:fake:localize", "shared")
    assert [r.query_id for r in sr.rankings] == ["q1", "q2", "q3"]


async def test_judge_outage_is_a_failure_not_a_score(fault_server, tiny_project):
    p = load_project(tiny_project)
    tier = next(t for t in ensure_tiers(p).tiers if t.name == "base:geo")
    fault_server.rules = [("Gold answer:", 503)]
    cfg = ModelConfig(model="fault", base_url=fault_server.base_url, timeout_s=5, max_retries=1)
    cache = ResponseCache.for_state_dir(p.state_dir)
    async with ChatClient("fake", cfg, fault_server.base_url, cache=cache, backoff_base_s=0.01) as c:
        run = await run_tier(p, tier, "fake", c, TaskOptions("qa", judge_samples=1), judge_client=c)
        assert not run.complete and run.failures[0].stage == "judge"
        assert run.qa[0].answer == "Paris" and not run.qa[0].judged
        fault_server.rules = []
        before = fault_server.chat_requests
        run = await run_tier(p, tier, "fake", c, TaskOptions("qa", judge_samples=1), judge_client=c)
    assert run.complete and run.qa[0].judge_median == 4.0
    assert fault_server.chat_requests - before == 1  # the answer was kept; only the judge ran


async def test_interrupted_run_resumes_from_saved_queries(fault_server, tiny_project):
    p = load_project(tiny_project)
    tier = next(t for t in ensure_tiers(p).tiers if t.name == "shared")
    fault_server.script = ["ok"]  # the first query is answered, the next one hangs until cancelled
    fault_server.default = "hold"
    cfg = ModelConfig(model="fault", base_url=fault_server.base_url, timeout_s=30, concurrency=1)
    cache = ResponseCache.for_state_dir(p.state_dir)
    first_saved = asyncio.Event()

    def progress(stage: str, done: int, total: int) -> None:
        if done == 1:
            first_saved.set()

    async with ChatClient("fake", cfg, fault_server.base_url, cache=cache) as c:
        task = asyncio.ensure_future(run_tier(p, tier, "fake", c, TaskOptions("localize"), progress=progress))
        await first_saved.wait()
        await until(lambda: fault_server.in_flight == 1, "the second query is in flight")
        task.cancel()  # an interrupt (Ctrl+C) while a call is in flight
        with pytest.raises(asyncio.CancelledError):
            await task
    saved = LLMRunStore(p).load("model:fake:localize", "shared")
    assert saved is not None and len(saved.localize) == 1 and not saved.complete
    fault_server.script, fault_server.default = [], "ok"
    fault_server.release()
    cache2 = ResponseCache.for_state_dir(p.state_dir)
    async with ChatClient("fake", cfg, fault_server.base_url, cache=cache2) as c:
        run = await run_tier(p, tier, "fake", c, TaskOptions("localize"))
    assert run.complete and sorted(r.query_id for r in run.localize) == ["q1", "q2", "q3"]
    assert c.stats.calls + c.stats.cache_hits == 2  # the saved query is not asked again
