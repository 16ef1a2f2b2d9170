"""One definition of "this answer is right", used by the diagnosis, the sweeps, import-answers
and the TUI: the judge's threshold, the deterministic rules and the decision between them.

The judge scores 0–5 on the rubric of workbench/llm/prompts.py; a score counts as right from
JUDGE_CORRECT = 3, "partially correct: the key fact is there". The workbench asks whether the
evidence reached the answer (was it found, was it used), and a 3 says the key fact did; 4 and 5
grade the wording around it. The sweeps, whose questions each ask for one planted fact, use the
same threshold. The judge decides only when it passed its calibration; otherwise the
deterministic rules do, first that applies (a decision is right, wrong or *undecided*):

  a refusal                                         wrong
  a comparison (the gold answer "X (A: v; B: w)"    right ⇔ it names the gold candidate and no other;
    names its candidates)                           wrong ⇔ it names another and not the gold one;
                                                    both or none named → undecided
  the gold (its canonical head, an alias) contained right
  the gold is one number with its unit              the same number stated (as a number, units agreeing)
                                                    → right; other numbers only → wrong
  a short gold answer (≤ 6 words) not contained     wrong
  otherwise (a long gold answer)                    undecided (token F1 stays a figure, not a decision)

The gold's *canonical head* is `Query.canonical_answer` when given, else the text before " (" of
a gold answer shaped "head (details)"; `Query.answer_aliases` are further accepted wordings.
A candidate is *named* when its normalised text is in the answer (a longer candidate holding a
shorter one is taken out first), or at least half of its distinctive words (those no other
candidate has) are.

The sweeps' planted facts are short and often numeric, so their deterministic match also accepts
the one number of a gold answer like "4 weeks" stated in other words (answer_match), and a
refusal is right exactly when the fact is absent (faithfulness; sweep_correct).

Whether a *document* states the gold (the unjudged documents that are likely missing gold) is
stricter, since documents state many numbers: answer_span reads a one-number gold's number whole
and with the gold's unit, any other gold on word boundaries.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from typing import TYPE_CHECKING, Literal, NamedTuple

if TYPE_CHECKING:
    from workbench.records import Query

JUDGE_CORRECT = 3.0  # a trusted judge's median at or above this counts as right ("the key fact is there")
SHORT_ANSWER_TOKENS = 6  # a gold answer (or its canonical head) this short must be contained (in words)
# The rule in one line, as the report states it
ANSWER_RULE = (
    f"judge trusted (passed calibration): correct ⇔ median judge score ≥ {JUDGE_CORRECT:g}/5; otherwise the "
    "deterministic rules: a comparison is right when it names the gold candidate and no other (both named: undecided); "
    "the gold, its canonical head or an alias contained → right; a one-number gold compared as a number with its unit; "
    f"a short gold answer (≤ {SHORT_ANSWER_TOKENS} words) not contained → wrong; a long one → undecided "
    "(token F1 is a figure, not a decision); a refusal is never correct"
)

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


Decision = Literal["right", "wrong", "undecided"]
_STOP = frozenset("of and or in on at to for by with s".split())
_COMPARISON = re.compile(r"^(?P<head>.+?)\s*\((?P<inner>[^()]*:[^()]*)\)\s*$")
_QUANTITY = re.compile(r"(?P<pre>[$€£])?\s*(?P<num>(?<![\d.])\d[\d,]*(?:\.\d+)?)(?![\d])\s*(?P<post>%|[a-z]+)?", re.IGNORECASE)


class AnswerDecision(NamedTuple):
    decision: Decision
    reason: str  # which rule decided, in words (which candidate the answer named)
    named: tuple[str, ...] = ()  # the comparison candidates the answer named


def comparison_candidates(gold: str) -> tuple[str, list[str]] | None:
    """(gold candidate, every candidate) of a comparison's gold answer "X (A: v; B: w)", X one of them."""
    m = _COMPARISON.match(gold or "")
    if m is None:
        return None
    names = [part.rsplit(":", 1)[0].strip() for part in m["inner"].split(";") if ":" in part]
    head = m["head"].strip()
    if len(names) < 2 or normalize(head) not in {normalize(n) for n in names}:
        return None
    return head, names


def canonical_head(query: Query) -> str:
    """The short form of the gold answer: canonical_answer, else the head of "head (details)"."""
    if query.canonical_answer.strip():
        return query.canonical_answer
    m = re.match(r"^(.+?)\s+\(.*\)\s*$", query.answer or "")
    return m.group(1) if m else query.answer


