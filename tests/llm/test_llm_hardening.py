"""Issue 20 items 4, 13, 14 (the chat client) and issue 19 item 8 (cancel stops the server's generation)."""

from __future__ import annotations

import asyncio

import pytest

from workbench.llm.client import ChatClient, LLMCallError, ResponseCache
from workbench.records import ModelConfig, ProjectConfig

MSG = [{"role": "user", "content": "hello"}]
KEY = "sk-test-0123456789abcdef"


def make_client(server, tmp_path, **kw):
    cfg = ModelConfig(**{"model": "fault", "base_url": server.base_url, "timeout_s": 5, "max_retries": 0, **kw})
    cache = ResponseCache(tmp_path / "cache.sqlite")
    return ChatClient("fake", cfg, server.base_url, cache=cache, backoff_base_s=0.01), cache


async def test_the_timeout_is_a_deadline_per_attempt_not_per_read(fault_server, tmp_path):
    fault_server.script = [("trickle", 0.2)]  # ~300 bytes at 5 bytes/s: a minute in all, each read quick
    client, cache = make_client(fault_server, tmp_path, timeout_s=1.0)
    async with client:
        with pytest.raises(LLMCallError) as err:
            await client.complete(MSG)
    assert err.value.kind == "timeout"
    await asyncio.to_thread(fault_server.disconnected.wait, 10)
    assert fault_server.disconnected.is_set()  # the connection was given up, not read on
    assert len(cache) == 0


async def test_a_huge_completion_is_stored_cut_and_flagged(tmp_path):
    from support.fault_server import FaultServer

    with FaultServer(responder=lambda messages: "x" * 1_000_000) as server:
        client, cache = make_client(server, tmp_path, max_stored_chars=1000)
        async with client:
            c = await client.complete(MSG)
            again = await client.complete(MSG)
    assert c.cut and len(c.text) == 1000
    assert again.cached and again.cut and len(again.text) == 1000
    assert cache.path.stat().st_size < 200_000  # the cache holds the cut text only


async def test_the_key_echoed_in_a_successful_completion_is_never_stored(tmp_path, monkeypatch):
    from support.fault_server import FaultServer

    monkeypatch.setenv("FAULT_KEY", KEY)
    with FaultServer(responder=lambda messages: f"your key is {KEY}, Bearer of news") as server:
        client, cache = make_client(server, tmp_path, api_key_env="FAULT_KEY")
        async with client:
            c = await client.complete(MSG)
        cache.close()
    assert KEY not in c.text and "***" in c.text and "Bearer of news" in c.text
    assert KEY.encode() not in (tmp_path / "cache.sqlite").read_bytes()


async def test_cancel_aborts_the_request_in_flight(fault_server, tmp_path):
    fault_server.script = [("delay", 30)]
    client, _ = make_client(fault_server, tmp_path)
    aborted: list[int] = []
    client.on_abort = lambda: aborted.append(1)
    async with client:
        call = asyncio.ensure_future(client.complete(MSG))
        while not fault_server.in_flight:  # the server has the request
            await asyncio.sleep(0.01)
        assert client.cancel() == 1
        with pytest.raises(asyncio.CancelledError):
            await call
    await asyncio.to_thread(fault_server.disconnected.wait, 10)
    assert fault_server.disconnected.is_set() and aborted == [1] and client.aborted


def _cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100  # utime + stime, in clock ticks of 1/100 s


@pytest.mark.llm
def test_cancel_stops_the_local_servers_generation(local_server, tmp_path):
    """x in the TUI: the request is aborted and llama.cpp stops generating (its server would
    otherwise finish the answer for nobody, ~150 s of CPU): the generating process is gone at once
    and the server answers again on the same URL."""
    from workbench.llm import providers, server
    from workbench.progress import Cancelled, run_polled

    url = local_server.base_url
    generating = local_server.proc
    assert generating is not None
    cfg = ModelConfig(max_tokens=4000, timeout_s=600, max_retries=0)
    long_story = [{"role": "user", "content": "Write a very long story about a lighthouse keeper, chapter by chapter."}]
    state = {"started": None}

    class FakeProject:  # what open_client reads of a project
        root = tmp_path
        state_dir = tmp_path / ".workbench"
        config = ProjectConfig()

    async def go():
        async with providers.open_client(FakeProject, "local", cfg, use_cache=False) as client:  # type: ignore[arg-type]
            state["client"] = client
            return await client.complete(long_story)

    def poll():
        client = state.get("client")
        if client is not None and client._requests:
            if state["started"] is None:  # the server has the request: wait until it spends CPU on it
                state["started"] = _cpu_s(generating.pid)
            elif _cpu_s(generating.pid) > state["started"] + 1.0:
                raise Cancelled("model cancelled")

    with pytest.raises(Cancelled):
        run_polled(go, poll, on_cancel=lambda: state["client"].cancel())
    assert state["client"].aborted
    assert generating.wait(timeout=30) is not None  # the generating process stopped (killed), not finishing
    # the server is back on the same URL (callers of default_server() wait for the restart)
    assert server.default_server() is local_server and local_server.base_url == url
    assert local_server.proc is not generating and local_server.healthy()
