"""Every prompt the use side sends. Changing one changes PROMPT_VERSION, which is part of
every run key (so stored results made with an older prompt are stale, never mixed in)."""

from __future__ import annotations

import re

from workbench.names import VARIANTS  # standard | strict (anti-hallucination)

PROMPT_VERSION = "p2"

_DOCS_SYSTEM = (
    "You are given a collection of documents. Each document starts with a header "
    "[DocID=<number>] followed by its title and text."
)

LOCALIZE_SYSTEM = _DOCS_SYSTEM + " Your task is to find the documents that contain the evidence needed to answer a question."
QA_SYSTEM = _DOCS_SYSTEM + " Answer the question using the documents."
STRICT_RULE = "If the answer is not in the documents, say you do not know."


def localize_messages(context: str, query: str, k: int) -> list[dict]:
    user = (
        f"Documents:\n\n{context}\n\n"
        f"Question: {query}\n\n"
        f"List the DocIDs of up to {k} documents that contain the evidence needed to answer the question, "
        "most relevant first. Output only the DocID numbers, separated by commas."
    )
    return [{"role": "system", "content": LOCALIZE_SYSTEM}, {"role": "user", "content": user}]


def qa_messages(context: str, query: str, variant: str = "standard") -> list[dict]:
    if variant not in VARIANTS:
        raise ValueError(f"unknown prompt variant {variant!r}; known: {list(VARIANTS)}")
    rule = f" {STRICT_RULE}" if variant == "strict" else ""
    user = (
        f"Documents:\n\n{context}\n\n"
        f"Question: {query}\n\n"
        f"Answer the question in a few words.{rule}"
    )
    system = QA_SYSTEM + (f" {STRICT_RULE}" if variant == "strict" else "")
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


SWEEP_PROMPT_VERSION = "s1"  # part of every sweep's spec (with PROMPT_VERSION)


def sweep_qa_messages(context: str, query: str, variant: str = "standard") -> list[dict]:
    """QA for sweeps: the strict rule comes only at the very end, after the documents and question.

    So the two prompts of a placement sweep differ in nothing but that last sentence — one confound
    fewer than a different system prompt — and share the whole context as a prefix, which an inference
    server caches. The standard variant is exactly ``qa_messages(..., "standard")``."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown prompt variant {variant!r}; known: {list(VARIANTS)}")
    messages = qa_messages(context, query, "standard")
    if variant == "strict":
        messages[-1] = {**messages[-1], "content": f"{messages[-1]['content']} {STRICT_RULE}"}
    return messages


JUDGE_SYSTEM = "You grade answers to questions. You are strict, brief and consistent."

JUDGE_RUBRIC = """Score the predicted answer against the gold answer on this scale:
5 - fully correct: same meaning as the gold answer
4 - correct but with minor extra or missing detail
3 - partially correct: the key fact is there but with an error or important omission
2 - mostly wrong, with some relevant correct element
1 - wrong, but on topic
0 - wrong, irrelevant, empty, or a refusal to answer"""


JUDGE_EXAMPLES = (
    "Example 1:\nQuestion: Who wrote Hamlet?\nGold answer: William Shakespeare\n"
    "Predicted answer: Shakespeare wrote it.\nScore: 5\n\n"
    "Example 2:\nQuestion: Who wrote Hamlet?\nGold answer: William Shakespeare\n"
    "Predicted answer: Charles Dickens\nScore: 0\n\n"
)


def judge_messages(query: str, gold: str, predicted: str) -> list[dict]:
    """The judge sees only {query, gold answer, predicted answer} — never the tier, arm or system.

    Two worked examples fix the output format (small local judges follow examples, not rules)."""
    user = (
        f"{JUDGE_RUBRIC}\n\n{JUDGE_EXAMPLES}"
        "Now grade this one. Reply only with 'Score: <0-5>'.\n"
        f"Question: {query}\n"
        f"Gold answer: {gold}\n"
        f"Predicted answer: {predicted}"
    )
    return [{"role": "system", "content": JUDGE_SYSTEM}, {"role": "user", "content": user}]


_REFUSAL = re.compile(
    r"\b(i\s+(do\s+not|don't|dont|cannot|can't|am\s+unable\s+to)\s+(know|answer|find|tell|determine)"
    r"|(do\s+not|don't|doesn't|does\s+not)\s+(contain|mention|provide|say|include)"
    r"|not\s+(mentioned|found|provided|stated|specified|available|given)\s+in"
    r"|(is|are)\s+not\s+in\s+the\s+(documents?|text|context)"
    r"|no\s+information\s+(about|on|regarding)"
    r"|(unable|impossible)\s+to\s+(answer|determine)"
    r"|unknown|cannot\s+be\s+determined|not\s+enough\s+information)\b",
    re.IGNORECASE,
)


def is_refusal(answer: str) -> bool:
    """The model declined to answer ("I do not know", "not in the documents", …).

    Refusals are counted separately from wrong answers (faithfulness vs safety tax)."""
    return bool(_REFUSAL.search(answer or ""))