def named_candidates(answer: str, candidates: list[str]) -> list[str]:
    """The candidates an answer names (see the module's rule), in the candidates' order."""
    text = f" {normalize(answer)} "
    named = set()
    for c in sorted(candidates, key=lambda c: -len(normalize(c))):  # "band of horses" before "band"
        n = normalize(c)
        if n and f" {n} " in text:
            named.add(c)
            text = text.replace(f" {n} ", " | ")
    words = set(text.split())
    for c in candidates:
        if c in named:
            continue
        others = {w for o in candidates if o != c for w in normalize(o).split()}
        own = [w for w in dict.fromkeys(normalize(c).split()) if w not in others and w not in _STOP]
        if own and sum(w in words for w in own) * 2 >= len(own):
            named.add(c)
    return [c for c in candidates if c in named]


def _quantities(text: str) -> list[tuple[float, str]]:
    out = []
    for m in _QUANTITY.finditer(text or ""):
        unit = (m["pre"] or m["post"] or "").lower()
        out.append((float(m["num"].replace(",", "")), unit[:-1] if len(unit) > 3 and unit.endswith("s") else unit))
    return out


def _one_quantity(gold: str) -> tuple[float, str] | None:
    """A gold answer that is one number with at most one word of unit ("4.0%", "$892.80", "12 days")."""
    q = _quantities(gold)
    rest = normalize(_QUANTITY.sub(" ", gold))
    return q[0] if len(q) == 1 and len(rest.split()) <= 1 else None


def _fmt(value: float, unit: str) -> str:
    return f"{value:g}{unit}" if unit in ("%", "") else (f"{unit}{value:g}" if unit in "$€£" else f"{value:g} {unit}")


def deterministic_decision(query: Query, answer: str, refusal: bool = False) -> AnswerDecision:
    """Right, wrong or undecided without a judge: the rules of this module's docstring, in order."""
    if refusal:
        return AnswerDecision("wrong", "is a refusal")
    comparison = comparison_candidates(query.answer)
    if comparison is not None:
        gold, candidates = comparison
        named = named_candidates(answer, candidates)
        others = [c for c in named if normalize(c) != normalize(gold)]
        if gold in named and not others:
            return AnswerDecision("right", f"names the gold candidate {gold!r} and no other", tuple(named))
        if others and gold not in named:
            return AnswerDecision("wrong", f"names {', '.join(map(repr, others))}, not the gold candidate {gold!r}", tuple(named))
        if named:
            return AnswerDecision("undecided", f"names both {' and '.join(map(repr, named))}: which one it chose is not decided", tuple(named))
        return AnswerDecision("undecided", f"names no candidate of {' / '.join(map(repr, candidates))}")
    head = canonical_head(query)
    for target, what in [(query.answer, "the gold answer"), (head, "the gold answer's canonical head"),
                         *((a, "the gold alias") for a in query.answer_aliases)]:
        if short_answer(target) and contains_match(answer, target):
            return AnswerDecision("right", f"contains {what} {target!r}")
    gold_q = _one_quantity(head)
    if gold_q is not None:
        stated = _quantities(answer)
        same = [q for q in stated if q[0] == gold_q[0] and (not q[1] or not gold_q[1] or q[1] == gold_q[1])]
        if same:
            return AnswerDecision("right", f"states {_fmt(*same[0])}, the gold {_fmt(*gold_q)}")
        if stated:
            return AnswerDecision("wrong", f"states {', '.join(_fmt(*q) for q in stated[:3])}, not the gold {_fmt(*gold_q)}")
    if contains_match(answer, query.answer):
        return AnswerDecision("right", "contains the gold answer")
    if short_answer(head):
        return AnswerDecision("wrong", f"does not contain the gold answer {head!r}")
    return AnswerDecision("undecided", "is matched against a long gold answer: no deterministic rule decides (token F1 is a figure, not a decision)")


class Decided(NamedTuple):
    """One answer's decision with the figures beside it."""

    decision: Decision
    exact: bool
    contains: bool
    f1: float
    basis: str  # why, in words
    named: tuple[str, ...] = ()

    @property
    def correct(self) -> bool:
        return self.decision == "right"


