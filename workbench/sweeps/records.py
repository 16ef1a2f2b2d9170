"""Typed records of a sweep: its spec (what identifies it), its arms, and stored results."""

from __future__ import annotations

from typing import Literal, get_args

import msgspec

SweepKind = Literal["volume", "depth", "distribution"]
SWEEP_KINDS: tuple[SweepKind, ...] = get_args(SweepKind)


def sweep_kind(kind: str) -> SweepKind:
    """``kind`` as a SweepKind; ValueError for anything else."""
    for k in SWEEP_KINDS:
        if k == kind:
            return k
    raise ValueError(f"unknown sweep kind {kind!r} (expected one of {', '.join(SWEEP_KINDS)})")

Family = Literal["needle", "single-hop", "two-hop", "two-hop-gold"]
QuestionType = Literal["literal", "inference", "absent"]
Variant = Literal["standard", "strict"]


class SweepSpec(msgspec.Struct, frozen=True):
    """Everything that changes a sweep's inputs or outputs; its hash is the sweep id."""

    kind: SweepKind
    model: str
    model_identity: list  # what changes the model's outputs (name, endpoint, window, …)
    judge: str
    judge_identity: list
    prompt_version: str
    corpus_hash: str
    seed: int
    max_tokens: int  # the fixed answer budget
    lengths: list[int]  # total input tokens (prompt + context), budgeting tokenizer
    repeats: int = 1
    cases: int = 4  # per family (volume) / planted questions (depth)
    families: list[str] = []  # volume
    variants: list[str] = msgspec.field(default_factory=lambda: ["standard"])
    depths: list[float] = []  # depth (Protocol A)
    distributions: list[str] = []  # distribution (Protocol B)
    n_facts: int = 10
    n_absent: int = 5
    judge_samples: int = 1


class Arm(msgspec.Struct, frozen=True):
    """One model call's input, described well enough to rebuild it (``seed`` drives every choice)."""

    arm_id: str
    seed: int
    question: str
    gold: str
    family: str = ""  # volume: needle / single-hop / two-hop / two-hop-gold; placement: the question type
    case_id: str = ""  # the query or fact behind the question
    length: int = 0  # target total input tokens
    repeat: int = 0
    variant: str = "standard"
    depth: float | None = None  # depth (Protocol A)
    distribution: str = ""  # Protocol B
    context_key: str = ""  # arms sharing a context run one after another (the server caches the prefix)


class ArmInput(msgspec.Struct, frozen=True):
    """What was actually sent (recorded with the result; rebuilt identically from the arm)."""

    messages: list[dict]
    input_tokens: int
    context_doc_ids: list[int]
    evidence_depths: list[float]  # token depth (0 = start, 1 = end) of each gold passage / planted fact


class ArmResult(msgspec.Struct, frozen=True):
    arm_id: str
    answer: str
    match: bool  # deterministic match (contains, or the number of a numeric gold answer)
    refusal: bool
    input_tokens: int
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    context_doc_ids: list[int]
    evidence_depths: list[float]
    cached: bool = False


class Judgement(msgspec.Struct, frozen=True):
    arm_id: str
    scores: list[int]
    median: float | None


class SweepMeta(msgspec.Struct, frozen=True):
    sweep_id: str
    spec: SweepSpec
    created: float
    arms: int
    calibration: str = ""  # the judge's verdict text
    judge_trusted: bool = False
    wall_s: float = 0.0  # summed over every (resumed) session of this sweep
