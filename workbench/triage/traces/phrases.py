"""Which known texts a long text quotes, found by their opening words: the corpus documents a
prompt holds (context.py), the project query a prompt asks (queries_in_prompt.py).

Each known text is keyed by its first few words (lower-cased word tokens of textmatch.normal);
the long text is scanned once, every window of that many words looked up, and each candidate
checked by substring on the normalised text (textmatch.quoted's rule: its first PREFIX_CHARS).
One pass over the prompt whatever the corpus size; the index is built once per corpus content
(documents_index: cached by a hash of the documents' texts)."""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import TYPE_CHECKING, Iterable

from workbench.triage.traces.textmatch import PREFIX_CHARS, normal

if TYPE_CHECKING:
    from workbench.project.files import Project

MIN_DOCUMENT_CHARS = 40  # a shorter document is too little to say the prompt quotes it (resolve.MIN_PREFIX)
HEAD_CHARS = 600  # the opening read for a text's key words (normal() of the whole text only when needed)
KEY_WORDS = 6  # a text is keyed by this many opening words (fewer when it has fewer)
_WORD = re.compile(r"\w+")


def _words(text: str) -> list[tuple[str, int]]:
    """(lower-cased word, its offset) in an already normal()-ised text."""
    folded = text.casefold()
    if len(folded) == len(text):  # one character for one (nearly always): the offsets are the text's
        return [(m.group(), m.start()) for m in _WORD.finditer(folded)]
    return [(m.group().casefold(), m.start()) for m in _WORD.finditer(text)]


class Found:
    __slots__ = ("key", "start", "end")

    def __init__(self, key: int, start: int, end: int) -> None:
        self.key, self.start, self.end = key, start, end


class PhraseIndex:
    """Known texts (by an int key) found inside a long text by their opening words."""

    def __init__(self, texts: Iterable[tuple[int, str]], fold_case: bool = False, min_chars: int = 1) -> None:
        self.fold_case = fold_case
        self.raw: dict[int, str] = {}
        self.texts: dict[int, str] = {}  # normalised in full only when a window names it (memo)
        self.lead: dict[int, int] = {}  # where the first word starts in the text (after a quote mark, …)
        self.keys: dict[tuple[str, ...], list[int]] = {}
        self.lengths: set[int] = set()
        self.first: set[str] = set()  # the first key words: a window starting elsewhere is not looked up
        for key, text in texts:
            # only the opening is read to build the index: a long document costs no more than a short one
            n = normal(text[:HEAD_CHARS])
            tokens = _words(n)
            words = [w for w, _ in tokens]
            if not words or (len(text) < HEAD_CHARS and len(n) < min_chars):  # too short: mentioned, not quoted
                continue
            self.raw[key] = text
            self.lead[key] = tokens[0][1]
            head = tuple(words[:KEY_WORDS])
            self.keys.setdefault(head, []).append(key)
            self.lengths.add(len(head))
            self.first.add(head[0])

    def text(self, key: int) -> str:
        found = self.texts.get(key)
        if found is None:
            found = normal(self.raw[key])
            found = self.texts[key] = found.casefold() if self.fold_case else found
        return found

    def find(self, text: str) -> list[Found]:
        """Every known text whose opening (PREFIX_CHARS) the text holds, where it starts, in text order."""
        return self.find_normal(normal(text))

    def find_normal(self, n: str) -> list[Found]:
        """find() of a text already normal()-ised."""
        hay = n.casefold() if self.fold_case else n
        words = _words(n)
        plain = [w for w, _ in words]
        out: dict[int, Found] = {}
        for i, first in enumerate(plain):
            if first not in self.first:
                continue
            for size in self.lengths:
                if i + size > len(plain):
                    continue
                for key in self.keys.get(tuple(plain[i:i + size]), ()):
                    if key in out:
                        continue
                    known = self.text(key)
                    at = words[i][1] - self.lead[key]
                    if at >= 0 and hay.startswith(known[:PREFIX_CHARS], at):
                        out[key] = Found(key, at, at + _quoted_length(known, hay, at))
        return sorted(out.values(), key=lambda f: (f.start, -f.end))


def _quoted_length(known: str, hay: str, at: int) -> int:
    """How much of the known text follows from `at` (its whole length when it is all there)."""
    if hay.startswith(known, at):
        return len(known)
    lo, hi = PREFIX_CHARS, len(known)
    while lo < hi:  # the longest prefix present at `at`
        mid = (lo + hi + 1) // 2
        if hay.startswith(known[:mid], at):
            lo = mid
        else:
            hi = mid - 1
    return lo


def outermost(found: list[Found]) -> list[Found]:
    """Drop a text found inside another found text's span (a short document quoted within a longer one)."""
    out: list[Found] = []
    for f in found:
        if any(o.start <= f.start and f.end <= o.end and (o.start, o.end) != (f.start, f.end) for o in out):
            continue
        out.append(f)
    return out


_CACHE: OrderedDict[str, PhraseIndex] = OrderedDict()
CACHED = 4  # corpora kept (a collector imports into one project, again and again)


def documents_index(project: Project) -> PhraseIndex:
    """The index of a project's documents by DocID, built once per documents hash (per process)."""
    key = project.documents_hash()
    found = _CACHE.get(key)
    if found is None:
        found = PhraseIndex(((d, doc.text) for d, doc in project.documents.items()), min_chars=MIN_DOCUMENT_CHARS)
        _CACHE[key] = found
        while len(_CACHE) > CACHED:
            _CACHE.popitem(last=False)
    else:
        _CACHE.move_to_end(key)
    return found
