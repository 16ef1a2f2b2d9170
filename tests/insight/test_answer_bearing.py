"""Answer-bearing precision: a document states the answer on word and number boundaries, a
one-number answer with its unit (workbench/correctness.py's answer_span). Each "not stated" case
below is one that contains_match, the rule before, takes as stated."""

from __future__ import annotations

import pytest

from workbench.correctness import answer_span, contains_match
from workbench.insight.unjudged import answer_forms
from workbench.records import Query

NOT_STATED = [
    ("limits of $1,500 apply", "$500"),  # the sample corpus' insurance-09: "$500" inside "$1,500"
    ("about 2.5 million", "5"),
    ("5,000 people", "5"),
    ("300 requests per minute", "$300"),  # the gold's unit is $
    ("a 4.0 GHz chip", "4.0%"),
    ("after 2.5 weeks", "5 weeks"),
    ("rate 2, 1 percent", "2.1%"),
    ("Apollo 11.5 launched", "Apollo 11"),
]
STATED = [
    ("costs $300 a year", "$300", "$300"),
    ("a rate of 4.0% APY", "4.0%", "4.0%"),
    ("a rate of 4% APY", "4.0%", "4%"),  # the same number
    ("waits 5 weeks here", "5 weeks", "5 weeks"),
    ("1800 requests", "1,800 requests", "1800 requests"),  # read whole: 1,800 is 1800
    ("in section 5.", "5", "5"),  # a unitless gold: any unit
    ("Apollo 11, the first", "Apollo 11", "Apollo 11"),
    ("on 19 June 2022.", "19 June 2022", "19 June 2022"),
    ("The Paris museums", "paris", "Paris"),
]


@pytest.mark.parametrize("text, gold", NOT_STATED)
def test_a_number_inside_another_or_with_another_unit_is_not_the_answer(text, gold):
    assert answer_span(text, gold) is None
    assert contains_match(text, gold)  # the looser rule it replaces for documents took it


@pytest.mark.parametrize("text, gold, stated", STATED)
def test_where_the_answer_is_stated(text, gold, stated):
    span = answer_span(text, gold)
    assert span is not None and text[span[0]:span[1]] == stated


def test_in_2015_there_is_no_5():
    assert answer_span("founded in 2015", "5") is None and answer_span("model A5", "5") is None


def test_answer_forms_use_the_canonical_head_and_skip_a_comparisons_candidates():
    q = Query("q", "How much?", "$892.80 (3.6% APY on $24,800)", [1])
    assert answer_forms(q) == ["$892.80 (3.6% APY on $24,800)", "$892.80"]
    cmp = Query("c", "Which?", "Pozar Savings Bank (Pramdis Credit Union: 13.6%; Pozar Savings Bank: 11.7%)", [1, 2],
                answer_aliases=["Pozar"])
    assert answer_forms(cmp) == ["Pozar"]  # naming a candidate is no answer; ";" parts are no alternatives
    assert answer_forms(Query("y", "Is it?", "yes", [1])) == []
    assert answer_forms(Query("n", "How many?", "5", [1])) == ["5"]  # one digit, now matched whole
