"""One definition of "this answer is right", used by the diagnosis, the sweeps, import-answers
and the TUI: the judge's threshold, the deterministic matches and the decision between them.

The judge scores 0–5 on the rubric of workbench/llm/prompts.py; a score counts as right from
JUDGE_CORRECT = 3, "partially correct: the key fact is there". The workbench asks whether the
evidence reached the answer (was it found, was it used), and a 3 says the key fact did; 4 and 5
grade the wording around it. The sweeps, whose questions each ask for one planted fact, use the
same threshold. The judge decides only when it passed its calibration; otherwise the
deterministic match does:

  judge trusted (passed calibration) and scored   correct ⇔ median judge score ≥ JUDGE_CORRECT
  otherwise, gold answer short (≤ 6 words)         correct ⇔ the normalised answer contains the gold
  otherwise (a long gold answer)                   correct ⇔ token F1 ≥ F1_PASS
  a refusal is never correct.

The sweeps' planted facts are short and often numeric, so their deterministic match also accepts
the one number of a gold answer like "4 weeks" stated in other words (answer_match), and a
refusal is right exactly when the fact is absent (faithfulness; sweep_correct).
"""

from __future__ import annotations

import re
import string
from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.records import Query

JUDGE_CORRECT = 3.0  # a trusted judge's median at or above this counts as right ("the key fact is there")
F1_PASS = 0.5  # token F1 from which a long gold answer counts as matched
SHORT_ANSWER_TOKENS = 6  # EM/contains decide only for gold answers this short (in words)

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans({c: " " for c in string.punctuation})


def normalize(text: str) -> str:
    """SQuAD-style: lowercase, punctuation to spaces, drop articles, collapse whitespace."""
    text = (text or "").lower().translate(_PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(predicted: str, gold: str) -> bool:
    return normalize(predicted) == normalize(gold)


def contains_match(predicted: str, gold: str) -> bool:
    g, p = normalize(gold), normalize(predicted)
    return bool(g) and f" {g} " in f" {p} "


def token_f1(predicted: str, gold: str) -> float:
    """SQuAD token F1 over normalised words (multiset overlap); 0.0 when either side is empty."""
    p, g = normalize(predicted).split(), normalize(gold).split()
    common = sum((Counter(p) & Counter(g)).values())
    if not p or not g or not common:
        return 0.0
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)


def short_answer(gold: str) -> bool:
    return 0 < len(normalize(gold).split()) <= SHORT_ANSWER_TOKENS


def trust_line(trusted: bool | None, judge: str | None) -> str:
    if judge is None:
        return "no judge"
    if trusted is None:
        return f"judge {judge} not calibrated yet"
    return f"judge {judge} passed calibration" if trusted else f"judge {judge} failed calibration"


def decide_answer(query: Query, answer: str, refusal: bool, judge_score: float | None, trusted: bool | None, judge: str | None) -> tuple[bool, bool, bool, float, str]:
    """(correct, exact, contains, f1, basis) for one answer of the diagnosis (the rule above)."""
    exact = exact_match(answer, query.answer)
    contains = contains_match(answer, query.answer)
    f1 = token_f1(answer, query.answer)
    if refusal:
        return False, exact, contains, f1, "the model refused to answer"
    if trusted and judge_score is not None:
        ok = judge_score >= JUDGE_CORRECT
        return ok, exact, contains, f1, f"judge {judge_score:g}/5 {'≥' if ok else '<'} {JUDGE_CORRECT:g} ({trust_line(trusted, judge)})"
    why = trust_line(trusted, judge) if judge_score is not None or judge else "no judge score"
    if short_answer(query.answer):
        ok = contains
        det = "the answer contains the gold answer" if ok else "the answer does not contain the gold answer"
    else:
        ok = f1 >= F1_PASS
        det = f"token F1 {f1:.2f} {'≥' if ok else '<'} {F1_PASS}"
    return ok, exact, contains, f1, f"{det} ({why}: decided on the deterministic match)"


# ---------------------------------------------------------------- sweeps

_NUMBER = re.compile(r"(?<![\d.])\d[\d,]*(?:\.\d+)?(?![\d])")


def _numbers(text: str) -> list[str]:
    return [n.replace(",", "").rstrip(".") for n in _NUMBER.findall(text or "")]


def answer_match(predicted: str, gold: str) -> bool:
    """The gold answer is in the prediction (normalised), or — for a gold answer that is one number
    with at most one word of unit ("4 weeks", "$750", "2.1%") — that number is stated."""
    if contains_match(predicted, gold):
        return True
    nums = _numbers(gold)
    words = [w for w in normalize(_NUMBER.sub(" ", gold)).split()]
    if len(nums) == 1 and len(words) <= 1:
        return nums[0] in _numbers(predicted)
    return False


def sweep_correct(match: bool, refusal: bool, absent: bool, judge_median: float | None, judge_trusted: bool) -> bool:
    """Absent-fact questions: correct = refused (faithfulness). Otherwise the trusted judge decides,
    else the deterministic match; a refusal of an answerable question is never correct."""
    if absent:
        return refusal
    if refusal and not match:
        return False
    if judge_trusted and judge_median is not None:
        return judge_median >= JUDGE_CORRECT
    return match
