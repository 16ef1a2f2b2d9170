"""One async chat interface over the `openai` client for any OpenAI-compatible endpoint.

- concurrency limit (semaphore), request timeout, and one retry policy shared with the embedding
  client (index/embedders.py): transport faults (429, 408/409, 5xx, timeouts, dropped
  connections) are retried by the openai SDK itself (``max_retries``: exponential backoff with
  jitter, Retry-After honoured). Why the SDK's: it already implements exactly that, the embedding
  client has used it from the start, and a second hand-written loop drifted from it (it ignored
  retry-after-ms and x-should-retry). On top, a small loop retries what the SDK counts as success
  but we cannot use: a 200 whose body is not a completion (no choices, no text, not JSON);
- a persistent response cache (sqlite) keyed by a hash of (endpoint identity, model, messages,
  parameters) — never the API key. Only well-formed completions are cached, so a fault is
  never replayed from the cache;
- per call: prompt and completion tokens, latency (a cached call reports the latency it had
  when it was made, and ``cached=True``);
- on request (``top_logprobs=N``), the first generated token's N most likely alternatives with
  their log-probabilities, where the server returns them (llama.cpp's server and OpenAI do:
  ``logprobs`` / ``top_logprobs`` on chat completions); None where it does not.
"""

from __future__ import annotations

import asyncio
import math
import os
import random
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import msgspec

from workbench.errors import BAD_INPUT, ExternalError
from workbench.fsutil import checked_database, sha256_bytes
from workbench.records import ModelConfig
from workbench.llm.records import SentMessage
from workbench.safe_text import redacted

CACHE_DIR = "llm_cache"
CACHE_FILE = "responses.sqlite"
PLACEHOLDER_KEY = "sk-no-key-needed"


class LLMCallError(ExternalError):
    """A call that failed after all retries. ``kind``: rate_limit, server_error, timeout,
    connection, bad_response, client_error, config."""

    title = "A model call failed"

    def __init__(self, kind: str, message: str, attempts: int):
        self.kind = kind
        self.attempts = attempts
        if kind == "config":  # e.g. the API key's variable is not set: the user fixes it
            self.exit_code = BAD_INPUT
        super().__init__(f"{kind} after {attempts} attempt(s): {message}")


class TokenLogprob(msgspec.Struct, frozen=True, array_like=True):
    token: str
    logprob: float


class Completion(msgspec.Struct, frozen=True):
    text: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    finish_reason: str | None = None
    cached: bool = False
    cut: bool = False  # longer than the model's max_stored_chars: the text kept is its start
    top_logprobs: list[TokenLogprob] | None = None  # asked for and returned: the first token's alternatives


def stored_form(c: Completion, max_chars: int, secrets: tuple[str, ...]) -> Completion:
    """What may be cached, stored and shown of a completion: the configured key's value never (a
    model can echo it), and at most ``max_chars`` characters (flagged ``cut``)."""
    text = redacted(c.text, secrets, bearer=False)
    if len(text) > max_chars:
        return msgspec.structs.replace(c, text=text[:max_chars], cut=True)
    return c if text == c.text else msgspec.structs.replace(c, text=text)


def stored_messages(messages: list[dict], max_chars: int, secrets: tuple[str, ...]) -> tuple[list[SentMessage], bool]:
    """The exact messages of a request as they may be stored and shown: the configured key's value
    never, and at most ``max_chars`` characters in all (and whether they were cut). A long message
    keeps its start and its end (where the question is), the middle said to be cut."""
    out = [SentMessage(str(m.get("role", "")), redacted(str(m.get("content", "")), secrets, bearer=False)) for m in messages]
    total = sum(len(m.content) for m in out)
    if total <= max_chars:
        return out, False
    cut = []
    for m in out:
        keep = max(0, max_chars * len(m.content) // total - 40)
        n = len(m.content) - keep
        cut.append(m if n <= 0 else SentMessage(
            m.role, f"{m.content[:keep // 2]}\n… [{n:,} characters cut] …\n{m.content[len(m.content) - keep // 2:]}"))
    return cut, True


# ---------------------------------------------------------------- cache


def cache_key(endpoint: str, model: str, messages: list[dict], params: dict) -> str:
    return sha256_bytes(msgspec.json.encode([endpoint, model, messages, sorted(params.items())]))


def _setup_responses(db: sqlite3.Connection) -> None:
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value BLOB NOT NULL, created REAL NOT NULL)")
    db.execute("SELECT 1 FROM responses LIMIT 1").fetchall()


