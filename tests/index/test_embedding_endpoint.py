"""The OpenAI-compatible embedding client: base64 vectors (decoded with np.frombuffer), float
lists from servers that ignore or refuse the format, concurrent batches in input order; and the
cache's compact layout, texts sorted by length before batching."""

from __future__ import annotations

import sqlite3
import threading

import numpy as np
import pytest

from index import embedding_cache
from index.embedders import OpenAIEmbedder
from index.embedding_cache import EmbeddingCache, embed_with_cache, text_key
from support.fault_server import EMBEDDING_DIMS, FaultServer, embedding_vector

TEXTS = [f"text number {i}" + " padding" * (i % 3) for i in range(12)]


def _expected(texts: list[str]) -> np.ndarray:
    mat = np.asarray([embedding_vector(t) for t in texts], dtype=np.float32)
    return mat / np.linalg.norm(mat, axis=1, keepdims=True)


@pytest.fixture
def server():
    with FaultServer() as s:
        yield s


def _embedder(server: FaultServer, **kw) -> OpenAIEmbedder:
    return OpenAIEmbedder("e", server.base_url, max_retries=0, **kw)


def test_vectors_are_asked_for_as_base64_and_decoded(server):
    vecs = _embedder(server, batch_size=5).embed(TEXTS)
    assert [r["encoding_format"] for r in server.requests] == ["base64"] * 3
    np.testing.assert_array_equal(vecs, _expected(TEXTS))


def test_a_server_that_ignores_base64_is_read_as_float_lists(server):
    server.embeddings_ignore_format = True
    emb = _embedder(server, batch_size=5)
    vecs = emb.embed(TEXTS)
    assert server.requests[0]["encoding_format"] == "base64" and emb.dims == EMBEDDING_DIMS
    np.testing.assert_array_equal(vecs, _expected(TEXTS))


def test_a_server_that_refuses_base64_is_asked_for_floats_from_then_on(server):
    server.script = [("error", 400, "encoding_format 'base64' is not supported")]
    emb = _embedder(server, batch_size=20)
    vecs = emb.embed(TEXTS)
    np.testing.assert_array_equal(vecs, _expected(TEXTS))
    emb.embed(["another"])
    assert [r["encoding_format"] for r in server.requests] == ["base64", "float", "float"]


def test_other_bad_requests_are_not_retried_as_floats(server):
    import openai

    server.script = [("error", 400, "input too long")]
    with pytest.raises(openai.BadRequestError):
        _embedder(server).embed(["x"])
    assert len(server.requests) == 1


def test_a_malformed_base64_vector_is_a_clear_error(server, monkeypatch):
    monkeypatch.setattr(server, "_embeddings", lambda req: b'{"data": [{"index": 0, "embedding": "AAAA!"}]}')
    from index import EmbedderError

    with pytest.raises(EmbedderError, match="neither base64 nor a list"):
        _embedder(server).embed(["x"])


def test_batches_are_sent_concurrently_and_come_back_in_order(server):
    server.default = "hold"
    emb = _embedder(server, batch_size=2, concurrency=3)
    out: dict[str, np.ndarray] = {}
    worker = threading.Thread(target=lambda: out.setdefault("v", emb.embed(TEXTS)))
    worker.start()
    while True:  # wait for the event (three requests held at once), not for a time
        with server.lock:
            if server.in_flight >= 3:
                break
        worker.join(0.01)
        assert worker.is_alive()
    assert server.max_in_flight == 3  # no more than the concurrency
    server.release()
    worker.join()
    np.testing.assert_array_equal(out["v"], _expected(TEXTS))
    assert len(server.requests) == 6 and emb.block_size == 2 * 3 * 2


class Recording:
    name, dims = "rec", 2

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def embed(self, texts):
        self.batches.append(list(texts))
        return np.ones((len(texts), 2), dtype=np.float32)


def test_misses_are_sorted_by_length_before_batching(tmp_path, monkeypatch):
    monkeypatch.setattr(embedding_cache, "EMBED_BATCH", 3)
    texts = ["x" * n for n in (9, 1, 7, 3, 8, 2, 5)]
    emb = Recording()
    with EmbeddingCache(tmp_path / "c.sqlite", "rec", 2) as cache:
        embed_with_cache(emb, cache, texts)
    assert emb.batches == [["x", "xx", "xxx"], ["x" * 5, "x" * 7, "x" * 8], ["x" * 9]]


def _first_layout(path, rows):
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE vectors (ns TEXT NOT NULL, key TEXT NOT NULL, vec BLOB NOT NULL,"
                 " PRIMARY KEY (ns, key)) WITHOUT ROWID")
    conn.executemany("INSERT INTO vectors VALUES (?, ?, ?)", rows)
    conn.commit()
    conn.close()


def test_a_cache_in_the_first_layout_is_migrated_in_place(tmp_path):
    path = tmp_path / "old.sqlite"
    vecs = {t: np.arange(4, dtype=np.float32) + i for i, t in enumerate(["a", "b", "c"])}
    _first_layout(path, [("m|4", text_key(t), v.tobytes()) for t, v in vecs.items()]
                  + [("other|4", text_key("a"), np.zeros(4, np.float32).tobytes())])
    with EmbeddingCache(path, "m", 4) as cache:
        got = cache.get_many([text_key(t) for t in vecs])
        assert len(cache) == 3
    assert {k: v.tolist() for k, v in got.items()} == {text_key(t): v.tolist() for t, v in vecs.items()}
    conn = sqlite3.connect(path)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "vectors" not in tables and conn.execute("SELECT COUNT(*) FROM chunk_vectors").fetchone() == (4,)
    conn.close()
    with EmbeddingCache(path, "other", 4) as cache:  # other namespaces came along
        assert len(cache) == 1


def test_the_cache_holds_a_384_d_vector_in_little_more_than_its_bytes(tmp_path):
    n, dims = 2000, 384
    rng = np.random.default_rng(0)
    with EmbeddingCache(tmp_path / "c.sqlite", "m", dims) as cache:
        cache.put_many({text_key(str(i)): rng.standard_normal(dims).astype(np.float32) for i in range(n)})
        cache._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    per_vector = (tmp_path / "c.sqlite").stat().st_size / n
    assert per_vector < 1.5 * dims * 4, per_vector  # the first layout: 4.7 KB a 1.5 KB vector
