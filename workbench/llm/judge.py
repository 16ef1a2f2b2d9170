"""LLM judge (0–5). The deterministic matches shown beside it (exact, contains, token F1) and the
decision of what counts as right live in workbench/correctness.py.

N judge samples per answer: the first greedy (temperature 0), the others sampled at
SAMPLE_TEMPERATURE with their own seeds so they can differ; the median is kept and the spread (max − min) reported. An unparseable judge output is retried
with a new seed; a sample still unparseable is a judge failure, never a score. If every
sample fails, the answer has no judge score (``median`` None, ``failure`` True).

A judge call that fails after the client's retries is a different outcome, ``JudgeUnavailable``:
no verdict at all (the endpoint is down), which the caller records as a failed query and retries
on the next run — never a score, never an unparseable reply.
"""

from __future__ import annotations

import re
from statistics import median

import msgspec

from workbench.llm.client import ChatClient, LLMCallError
from workbench.llm.prompts import judge_messages

JUDGE_MAX_TOKENS = 16
SAMPLE_TEMPERATURE = 0.3

_SCORE_LABELLED = re.compile(r"score\s*(?:is|=|:)?\s*\**\s*([0-5])(?:\s*/\s*5)?\b(?!\.\d)", re.IGNORECASE)
_SCORE_FRACTION = re.compile(r"\b([0-5])\s*/\s*5\b")
_SCORE_ALONE = re.compile(r"^\W*([0-5])\W*$")


def parse_score(text: str) -> int | None:
    """An integer 0–5 from the judge's reply, or None if it is not clearly one."""
    text = (text or "").strip()
    if not text:
        return None
    m = _SCORE_LABELLED.search(text)
    if m:
        return int(m.group(1))
    m = _SCORE_FRACTION.search(text)
    if m:
        return int(m.group(1))
    first = text.splitlines()[0]
    m = _SCORE_ALONE.match(first)
    if m:
        return int(m.group(1))
    return None


class JudgeResult(msgspec.Struct, frozen=True):
    scores: list[int]
    median: float | None
    spread: int | None
    failures: int  # samples that stayed unparseable or whose calls failed
    failure: bool  # no usable sample at all
    raw: list[str] = []
    prompt_tokens: int = 0
    completion_tokens: int = 0


class JudgeUnavailable(msgspec.Struct, frozen=True):
    """A judge call failed after all retries (see module doc)."""

    error: str  # the LLMCallError's text
    kind: str  # its kind: rate_limit, server_error, timeout, connection, …


async def judge_answer(
    client: ChatClient,
    query: str,
    gold: str,
    predicted: str,
    samples: int = 3,
    parse_retries: int = 2,
) -> JudgeResult | JudgeUnavailable:
    messages = judge_messages(query, gold, predicted)
    scores: list[int] = []
    raw: list[str] = []
    failures = 0
    pt = ct = 0
    for i in range(samples):
        score = None
        for attempt in range(parse_retries + 1):
            temperature = 0.0 if i == 0 and attempt == 0 else SAMPLE_TEMPERATURE
            try:
                c = await client.complete(
                    messages, max_tokens=JUDGE_MAX_TOKENS, temperature=temperature,
                    seed=1000 * i + attempt, extra_key={"judge_sample": i, "judge_attempt": attempt},
                )
            except LLMCallError as exc:
                return JudgeUnavailable(str(exc), exc.kind)
            pt += c.prompt_tokens
            ct += c.completion_tokens
            raw.append(c.text)
            score = parse_score(c.text)
            if score is not None:
                break
        if score is None:
            failures += 1
        else:
            scores.append(score)
    return JudgeResult(
        scores=scores,
        median=float(median(scores)) if scores else None,
        spread=(max(scores) - min(scores)) if scores else None,
        failures=failures,
        failure=not scores,
        raw=raw,
        prompt_tokens=pt,
        completion_tokens=ct,
    )
