"""Records of the use side, persisted under .workbench/runs/<tier>/llm/."""

from __future__ import annotations

import msgspec

from workbench.names import Stage, TaskName, Variant


class SentMessage(msgspec.Struct, frozen=True):
    """One chat message of a prompt as sent (redacted, capped: workbench.llm.client.stored_messages)."""

    role: str
    content: str


class LocalizeResult(msgspec.Struct, frozen=True):
    query_id: str
    output: str  # the model's raw text
    doc_ids: list[int]  # canonicalised (docids.extract_docids)
    out_of_tier: int
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    cached: bool = False
    cut: bool = False  # the completion was longer than max_stored_chars and is stored cut
    prompt: list[SentMessage] = []  # the exact messages sent (kept by the TUI's one-query runs)
    prompt_cut: bool = False  # the messages were longer than max_stored_chars: start and end kept
    key: str = ""  # counting.prompt_key: the model's identity and the exact messages ("" = stored before)


class QAResult(msgspec.Struct, frozen=True):
    query_id: str
    answer: str
    refusal: bool
    judge_scores: list[int]
    judge_median: float | None
    judge_spread: int | None
    judge_failures: int  # samples without a usable score
    judge_failure: bool  # no usable score at all: excluded from the QA mean, counted apart
    exact: bool | None  # normalised exact match; None when the gold answer is not short
    contains: bool | None
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    context_doc_ids: list[int]  # documents given, in prompt order
    dropped_doc_ids: list[int] = []  # cut to fit the window (padding, never gold/hard negatives)
    judge_raw: list[str] = []
    judge_prompt_tokens: int = 0
    judge_completion_tokens: int = 0
    cached: bool = False
    judged: bool = False  # answers are all produced first (keeps the server's prefix cache warm), then judged
    cut: bool = False  # the answer was longer than max_stored_chars and is stored cut
    prompt: list[SentMessage] = []  # the exact messages sent (kept by the TUI's one-query runs)
    prompt_cut: bool = False  # the messages were longer than max_stored_chars: start and end kept
    key: str = ""  # counting.prompt_key: the model's identity and the exact messages ("" = stored before)
    judge_key: str = ""  # counting.judge_key: the judge's identity and what it saw besides the answer


class QueryFailure(msgspec.Struct, frozen=True):
    query_id: str
    stage: Stage
    error: str


class TierRun(msgspec.Struct, frozen=True):
    """One (model, task, tier): written after every query so an interrupted run resumes."""

    system: str  # model:<name>:localize | :qa | :qa-strict | :oracle | :rag:<retriever>@<k>
    model: str
    task: TaskName  # a name of workbench.names.TASKS
    variant: Variant
    tier: str
    tier_hash: str
    key: str
    fits: bool
    input_tokens: int  # largest prompt (budgeting tokenizer) + answer budget
    budget_tokens: int  # usable window: context_window × (1 − safety_margin)
    judge: str | None = None
    k: int = 10  # DocIDs asked for (localize) / documents given (rag)
    reason: str = ""  # why it does not fit, when it does not
    localize: list[LocalizeResult] = []
    qa: list[QAResult] = []
    failures: list[QueryFailure] = []
    complete: bool = False
    seed: int | None = None  # of the context's document order; None: stored before it was (the CLI's default, the ladder seed)
    docs_hash: str = ""  # runs.tier_docs_hash: current while the tier's documents are ("" = by tier_hash, as before)
    # queries whose stored results no longer matched their prompt (or judge) when this run was
    # made, and were run again: what an edit invalidated (counting.invalidation_note says it)
    invalidated: list[str] = []
    shared: bool = False  # assembled from other tiers' runs (an oracle answer is the same on every tier)
