"""Text checks: whole-token matching and substitution, and the shared word n-gram test that
keeps questions from copying their evidence."""

from __future__ import annotations

import re


def wb(v: str) -> str:
    """Regex for v as a whole token: not inside a longer word or number."""
    return r"(?<![\w$€])" + re.escape(v) + r"(?![\w]|[.,]\d)"


def occurs(v: str, text: str) -> bool:
    return re.search(wb(v), text) is not None


def substitute(text: str, pairs: dict[str, str]) -> str:
    keys = sorted(pairs, key=len, reverse=True)
    rx = re.compile("|".join(wb(k) for k in keys))
    return rx.sub(lambda m: pairs[m.group(0)], text)


_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def mask_names(s: str, names) -> str:
    for name in sorted(names, key=len, reverse=True):
        s = re.sub(r"(?<!\w)" + re.escape(name) + r"(?!\w)", " \x00 ", s)
    return s


def word_tokens(s: str, names=()) -> list:
    """Lowercase word tokens; each occurrence of an entity name becomes None (breaks runs)."""
    out = []
    for part in mask_names(s, names).split("\x00"):
        out.extend(_WORD.findall(part.lower()))
        out.append(None)
    return out[:-1]


def shared_ngram(query: str, text: str, names=(), n: int = 6) -> tuple | None:
    """A run of n words shared by query and text, entity names excluded (None if none)."""

    def grams(t):
        return {tuple(t[i:i + n]) for i in range(len(t) - n + 1) if None not in t[i:i + n]}

    common = grams(word_tokens(query, names)) & grams(word_tokens(text, names))
    return min(common) if common else None
