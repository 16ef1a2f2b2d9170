"""Issue 20 item 3 (vectors): a NaN vector from an endpoint is refused, one in the cache is a
damaged entry that is embedded again — never indexed."""

from __future__ import annotations

import numpy as np
import pytest

from index.embedding_cache import EmbeddingCache, NonFiniteVectors, embed_with_cache, text_key


class Embedder:
    name, dims = "fake", 3

    def __init__(self, poison: bool = False):
        self.poison = poison
        self.seen: list[str] = []

    def embed(self, texts):
        self.seen += texts
        out = np.ones((len(texts), self.dims), dtype=np.float32)
        if self.poison:
            out[0, 1] = np.nan
        return out


def test_nan_vectors_from_the_embedder_are_refused_and_not_cached(tmp_path):
    with EmbeddingCache(tmp_path / "c.sqlite", "fake", 3) as cache:
        with pytest.raises(NonFiniteVectors, match="NaN or infinite"):
            embed_with_cache(Embedder(poison=True), cache, ["a", "b"])
        assert len(cache) == 0


def test_a_nan_vector_in_the_cache_is_embedded_again(tmp_path, caplog):
    with EmbeddingCache(tmp_path / "c.sqlite", "fake", 3) as cache:
        # a damaged entry, as a torn write or another tool would leave it
        cache._put_rows([(text_key("a"), np.array([1, np.nan, 0], np.float32).tobytes())])
        emb = Embedder()
        vecs = embed_with_cache(emb, cache, ["a", "b"])
    assert emb.seen == ["a", "b"] and np.isfinite(vecs).all()
    assert any("damaged cached vector" in r.getMessage() for r in caplog.records)


def test_the_project_index_says_which_endpoint_gave_nan(tiny_project):
    from workbench.access.indexing import embed_pool
    from workbench.errors import ExternalError
    from workbench.project.load import load_project

    class Chunking(Embedder):
        def chunk(self, text, tokens, overlap):
            return [text]

    with pytest.raises(ExternalError, match="NaN or infinite"):
        embed_pool(load_project(tiny_project), [1, 2], embedder=Chunking(poison=True))


def test_the_embedding_timeout_is_a_deadline_per_attempt_not_per_read(fault_server):
    """Issue 20 item 4 for the embedding client: an endpoint trickling one byte at a time is cut."""
    import openai

    from index.embedders import OpenAIEmbedder

    fault_server.script = [("trickle", 0.2)]  # ~300 bytes at 5 bytes/s; every read is quick
    emb = OpenAIEmbedder("e", fault_server.base_url, timeout=1.0, max_retries=0)
    with pytest.raises(openai.APITimeoutError):
        emb.embed(["a"])
    assert fault_server.disconnected.wait(10)  # the client gave the connection up
