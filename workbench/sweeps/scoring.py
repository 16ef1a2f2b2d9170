"""How a sweep answer is scored: the deterministic match, or a judge that passed calibration."""

from __future__ import annotations

import re

from workbench.llm.judge import contains_match, normalize

_NUMBER = re.compile(r"(?<![\d.])\d[\d,]*(?:\.\d+)?(?![\d])")
JUDGE_CORRECT = 4.0  # a trusted judge's median at or above this counts as correct


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


def is_correct(match: bool, refusal: bool, absent: bool, judge_median: float | None, judge_trusted: bool) -> bool:
    """Absent-fact questions: correct = refused (faithfulness). Otherwise the trusted judge decides,
    else the deterministic match; a refusal of an answerable question is never correct."""
    if absent:
        return refusal
    if refusal and not match:
        return False
    if judge_trusted and judge_median is not None:
        return judge_median >= JUDGE_CORRECT
    return match
