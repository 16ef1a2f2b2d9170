"""The query list's filter language (workbench/diagnosis/filters.py): parsed once, every word's
meaning, and the problems it names instead of answering 0 queries."""

from __future__ import annotations

from workbench.diagnosis.filters import Filter, Term, filter_problems, parse_filter, query_matches
from workbench.diagnosis.live import FILTER_WORDS, UNJUDGED_WORD
from workbench.records import Query

SINGLE = Query(query_id="hr-07", query="Who founded Acme in 1999?", answer="Ada Byron", gold_doc_ids=[3], domain="History")
MULTI = Query(query_id="sci-02", query="Which two labs shared the prize?", answer="Bell and Xerox", gold_doc_ids=[1, 2],
              domain="science")
LOGGED = Query(query_id="log-1", query="what is the refund window", answer="", gold_doc_ids=[], domain="support")


class Facts:
    """Facts a session would answer, fixed per query: which break, where, their verdict words, sources."""

    def __init__(self) -> None:
        self.broken = {"sci-02": ["full", "global:64k"]}
        self.verdict_words = {"hr-07": {"pass"}, "sci-02": {"access", "lost", "fail"}}
        self.unjudged = {"log-1"}
        self.source_words = {"hr-07": ("run:prod", "from:phoenix")}

    def breaks(self, query: Query) -> bool:
        return query.query_id in self.broken

    def fails_on(self, query: Query, tier_word: str) -> bool:
        return any(tier_word in t for t in self.broken.get(query.query_id, []))

    def verdict_in(self, query: Query, word: str) -> bool:
        if word == UNJUDGED_WORD:
            return query.query_id in self.unjudged
        return word in self.verdict_words.get(query.query_id, set())

    def sources(self, query: Query) -> tuple[str, ...]:
        return self.source_words.get(query.query_id, ())

    def flagged(self, query: Query) -> bool:
        return query.query_id == "log-1"  # its user gave the answer a thumbs-down


def shown(text: str) -> list[str]:
    f, facts = parse_filter(text), Facts()
    return [q.query_id for q in (SINGLE, MULTI, LOGGED) if query_matches(f, q, facts)]


def test_each_word_parses_to_its_kind_and_lower_cased_value():
    f = parse_filter("  Multi d:HIST fail:Global v:ACCESS? run:Prod from:phoenix Acme single unlabelled fail ")
    assert f.terms == (
        Term("multi", "", "Multi"), Term("domain", "hist", "d:HIST"), Term("fail_tier", "global", "fail:Global"),
        Term("verdict", "access?", "v:ACCESS?"), Term("source", "run:prod", "run:Prod"),
        Term("source", "from:phoenix", "from:phoenix"), Term("text", "acme", "Acme"), Term("single", "", "single"),
        Term("unlabelled", "", "unlabelled"), Term("fail", "", "fail"),
    )
    assert parse_filter("") == Filter() and parse_filter("   ").terms == ()


def test_words_select_what_they_say_and_all_must_hold():
    assert shown("") == ["hr-07", "sci-02", "log-1"]
    assert shown("multi") == ["sci-02"]
    assert shown("single") == ["hr-07"]  # labelled with one gold: an unlabelled query is neither
    assert shown("unlabelled") == ["log-1"]
    assert shown("d:hist") == ["hr-07"] and shown("D:SCI") == ["sci-02"]
    assert shown("fail") == ["sci-02"]
    assert shown("fail:global") == ["sci-02"] and shown("fail:base") == []
    assert shown("v:access") == ["sci-02"] and shown("v:PASS") == ["hr-07"]
    assert shown(f"v:{UNJUDGED_WORD}") == ["log-1"]
    assert shown("run:prod") == ["hr-07"] and shown("from:PHOENIX") == ["hr-07"] and shown("run:other") == []
    assert shown("acme") == ["hr-07"]  # in the query text
    assert shown("xerox") == ["sci-02"]  # in the answer
    assert shown("LOG-1") == ["log-1"]  # in the id
    assert shown("multi fail:global v:lost") == ["sci-02"]
    assert shown("multi acme") == []  # each holds for one query, never both for the same
    assert shown("flagged") == ["log-1"] and shown("FLAGGED unlabelled") == ["log-1"] and shown("flagged multi") == []


def test_words_that_can_match_nothing_are_named():
    domains, tiers = ["History", "science"], ["base:History", "full"]
    assert filter_problems(parse_filter("d:hist fail:full v:pass multi words"), domains, tiers, True) == []
    problems = filter_problems(parse_filter("d:cooking fail:mix v:nonsense"), domains, tiers, True)
    assert problems == [
        "no domain matches 'cooking' (domains: History, science)",
        "no tier matches 'mix' (tiers: base:History, full)",
        f"no verdict word 'nonsense' (v: takes {', '.join(sorted(FILTER_WORDS))})",
    ]
    # before the diagnosis a verdict word cannot match yet; v:unjudged is no verdict and can
    assert filter_problems(parse_filter("v:pass"), domains, tiers, False) == [
        "no verdicts yet: v: filters once the diagnosis is computed"]
    assert filter_problems(parse_filter(f"v:{UNJUDGED_WORD}"), domains, tiers, False) == []
    assert parse_filter("v:pass").needs_verdicts and not parse_filter(f"v:{UNJUDGED_WORD} multi").needs_verdicts
