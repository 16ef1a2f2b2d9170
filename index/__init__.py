"""Retrieval indexes: Tantivy BM25, USearch dense, embedders, embedding cache.

Imports nothing of ours (``workbench``/``screens``) and nothing heavy at import time: torch and
sentence-transformers load on first use of :class:`SentenceTransformerEmbedder`.
"""

from .bm25_reference import ReferenceBM25
from .dense import DenseIndex
from .embedders import (
    Embedder,
    EmbedderError,
    OpenAIEmbedder,
    SentenceTransformerEmbedder,
    make_embedder,
)
from .embedding_cache import EmbeddingCache, embed_with_cache
from .sparse import SparseIndex

__all__ = [
    "SparseIndex",
    "DenseIndex",
    "ReferenceBM25",
    "Embedder",
    "EmbedderError",
    "SentenceTransformerEmbedder",
    "OpenAIEmbedder",
    "make_embedder",
    "EmbeddingCache",
    "embed_with_cache",
]
