"""One model call per candidate: HARD_NEGATIVE, CONFLICT or FALSE_NEGATIVE, and one sentence why.

The model sees (query, answer, gold documents, candidate). Its reply is parsed strictly: a line
must begin with a label (markdown emphasis and a "Label:" prefix allowed), followed by a reason
on the same line or the next; the first such line counts, and lines beginning with different
labels make the reply garbage. A label naming both HARD_NEGATIVE and
FALSE_NEGATIVE ("HARD_NEGATIVE/FALSE_NEGATIVE: …") is ambiguous and becomes FALSE_NEGATIVE
(docs/METHOD.md §1). Anything else is garbage: retried with a new seed, and after the last attempt the
candidate is UNVERIFIED — never guessed. A call that fails (network, server) is recorded with
``error`` set and is retried on the next run.
"""

from __future__ import annotations

import re
from typing import Literal

import msgspec

from workbench.llm.client import ChatClient, LLMCallError
from workbench.records import Document, Query

# Part of every collide run key and of the version's provenance: bump when the prompt changes.
PROMPT_VERSION = "c1"
LABELS = ("HARD_NEGATIVE", "CONFLICT", "FALSE_NEGATIVE")
Verdict = Literal["HARD_NEGATIVE", "CONFLICT", "FALSE_NEGATIVE", "UNVERIFIED"]
MAX_DOC_CHARS = 1500  # per document in the prompt: keeps every prompt well inside small windows
VERIFY_MAX_TOKENS = 40  # a label and one sentence; a longer reply is cut, and parsed up to there
RETRY_TEMPERATURE = 0.3

SYSTEM = "You label search results for a question-answering benchmark. You reply with one line: LABEL: reason."
# Worked examples fix the output format: small local models follow examples, not rules.
INSTRUCTIONS = (
    "Labels:\n"
    "HARD_NEGATIVE - the candidate looks like the gold documents but does not give the answer "
    "(another entity, year, product or number).\n"
    "FALSE_NEGATIVE - the candidate also gives the answer. If unsure between HARD_NEGATIVE and FALSE_NEGATIVE, "
    "choose FALSE_NEGATIVE.\n"
    "CONFLICT - the candidate contradicts the answer for the very same thing the question asks about.\n\n"
    "Example 1. Question: What rate did Alba Bank pay in 2020? Answer: 2.1%\n"
    "Candidate: Alba Bank paid 3.0% in 2019.\n"
    "HARD_NEGATIVE: It gives the 2019 rate, not the 2020 rate.\n\n"
    "Example 2. Question: What rate did Alba Bank pay in 2020? Answer: 2.1%\n"
    "Candidate: In 2020 Alba Bank's savers earned 2.1%.\n"
    "FALSE_NEGATIVE: It also states the 2020 rate of 2.1%.\n\n"
    "Example 3. Question: What rate did Alba Bank pay in 2020? Answer: 2.1%\n"
    "Candidate: Alba Bank paid 5.0% in 2020.\n"
    "CONFLICT: It gives a different 2020 rate for the same bank."
)


class Verification(msgspec.Struct, frozen=True, omit_defaults=True):
    query_id: str
    doc_id: int
    verdict: Verdict
    reason: str = ""
    ambiguous: bool = False  # named both HARD_NEGATIVE and FALSE_NEGATIVE: made FALSE_NEGATIVE
    attempts: int = 0
    raw: list[str] = []  # every reply, in order
    error: str = ""  # the call failed (not the parse): retried on the next run


def _doc_block(doc: Document) -> str:
    text = doc.text if len(doc.text) <= MAX_DOC_CHARS else doc.text[:MAX_DOC_CHARS] + " …"
    return f"[DocID={doc.doc_id}] {doc.title}\n{text}"


def verify_messages(query: Query, gold: list[Document], candidate: Document) -> list[dict]:
    """The per-query part (question, answer, gold) comes first, so an inference server serves a
    query's later candidates from its prompt-prefix cache; the examples sit right before the
    candidate, the pattern a small model continues."""
    gold_text = "\n\n".join(_doc_block(d) for d in gold)
    user = (
        f"Question: {query.query} Answer: {query.answer}\n"
        f"Gold documents:\n{gold_text}\n\n"
        f"Label the candidate document below against this question and answer.\n{INSTRUCTIONS}\n\n"
        f"Candidate: {_doc_block(candidate)}\n"
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


_LABEL = r"(HARD[ _-]?NEGATIVE|FALSE[ _-]?NEGATIVE|CONFLICT)"
_HEAD = re.compile(
    r"^[\s*_#>`-]*(?:label\s*[:=]\s*)?[*_`]*" + _LABEL + r"[*_`]*"
    r"(?:\s*(?:/|,|\bor\b|\band\b)\s*[*_`]*" + _LABEL + r"[*_`]*)?"
    r"\s*(?:[:\-–—.]\s*|$)(.*)$",
    re.IGNORECASE,
)


def _canonical(label: str) -> str:
    return re.sub(r"[ _-]?", "", label.upper()).replace("NEGATIVE", "_NEGATIVE")


def parse_verdict(text: str) -> tuple[str, str, bool] | None:
    """(label, reason, ambiguous) from a reply, or None when it is not clearly one."""
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    heads = [(i, m) for i, m in ((i, _HEAD.match(ln)) for i, ln in enumerate(lines)) if m]
    if not heads:
        return None
    if len({_canonical(m.group(1)) for _, m in heads}) > 1:
        return None  # several lines with different labels: not one decision
    at, m = heads[0]
    lines = lines[at:]
    first, second, rest = _canonical(m.group(1)), m.group(2), m.group(3).strip()
    labels = {first} | ({_canonical(second)} if second else set())
    if len(labels) == 2:
        if labels != {"HARD_NEGATIVE", "FALSE_NEGATIVE"}:
            return None  # CONFLICT beside another label: not a decision
        label, ambiguous = "FALSE_NEGATIVE", True
    else:
        label, ambiguous = first, False
    reason = rest or (lines[1] if len(lines) > 1 else "")
    reason = reason.strip(" *_`\"'")
    # one sentence: up to the first sentence end
    sentence = re.split(r"(?<=[.!?])\s", reason, maxsplit=1)[0].strip()
    if len(sentence.split()) < 2 or _HEAD.match(sentence):
        return None  # a label without a reason (or a second label) is not the asked-for line
    return label, sentence, ambiguous


async def verify_candidate(
    client: ChatClient,
    query: Query,
    gold: list[Document],
    candidate: Document,
    seed: int = 0,
    parse_retries: int = 2,
) -> Verification:
    messages = verify_messages(query, gold, candidate)
    raw: list[str] = []
    for attempt in range(parse_retries + 1):
        try:
            c = await client.complete(
                messages,
                max_tokens=VERIFY_MAX_TOKENS,
                temperature=0.0 if attempt == 0 else RETRY_TEMPERATURE,
                seed=seed * 1000 + attempt,
                extra_key={"collide_attempt": attempt},
            )
        except LLMCallError as exc:
            return Verification(query.query_id, candidate.doc_id, "UNVERIFIED", attempts=attempt + 1, raw=raw, error=str(exc))
        raw.append(c.text)
        parsed = parse_verdict(c.text)
        if parsed is not None:
            label, reason, ambiguous = parsed
            return Verification(query.query_id, candidate.doc_id, label, reason, ambiguous, attempt + 1, raw)  # type: ignore[arg-type]
    return Verification(query.query_id, candidate.doc_id, "UNVERIFIED",
                        f"no parseable label after {parse_retries + 1} attempts", attempts=parse_retries + 1, raw=raw)
