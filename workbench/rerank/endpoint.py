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

import http.client
import json
import os
import random
import time
import urllib.error
import urllib.request
from typing import Sequence

from workbench.records import RerankerConfig
from workbench.rerank.errors import RerankEndpointError, RerankError
from workbench.rerank.base import SCORER_VERSION, Scorer
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

    def _key(self) -> str | None:
        env = self.config.api_key_env
        if not env:
            return None
        key = os.environ.get(env)
        if not key:
            raise RerankError(f"reranker {self.name!r}: environment variable {env} (its API key) is not set")
        return key

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        out: list[float] = []
        size = self.config.batch_size
        for i in range(0, len(documents), size):
            out += self._call(query, [d[: 4 * self.config.max_length] for d in documents[i:i + size]])
        return out

    def _call(self, query: str, documents: list[str]) -> list[float]:
        payload = {"query": query, "documents": documents, "texts": documents, "top_n": len(documents),
                   "return_documents": False}
        if self.config.model:
            payload["model"] = self.config.model
        headers = {"content-type": "application/json"}
        key = self._key()
        if key:
            headers["authorization"] = f"Bearer {key}"
        data = json.dumps(payload).encode()
        attempt = 0
        while True:
            attempt += 1
            try:
                return parse_scores(self._post(data, headers), len(documents), self.name)
            except (_Retryable, TimeoutError, OSError, http.client.HTTPException) as exc:
                if attempt > self.config.max_retries:
                    raise RerankEndpointError(self._message(f"{type(exc).__name__}: {exc}", attempt)) from None
                wait = exc.wait_s if isinstance(exc, _Retryable) else None
                if wait is None:
                    wait = min(BACKOFF_MAX_S, BACKOFF_BASE_S * 2 ** (attempt - 1)) * (0.5 + random.random() / 2)
                time.sleep(min(wait, BACKOFF_MAX_S))

    def _post(self, data: bytes, headers: dict[str, str]) -> object:
        """The decoded JSON answer; _Retryable for a retryable status or a body that is not JSON."""
        self.requests += 1
        request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.config.timeout_s) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as exc:
            text = exc.read()[:300].decode("utf-8", "replace")
            if exc.code in RETRY_STATUS:
                raise _Retryable(f"HTTP {exc.code}: {text}", _retry_after(exc.headers)) from None
            raise RerankEndpointError(self._message(f"HTTP {exc.code}: {text}", 1)) from None
        try:
            return json.loads(raw)
        except ValueError:
            raise _Retryable("the body is not JSON") from None

    def _message(self, what: str, attempts: int) -> str:
        secrets = (os.environ.get(self.config.api_key_env, ""),) if self.config.api_key_env else ()
        return redacted(f"reranker {self.name!r} at {self.url}: {what} (after {attempts} attempt(s))", secrets)

