"""A total deadline per HTTP attempt for the openai SDK's clients (chat and embeddings).

httpx's timeout is per read: an endpoint that sends one byte a second is never cut. These
transports bound the whole attempt — waiting for the headers and reading the body — by
``deadline_s`` and raise httpx's ReadTimeout when it passes, which the SDK treats like any other
timeout (retried up to max_retries, then an APITimeoutError). So a call lasts at most about
(max_retries + 1) × deadline_s plus the back-off between attempts.

The SDK here is built on httpx2 (the same API as httpx); both are looked up lazily.
"""

from __future__ import annotations

import asyncio
import importlib
import math
import time
from typing import Any


def _httpx() -> Any:
    try:
        return importlib.import_module("httpx2")
    except ImportError:  # an SDK release on plain httpx
        return importlib.import_module("httpx")


def _expired(httpx: Any, request: Any, deadline_s: float) -> Exception:
    return httpx.ReadTimeout(f"no complete answer within {deadline_s:g} s (total deadline of one attempt)",
                             request=request)


def async_transport(deadline_s: float) -> Any:
    """An httpx AsyncBaseTransport that cuts each attempt at ``deadline_s`` seconds in all."""
    httpx = _httpx()
    if not math.isfinite(deadline_s):  # timeout_s = inf: no deadline
        return httpx.AsyncHTTPTransport()

    body_base: Any = httpx.AsyncByteStream
    transport_base: Any = httpx.AsyncBaseTransport

    class _Body(body_base):
        def __init__(self, inner: Any, request: Any, ends: float) -> None:
            self.inner, self.request, self.ends = inner, request, ends

        async def __aiter__(self):
            chunks = self.inner.__aiter__()
            while True:
                left = self.ends - time.monotonic()
                if left <= 0:
                    raise _expired(httpx, self.request, deadline_s)
                try:
                    chunk = await asyncio.wait_for(chunks.__anext__(), left)
                except StopAsyncIteration:
                    return
                except asyncio.TimeoutError:
                    raise _expired(httpx, self.request, deadline_s) from None
                yield chunk

        async def aclose(self) -> None:
            await self.inner.aclose()

    class DeadlineTransport(transport_base):
        def __init__(self) -> None:
            self.inner = httpx.AsyncHTTPTransport()

        async def handle_async_request(self, request: Any) -> Any:
            ends = time.monotonic() + deadline_s
            try:
                response = await asyncio.wait_for(self.inner.handle_async_request(request), deadline_s)
            except asyncio.TimeoutError:
                raise _expired(httpx, request, deadline_s) from None
            return httpx.Response(response.status_code, headers=response.headers,
                                  stream=_Body(response.stream, request, ends), extensions=response.extensions)

        async def aclose(self) -> None:
            await self.inner.aclose()

    return DeadlineTransport()


def sync_transport(deadline_s: float) -> Any:
    """The blocking twin (the embedding client): the body's reads are cut at ``deadline_s`` in all;
    a response whose headers trickle in is bounded by the per-read timeout only."""
    httpx = _httpx()
    if not math.isfinite(deadline_s):
        return httpx.HTTPTransport()

    body_base: Any = httpx.SyncByteStream
    transport_base: Any = httpx.BaseTransport

    class _Body(body_base):
        def __init__(self, inner: Any, request: Any, ends: float) -> None:
            self.inner, self.request, self.ends = inner, request, ends

        def __iter__(self):
            for chunk in self.inner:
                if time.monotonic() > self.ends:
                    raise _expired(httpx, self.request, deadline_s)
                yield chunk

        def close(self) -> None:
            self.inner.close()

    class DeadlineTransport(transport_base):
        def __init__(self) -> None:
            self.inner = httpx.HTTPTransport()

        def handle_request(self, request: Any) -> Any:
            ends = time.monotonic() + deadline_s
            response = self.inner.handle_request(request)
            return httpx.Response(response.status_code, headers=response.headers,
                                  stream=_Body(response.stream, request, ends), extensions=response.extensions)

        def close(self) -> None:
            self.inner.close()

    return DeadlineTransport()
