"""An HTTP rerank API: the `/rerank` shape of vLLM, Hugging Face TEI, Infinity and the llama.cpp server.

Request: ``POST {base_url}/rerank`` with the query and the documents (as ``documents``, the
Cohere / vLLM / Infinity / llama.cpp field, and ``texts``, TEI's). Answer: a list of
``{index, relevance_score | score}``, top-level (TEI) or under ``results`` (the others), in any
order. Transport faults (408, 409, 429, 5xx, timeouts, dropped connections) and bodies that are
not such a list are retried with exponential backoff and jitter, ``Retry-After`` honoured; an
answer with an index out of range, a repeated index or the wrong count is the server's error
and fails at once. The key is read from the environment variable ``api_key_env`` names, per run.
"""

from __future__ import annotations

import os
import random
import time
from typing import Sequence

from workbench.records import RerankerConfig
from workbench.rerank.errors import RerankEndpointError, RerankError
from workbench.rerank.scorers import SCORER_VERSION, Scorer
from workbench.safe_text import redacted

RETRY_STATUS = frozenset({408, 409, 429}) | frozenset(range(500, 600))
BACKOFF_BASE_S, BACKOFF_MAX_S = 0.25, 20.0


class _Retryable(Exception):
    def __init__(self, message: str, wait_s: float | None = None):
        super().__init__(message)
        self.wait_s = wait_s


def _retry_after(headers) -> float | None:
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return float(ms) / 1000
        except ValueError:
            pass
    s = headers.get("retry-after")
    try:
        return float(s) if s else None
    except ValueError:
        return None


def parse_scores(body: object, n: int, name: str) -> list[float]:
    """One score per document in request order. Raises _Retryable for a body of the wrong shape,
    RerankEndpointError for well-formed answers that cannot be right."""
    items = body.get("results") if isinstance(body, dict) else body
    if not isinstance(items, list):
        raise _Retryable("the body is not a list of results")
    scores: dict[int, float] = {}
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("index"), int):
            raise _Retryable("a result has no integer index")
        value = item.get("relevance_score", item.get("score"))
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise _Retryable("a result has no numeric relevance_score / score")
        i = item["index"]
        if not 0 <= i < n:
            raise RerankEndpointError(f"reranker {name!r}: the endpoint returned index {i} for {n} documents")
        if i in scores:
            raise RerankEndpointError(f"reranker {name!r}: the endpoint returned index {i} twice")
        scores[i] = float(value)
    if len(scores) != n:
        raise RerankEndpointError(f"reranker {name!r}: the endpoint scored {len(scores)} of {n} documents")
    return [scores[i] for i in range(n)]


class EndpointScorer(Scorer):
    def __init__(self, name: str, config: RerankerConfig):
        if not config.base_url:
            raise RerankError(f"reranker {name!r}: the endpoint backend needs `base_url`")
        self.name = name
        self.config = config
        self.url = config.base_url.rstrip("/") + "/rerank"
        self.identity = f"endpoint:{SCORER_VERSION}:{self.url}:{config.model}:{config.max_length}"
        self.requests = 0  # every attempt sent, retries included
        self._client = None

    def _key(self) -> str | None:
        env = self.config.api_key_env
        if not env:
            return None
        key = os.environ.get(env)
        if not key:
            raise RerankError(f"reranker {self.name!r}: environment variable {env} (its API key) is not set")
        return key

    @property
    def client(self):
        if self._client is None:
            import httpx

            key = self._key()
            headers = {"authorization": f"Bearer {key}"} if key else {}
            self._client = httpx.Client(timeout=self.config.timeout_s, headers=headers)
        return self._client

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        out: list[float] = []
        size = self.config.batch_size
        for i in range(0, len(documents), size):
            out += self._call(query, [d[: 4 * self.config.max_length] for d in documents[i:i + size]])
        return out

    def _call(self, query: str, documents: list[str]) -> list[float]:
        import httpx

        payload = {"query": query, "documents": documents, "texts": documents, "top_n": len(documents),
                   "return_documents": False}
        if self.config.model:
            payload["model"] = self.config.model
        attempt = 0
        while True:
            attempt += 1
            try:
                self.requests += 1
                resp = self.client.post(self.url, json=payload)
                if resp.status_code in RETRY_STATUS:
                    raise _Retryable(f"HTTP {resp.status_code}: {resp.text[:300]}", _retry_after(resp.headers))
                if resp.status_code >= 400:
                    raise RerankEndpointError(self._message(f"HTTP {resp.status_code}: {resp.text[:300]}", attempt))
                try:
                    body = resp.json()
                except ValueError:
                    raise _Retryable("the body is not JSON") from None
                return parse_scores(body, len(documents), self.name)
            except (_Retryable, httpx.TimeoutException, httpx.TransportError) as exc:
                if attempt > self.config.max_retries:
                    raise RerankEndpointError(self._message(f"{type(exc).__name__}: {exc}", attempt)) from None
                wait = exc.wait_s if isinstance(exc, _Retryable) else None
                if wait is None:
                    wait = min(BACKOFF_MAX_S, BACKOFF_BASE_S * 2 ** (attempt - 1)) * (0.5 + random.random() / 2)
                time.sleep(min(wait, BACKOFF_MAX_S))

    def _message(self, what: str, attempts: int) -> str:
        secrets = (os.environ.get(self.config.api_key_env, ""),) if self.config.api_key_env else ()
        return redacted(f"reranker {self.name!r} at {self.url}: {what} (after {attempts} attempt(s))", secrets)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
