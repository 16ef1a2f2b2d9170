"""A fully cached rerun never starts the embedded server: its URL is resolved on the first miss."""

from __future__ import annotations

import asyncio

import pytest

from workbench.llm.client import ChatClient, Completion, ResponseCache
from workbench.records import ModelConfig


MESSAGES = [{"role": "user", "content": "hello"}]


def test_cached_call_does_not_resolve_the_endpoint(tmp_path, fault_server):
    resolved: list[str] = []

    def start_server() -> str:
        resolved.append("started")
        return fault_server.base_url

    cache = ResponseCache(tmp_path / "cache.sqlite")
    client = ChatClient("m", ModelConfig(model="m"), start_server, endpoint_id="local:model", cache=cache)
    cached = Completion("from cache", 3, 2, 0.1)
    cache.put(client.key(MESSAGES, {"max_tokens": 128, "temperature": 0.0}), cached)

    result = asyncio.run(client.complete(MESSAGES))
    assert result.text == "from cache" and result.cached
    assert resolved == []

    async def two_misses():  # the URL is resolved once, then reused
        await client.complete([{"role": "user", "content": "new"}])
        await client.complete([{"role": "user", "content": "newer"}])
        await client.aclose()

    asyncio.run(two_misses())
    assert resolved == ["started"]
    assert fault_server.chat_requests == 2


def test_lazy_url_needs_an_endpoint_identity():
    with pytest.raises(ValueError, match="endpoint_id"):
        ChatClient("m", ModelConfig(), lambda: "http://127.0.0.1:1/v1")
