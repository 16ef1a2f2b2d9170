"""The query list's filter language, parsed once: ``parse_filter(text) -> Filter``.

Words, all of which must hold: free text (in the id, query or answer), ``d:DOMAIN``, ``multi``,
``single``, ``unlabelled``, ``fail`` (breaks somewhere), ``fail:TIER`` (misses gold on that tier of
its own), ``v:WORD`` (the verdict shown, FILTER_WORDS of diagnosis/live.py), ``run:NAME`` /
``from:NAME`` (imported runs and traces), ``flagged`` (production's users flagged the answer: a
thumbs-down or a score <= 0 recorded on its trace, `workbench collect --feedback-key`). What a word needs beyond the query itself (figures,
verdicts, sources) the caller answers through `FilterFacts`. Headless.
"""

from __future__ import annotations

from typing import Literal, Protocol

import msgspec

from workbench.diagnosis.live import FILTER_WORDS, UNJUDGED_WORD
from workbench.records import Query

TermKind = Literal["text", "multi", "single", "unlabelled", "fail", "domain", "fail_tier", "verdict", "source", "flagged"]

FLAGS: dict[str, TermKind] = {"multi": "multi", "single": "single", "unlabelled": "unlabelled", "fail": "fail",
                              "flagged": "flagged"}
PREFIXES: dict[str, TermKind] = {"d:": "domain", "fail:": "fail_tier", "v:": "verdict"}
SOURCE_PREFIXES = ("run:", "from:")


class Term(msgspec.Struct, frozen=True):
    """One word of the filter: its kind and its value, lower-cased (a prefix's value without the prefix)."""

    kind: TermKind
    value: str
    word: str  # as typed, for the messages that name it


class Filter(msgspec.Struct, frozen=True):
    terms: tuple[Term, ...] = ()

    def of(self, kind: TermKind) -> list[Term]:
        return [t for t in self.terms if t.kind == kind]

    @property
    def needs_verdicts(self) -> bool:
        """A v: word other than v:unjudged: it matches only once the diagnosis is computed."""
        return any(t.kind == "verdict" and t.value != UNJUDGED_WORD for t in self.terms)


def parse_term(word: str) -> Term:
    lw = word.lower()
    if lw in FLAGS:
        return Term(FLAGS[lw], "", word)
    if lw.startswith(SOURCE_PREFIXES):  # the whole word: the session's sources are keyed "run:NAME"
        return Term("source", lw, word)
    for prefix, kind in PREFIXES.items():
        if lw.startswith(prefix):
            return Term(kind, lw[len(prefix):], word)
    return Term("text", lw, word)


def parse_filter(text: str) -> Filter:
    return Filter(tuple(parse_term(w) for w in text.split()))


class FilterFacts(Protocol):
    """What the words need beyond the query itself, answered by the front end's session."""

    def breaks(self, query: Query) -> bool: ...  # its figure drops below 1 on some tier of its own

    def fails_on(self, query: Query, tier_word: str) -> bool: ...  # misses gold on a tier of its own named so

    def verdict_in(self, query: Query, word: str) -> bool: ...  # v:WORD (v:unjudged included)

    def sources(self, query: Query) -> frozenset[str] | set[str] | tuple[str, ...]: ...  # "run:NAME", "from:NAME"

    def flagged(self, query: Query) -> bool: ...  # production's users flagged its answer (negative feedback)


def term_matches(term: Term, q: Query, facts: FilterFacts) -> bool:
    kind = term.kind
    if kind == "multi":
        return q.is_multi_source
    if kind == "single":
        return q.is_labelled and not q.is_multi_source
    if kind == "unlabelled":
        return not q.is_labelled
    if kind == "domain":
        return term.value in q.domain.lower()
    if kind == "fail":
        return facts.breaks(q)
    if kind == "fail_tier":
        return facts.fails_on(q, term.value)
    if kind == "verdict":
        return facts.verdict_in(q, term.value)
    if kind == "source":
        return term.value in facts.sources(q)
    if kind == "flagged":
        return facts.flagged(q)
    return term.value in f"{q.query_id} {q.query} {q.answer}".lower()


def query_matches(f: Filter, q: Query, facts: FilterFacts) -> bool:
    return all(term_matches(t, q, facts) for t in f.terms)


def filter_problems(f: Filter, domains: list[str], tiers: list[str], verdicts_ready: bool) -> list[str]:
    """Why a word can match nothing (a domain, tier or verdict word that does not exist): said,
    not silently answered with 0 queries."""
    out = []
    for t in f.terms:
        if t.kind == "domain" and not any(t.value in d.lower() for d in domains):
            out.append(f"no domain matches {t.word[2:]!r} (domains: {', '.join(domains)})")
        elif t.kind == "fail_tier" and not any(t.value in n.lower() for n in tiers):
            out.append(f"no tier matches {t.word[5:]!r} (tiers: {', '.join(tiers)})")
        elif t.kind == "verdict" and t.value not in FILTER_WORDS:
            out.append(f"no verdict word {t.word[2:]!r} (v: takes {', '.join(sorted(FILTER_WORDS))})")
        elif t.kind == "verdict" and not verdicts_ready and t.value != UNJUDGED_WORD:
            out.append("no verdicts yet: v: filters once the diagnosis is computed")
    return out