def decide(query: Query, answer: str, refusal: bool, judge_score: float | None, trusted: bool | None, judge: str | None) -> Decided:
    """The decision on one answer: a trusted judge's score, else the deterministic rules."""
    exact = exact_match(answer, query.answer)
    contains = contains_match(answer, query.answer)
    f1 = token_f1(answer, query.answer)
    if refusal:
        return Decided("wrong", exact, contains, f1, "the model refused to answer")
    if trusted and judge_score is not None:
        ok = judge_score >= JUDGE_CORRECT
        return Decided("right" if ok else "wrong", exact, contains, f1,
                       f"judge {judge_score:g}/5 {'≥' if ok else '<'} {JUDGE_CORRECT:g} ({trust_line(trusted, judge)})")
    why = trust_line(trusted, judge) if judge_score is not None or judge else "no judge score"
    d = deterministic_decision(query, answer)
    how = "undecided: the deterministic rule abstains" if d.decision == "undecided" else "decided on the deterministic match"
    return Decided(d.decision, exact, contains, f1, f"the answer {d.reason} ({why}: {how})", d.named)


def answer_matches(query: Query, answer: str) -> tuple[bool, bool]:
    """(exact, contains) against any accepted form of the gold: the answer, its canonical head, an alias."""
    targets = [t for t in (query.answer, canonical_head(query), *query.answer_aliases) if t.strip()]
    return any(exact_match(answer, t) for t in targets), any(contains_match(answer, t) for t in targets)


def decide_answer(query: Query, answer: str, refusal: bool, judge_score: float | None, trusted: bool | None, judge: str | None) -> tuple[bool, bool, bool, float, str]:
    """(correct, exact, contains, f1, basis): `decide` as a tuple (undecided is not correct)."""
    d = decide(query, answer, refusal, judge_score, trusted, judge)
    return d.correct, d.exact, d.contains, d.f1, d.basis


# ---------------------------------------------------------------- a document stating the gold answer

_TOKEN = re.compile(rf"[^\s{re.escape(string.punctuation)}]+")  # normalize's words, with where they are
_NUMBER_GOES_ON_BEFORE = re.compile(r"\d[.,]$")
_NUMBER_GOES_ON_AFTER = re.compile(r"^[.,]\d")


def answer_span(text: str, gold: str) -> tuple[int, int] | None:
    """Where ``text`` states the gold answer (start, end), else None; stricter than contains_match,
    for documents (which state many numbers) rather than answers:

    - a gold that is one number with at most one word of unit ("5", "$300", "4.0%", "25 kg") is
      stated by the same number read whole ("5" is not in "2015", "2.5" or "5,000"; "1,500" is
      "1500") with the same unit where the gold has one ("$300" is not "300 requests");
    - any other gold by its normalised words in sequence on word boundaries (contains_match),
      a number at either end not continued ("Apollo 11" is not in "Apollo 11.5")."""
    gold_q = _one_quantity(gold)
    if gold_q is not None and (gold_q[1] or not normalize(_QUANTITY.sub(" ", gold))):  # not "Apollo 11"
        if str(int(gold_q[0]))[-3:] not in (text or ""):  # the cheap test first: most documents fail it
            return None
        for m in _QUANTITY.finditer(text or ""):
            value, unit = _quantities(m.group(0))[0]
            start = m.start() if m["pre"] else m.start("num")
            if value != gold_q[0] or (gold_q[1] and unit != gold_q[1]) or (start and text[start - 1].isalnum()):
                continue  # another number, another unit, or inside a word ("A5")
            return start, m.end() if gold_q[1] not in ("", "$", "€", "£") and m["post"] else m.start("num") + len(m["num"].rstrip(","))
        return None
    words = normalize(gold).split()
    if not words or not contains_match(text, gold):  # the cheap test first: most documents fail it
        return None
    tokens = [t for t in _TOKEN.finditer(text) if t.group(0).lower() not in ("a", "an", "the")]
    n = len(words)
    for i in range(len(tokens) - n + 1):
        if [t.group(0).lower() for t in tokens[i:i + n]] != words:
            continue
        start, end = tokens[i].start(), tokens[i + n - 1].end()
        if words[0][0].isdigit() and _NUMBER_GOES_ON_BEFORE.search(text[max(0, start - 2):start]):
            continue
        if words[-1][-1].isdigit() and _NUMBER_GOES_ON_AFTER.match(text[end:end + 2]):
            continue
        return start, end
    return None


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