class ResponseCache:
    """sqlite file; safe across threads (one lock) and processes (WAL, retries on busy)."""

    def __init__(self, path: Path, root: Path | None = None):
        self.path = path
        if root is not None:  # the project: an outside file (a symlink) never becomes our database
            checked_database(path, root)
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        from index.embedding_cache import open_sqlite  # index/ pulls numpy: not at start-up

        self._db = open_sqlite(path, _setup_responses, isolation_level=None)  # a damaged cache starts afresh

    @classmethod
    def for_state_dir(cls, state_dir: Path) -> "ResponseCache":
        return cls(state_dir / CACHE_DIR / CACHE_FILE, root=state_dir.parent)

    def get(self, key: str) -> Completion | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            return msgspec.json.decode(row[0], type=Completion)
        except msgspec.DecodeError:
            return None

    def put(self, key: str, value: Completion) -> None:
        from index.embedding_cache import disk_errors

        blob = msgspec.json.encode(value)
        with self._lock, disk_errors(self.path):  # a full disk: one message naming the file, not a traceback
            self._db.execute("INSERT OR REPLACE INTO responses VALUES (?, ?, ?)", (key, blob, time.time()))

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()


# ---------------------------------------------------------------- client


@dataclass
class CallStats:
    calls: int = 0  # requests sent over the network (retries included)
    cache_hits: int = 0
    failures: int = 0
    errors: list[str] = field(default_factory=list)


def _classify(exc: BaseException) -> tuple[str, bool]:
    """(kind, retryable) of an exception raised by the openai client."""
    import openai

    if isinstance(exc, openai.RateLimitError):
        return "rate_limit", True
    if isinstance(exc, openai.APITimeoutError) or isinstance(exc, asyncio.TimeoutError):
        return "timeout", True
    if isinstance(exc, openai.APIConnectionError):
        return "connection", True
    if isinstance(exc, openai.APIStatusError):
        code = exc.status_code
        if code >= 500 or code in (408, 409):
            return "server_error", True
        return "client_error", False
    if isinstance(exc, (openai.APIResponseValidationError, ValueError, KeyError, TypeError, AttributeError)):
        return "bad_response", True
    return "connection", True


