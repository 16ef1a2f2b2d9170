"""Word-level diff of two texts: what separates a near-miss distractor from the gold document.

Tokens are words (with inner apostrophes, dots, commas, hyphens: "1,200", "U.S.", "O'Neil"),
runs of whitespace and single punctuation marks. Words are compared case-insensitively with
difflib; whitespace and punctuation are never "changed" on their own. Every token carries a
kind so a view can make the differences that usually matter stand out:

  year    1000–2099 standing alone           number  anything else with a digit
  name    a capitalised word not opening a sentence (or any all-caps word of 2+ letters)
  word    other words                        space / punct

Headless (no Rich, no Textual): screens render the spans, evidence.py exports them.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

import msgspec

_TOKEN = re.compile(r"\s+|\w+(?:[.,'’\-]\w+)*|[^\w\s]")
_YEAR = re.compile(r"^(1\d{3}|20\d{2})s?$")
MAX_TOKENS = 4000  # longer texts are diffed on their first MAX_TOKENS tokens


class Span(msgspec.Struct, frozen=True, array_like=True):
    text: str
    kind: str  # year | number | name | word | space | punct
    changed: bool


class WordDiff(msgspec.Struct, frozen=True):
    left: list[Span]
    right: list[Span]
    # Distinct changed words on each side, salient kinds (year, number, name) first.
    left_only: list[str]
    right_only: list[str]
    similarity: float  # difflib ratio over the word sequences, 0..1
    truncated: bool = False


def tokenize(text: str) -> list[str]:
    return _TOKEN.findall(text)


def token_kind(token: str, sentence_start: bool = False) -> str:
    if token.isspace():
        return "space"
    if not any(ch.isalnum() for ch in token):
        return "punct"
    if _YEAR.match(token):
        return "year"
    if any(ch.isdigit() for ch in token):
        return "number"
    if len(token) >= 2 and token.isupper() and any(ch.isalpha() for ch in token):
        return "name"
    if token[0].isupper() and not sentence_start:
        return "name"
    return "word"


def _kinds(tokens: list[str]) -> list[str]:
    out = []
    start = True
    for t in tokens:
        k = token_kind(t, start)
        out.append(k)
        if k == "punct" and t in ".!?":
            start = True
        elif k not in ("space", "punct"):
            start = False
    return out


SALIENT = ("year", "number", "name")


MAX_UNIT = 12  # a number's unit is the word right after it ("44,000 hours"), if it is this short


def _with_unit(spans: list[Span], i: int) -> str:
    """A number with the word that follows it: "44,000" alone hides whether it counts hours or minutes."""
    s = spans[i]
    if s.kind != "number" or i + 2 >= len(spans) or spans[i + 1].kind != "space":
        return s.text
    nxt = spans[i + 2]
    return f"{s.text} {nxt.text}" if nxt.kind == "word" and nxt.text.isalpha() and len(nxt.text) <= MAX_UNIT else s.text


def _changed_words(spans: list[Span], other: list[Span]) -> list[str]:
    """Distinct changed words of one side that the other side does not contain anywhere (a word that
    only moved is no difference); numbers carry their unit."""
    elsewhere = {s.text.lower() for s in other if s.kind not in ("space", "punct")}
    seen: dict[str, str] = {}
    for i, s in enumerate(spans):
        key = s.text.lower()
        if s.changed and key not in seen and key not in elsewhere:
            seen[key] = _with_unit(spans, i)
    words = list(seen.values())
    rank = {k: i for i, k in enumerate(SALIENT)}
    return sorted(words, key=lambda w: rank.get(token_kind(w.split(" ")[0]), len(SALIENT)))  # stable: text order kept


def word_diff(left: str, right: str) -> WordDiff:
    lt, rt = tokenize(left), tokenize(right)
    truncated = len(lt) > MAX_TOKENS or len(rt) > MAX_TOKENS
    lt, rt = lt[:MAX_TOKENS], rt[:MAX_TOKENS]
    lk, rk = _kinds(lt), _kinds(rt)
    # Compare words only; remember where each word sits in the full token list.
    lw = [i for i, k in enumerate(lk) if k not in ("space", "punct")]
    rw = [i for i, k in enumerate(rk) if k not in ("space", "punct")]
    matcher = SequenceMatcher(None, [lt[i].lower() for i in lw], [rt[i].lower() for i in rw], autojunk=False)
    l_changed = [True] * len(lw)
    r_changed = [True] * len(rw)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for i in range(i1, i2):
                l_changed[i] = False
            for j in range(j1, j2):
                r_changed[j] = False
    lset = {lw[i] for i, c in enumerate(l_changed) if c}
    rset = {rw[j] for j, c in enumerate(r_changed) if c}
    lspans = [Span(t, k, i in lset) for i, (t, k) in enumerate(zip(lt, lk))]
    rspans = [Span(t, k, i in rset) for i, (t, k) in enumerate(zip(rt, rk))]
    return WordDiff(
        left=lspans,
        right=rspans,
        left_only=_changed_words(lspans, rspans),
        right_only=_changed_words(rspans, lspans),
        similarity=round(matcher.ratio(), 4),
        truncated=truncated,
    )


def salient_changes(diff: WordDiff) -> tuple[list[str], list[str]]:
    """Changed years, numbers and names on each side: usually the one constraint that differs."""
    pick = lambda words: [w for w in words if token_kind(w.split(" ")[0]) in SALIENT]  # noqa: E731
    return pick(diff.left_only), pick(diff.right_only)