class ChatClient:
    """Async chat completions for one configured model. ``async with`` it, or call aclose()."""

    def __init__(
        self,
        name: str,
        config: ModelConfig,
        base_url: str | Callable[[], str],
        endpoint_id: str | None = None,
        cache: ResponseCache | None = None,
        use_cache: bool = True,
        concurrency: int | None = None,
        backoff_base_s: float = 0.5,
        backoff_max_s: float = 20.0,
    ):
        self.name = name
        self.config = config
        # A callable is resolved on the first call that misses the cache: a fully cached rerun
        # never starts the embedded server.
        self._base_url = base_url
        # What identifies the endpoint in the cache key (the embedded server's port changes).
        if endpoint_id is None and not isinstance(base_url, str):
            raise ValueError("a lazily resolved base_url needs an explicit endpoint_id")
        self.endpoint_id: str = endpoint_id or str(base_url)
        self.cache = cache
        self.use_cache = use_cache
        self.semaphore = asyncio.Semaphore(concurrency or config.concurrency)
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.stats = CallStats()
        self._client: Any = None
        # the cancel hook: requests in flight, and what stops the endpoint's generation (the
        # embedded server: providers.endpoint); see cancel()
        self._requests: set[asyncio.Future] = set()
        self.on_abort: Callable[[], object] | None = None
        self.aborted = False

    def _api_key(self) -> str:
        env = self.config.api_key_env
        if not env:
            return PLACEHOLDER_KEY
        key = os.environ.get(env)
        if not key:
            raise LLMCallError("config", f"model {self.name!r}: environment variable {env} (its API key) is not set", 0)
        return key

    def _secrets(self) -> tuple[str, ...]:
        env = self.config.api_key_env
        return (os.environ.get(env, ""),) if env else ()

    @property
    def base_url(self) -> str:
        if not isinstance(self._base_url, str):
            self._base_url = self._base_url()
        return self._base_url

    def _openai(self):
        if self._client is None:
            import openai

            async def count_request(request) -> None:  # every attempt the SDK sends, retries included
                self.stats.calls += 1

            from index.http_deadline import async_transport

            self._client = openai.AsyncOpenAI(
                api_key=self._api_key(), base_url=self.base_url, timeout=self.config.timeout_s,
                max_retries=self.config.max_retries,
                # timeout_s bounds a whole attempt, not each read (a trickling endpoint is cut too)
                http_client=openai.DefaultAsyncHttpxClient(event_hooks={"request": [count_request]},
                                                           transport=async_transport(self.config.timeout_s)),
            )
        return self._client

    def cancel(self) -> int:
        """The cancel hook (call it on the client's event loop): abort every request in flight —
        its HTTP connection is closed — and make the endpoint stop generating for it (``on_abort``:
        the embedded llama.cpp server is restarted, as it would otherwise finish the answer for
        nobody). Returns how many requests were aborted."""
        pending = [r for r in self._requests if not r.done()]
        for request in pending:
            request.cancel()
        if pending and self.on_abort is not None:
            self.aborted = True
            self.on_abort()
        return len(pending)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def __aenter__(self) -> "ChatClient":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    def stored_prompt(self, messages: list[dict]) -> tuple[list[SentMessage], bool]:
        """The messages of a request, redacted and capped (max_stored_chars) like its completion."""
        return stored_messages(messages, self.config.max_stored_chars, self._secrets())

    def key(self, messages: list[dict], params: dict) -> str:
        return cache_key(self.endpoint_id, self.config.model, messages, params)

    async def complete(
        self,
        messages: list[dict],
        max_tokens: int | None = None,
        temperature: float | None = None,
        seed: int | None = None,
        extra_key: dict | None = None,
        top_logprobs: int | None = None,
    ) -> Completion:
        """One chat completion (from the cache when seen before). Raises LLMCallError.
        ``top_logprobs``: also ask for the first token's most likely alternatives (Completion.top_logprobs)."""
        params: dict = {
            "max_tokens": self.config.max_tokens if max_tokens is None else max_tokens,
            "temperature": self.config.temperature if temperature is None else temperature,
        }
        if seed is not None:
            params["seed"] = seed
        if top_logprobs:
            params["logprobs"] = True
            params["top_logprobs"] = top_logprobs
        key = self.key(messages, {**params, **(extra_key or {})})
        if self.use_cache and self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self.stats.cache_hits += 1
                # an entry of an older release may hold the key or be longer than the cap
                return msgspec.structs.replace(stored_form(hit, self.config.max_stored_chars, self._secrets()),
                                               cached=True)
        result = stored_form(await self._call_with_retries(messages, params), self.config.max_stored_chars,
                             self._secrets())
        if self.cache is not None:
            self.cache.put(key, result)
        return result

    async def _call_with_retries(self, messages: list[dict], params: dict) -> Completion:
        """The SDK retries transport faults inside one ``create``; this loop retries only
        unusable answers (bad_response), up to max_retries more times."""
        unusable = 0
        while True:
            async with self.semaphore:
                start = time.perf_counter()
                request = asyncio.ensure_future(
                    self._openai().chat.completions.create(model=self.config.model, messages=messages, **params))
                self._requests.add(request)
                try:
                    resp = await request
                    return _parse(resp, time.perf_counter() - start)
                except LLMCallError:
                    raise
                except Exception as exc:  # noqa: BLE001 - classified below
                    kind, retryable = _classify(exc)
                    # an endpoint may echo the key back in its error body: never store or show it
                    message = redacted(f"{type(exc).__name__}: {exc}", self._secrets())[:500]
                finally:
                    self._requests.discard(request)
            if kind == "bad_response" and unusable < self.config.max_retries:
                unusable += 1
                delay = min(self.backoff_max_s, self.backoff_base_s * 2 ** (unusable - 1))
                await asyncio.sleep(delay * (0.5 + random.random() / 2))
                continue
            # attempts: the SDK gave up after max_retries retries of a retryable fault
            attempts = unusable + 1 if kind == "bad_response" else (self.config.max_retries + 1 if retryable else 1)
            self.stats.failures += 1
            err = LLMCallError(kind, message, attempts)
            self.stats.errors.append(str(err))
            raise err


def _parse(resp, latency: float) -> Completion:
    """A well-formed completion or ValueError (retried as bad_response, never cached)."""
    choices = getattr(resp, "choices", None)
    if not choices:
        raise ValueError("response has no choices")
    message = choices[0].message
    text = getattr(message, "content", None)
    if not isinstance(text, str):
        raise ValueError("response message has no text content")
    usage = getattr(resp, "usage", None)
    prompt_tokens = getattr(usage, "prompt_tokens", None) if usage else None
    top = _first_token_alternatives(getattr(choices[0], "logprobs", None))
    completion_tokens = getattr(usage, "completion_tokens", None) if usage else None
    return Completion(
        text=text,
        prompt_tokens=int(prompt_tokens or 0),
        completion_tokens=int(completion_tokens or 0),
        latency_s=round(latency, 4),
        finish_reason=getattr(choices[0], "finish_reason", None),
        top_logprobs=top,
    )


def _first_token_alternatives(logprobs) -> list[TokenLogprob] | None:
    """The first generated token's top alternatives; None when the server sent none (or a shape
    that is not the OpenAI one: the text is still usable, so this is no reason to retry)."""
    content = getattr(logprobs, "content", None) if logprobs is not None else None
    if not content:
        return None
    out = []
    for alt in getattr(content[0], "top_logprobs", None) or []:
        token, logprob = getattr(alt, "token", None), getattr(alt, "logprob", None)
        if isinstance(token, str) and isinstance(logprob, (int, float)) and not isinstance(logprob, bool) \
                and math.isfinite(logprob):  # -inf (never sampled) says nothing and cannot be stored as JSON
            out.append(TokenLogprob(token, float(logprob)))
    return out or None
