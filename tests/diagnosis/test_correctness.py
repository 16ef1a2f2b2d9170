"""Deciding an answer without a judge (workbench/correctness.py): comparisons, numbers, canonical
heads and aliases; undecided where no rule decides. On main a comparison's wrong candidate passed
at token F1 ≥ 0.5."""

from __future__ import annotations

import pytest

from workbench.correctness import comparison_candidates, decide, deterministic_decision, named_candidates
from workbench.records import Query

FINANCE_05 = Query("finance-05", "For savings started in 2020, which paid more: Momhia Credit Union's Deixnon Saver Select or "
                   "Shaeda Trust's Deixnon Saver Flex?",
                   "Shaeda Trust's Deixnon Saver Flex (Momhia Credit Union's Deixnon Saver Select: 2.1%; Shaeda Trust's Deixnon Saver Flex: 4.0%)",
                   [744214, 917095], kind="comparison", canonical_answer="Shaeda Trust's Deixnon Saver Flex")
GOLD, OTHER = "Shaeda Trust's Deixnon Saver Flex", "Momhia Credit Union's Deixnon Saver Select"


def test_the_issue_answer_naming_both_candidates_is_undecided_not_right():
    answer = "Momhia Credit Union's Deixnon Saver Select paid more than Shaeda Trust's Deixnon Saver Flex in 2021"
    d = decide(FINANCE_05, answer, False, None, None, None)
    assert d.f1 > 0.5  # what main decided on: right
    assert d.decision == "undecided" and not d.correct and set(d.named) == {GOLD, OTHER}
    assert "names both" in d.basis


@pytest.mark.parametrize("answer, decision", [
    (f"{GOLD}.", "right"),
    ("Shaeda Trust paid more.", "right"),  # half the gold candidate's distinctive words
    (f"{OTHER} paid more.", "wrong"),
    ("Momhia Credit Union.", "wrong"),
    ("Flex", "undecided"),  # a third of its distinctive words: not named
    ("The one with 4.0%.", "undecided"),
])
def test_a_comparison_is_right_only_naming_the_gold_candidate_and_no_other(answer, decision):
    d = deterministic_decision(FINANCE_05, answer)
    assert d.decision == decision, d.reason
    if decision == "right":
        assert d.named == (GOLD,) and "names the gold candidate" in d.reason
    if decision == "wrong":
        assert d.named == (OTHER,) and "not the gold candidate" in d.reason


def test_candidates_come_from_the_gold_answer_and_a_shorter_name_inside_a_longer_one_is_not_named_twice():
    assert comparison_candidates(FINANCE_05.answer) == (GOLD, [OTHER, GOLD])
    assert comparison_candidates("Paris") is None and comparison_candidates("$5,300 ($6,300 claimed minus $1,000)") is None
    assert named_candidates("Band of Horses, clearly", ["The Band", "Band of Horses"]) == ["Band of Horses"]
    assert named_candidates("Brazine K4", ["Brazine K4", "Braxvine K4"]) == ["Brazine K4"]


@pytest.mark.parametrize("gold, answer, decision", [
    ("4.0%", "It pays 4%.", "right"),          # a number compared as a number
    ("4.0%", "It pays 2.1%.", "wrong"),
    ("4.0%", "4.0 dollars", "right"),          # contained as text first ("4 0" normalised)
    ("25 weeks", "25 days", "wrong"),          # the unit must agree
    ("25 weeks", "twenty-five weeks", "wrong"),
    ("$892.80", "About $892.8 a year", "right"),
    ("1,600", "1600", "right"),
])
def test_numbers_compare_as_numbers_with_their_unit(gold, answer, decision):
    assert deterministic_decision(Query("q", "?", gold, [1]), answer).decision == decision


def test_canonical_head_and_musique_aliases():
    computed = Query("finance-10", "?", "$892.80 (3.6% APY on $24,800)", [1, 2], kind="computed", canonical_answer="$892.80")
    assert deterministic_decision(computed, "$892.80").decision == "right"
    assert deterministic_decision(computed, "$24,800").decision == "wrong"  # on main: contained? no; F1 > 0 but short
    # MuSiQue: the answer and its aliases; an alias contained is right
    musique = Query("2hop_1", "Who founded it?", "Sarah Clarke Tolley", [1], answer_aliases=["Sarah Tolley", "S. C. Tolley"])
    assert deterministic_decision(musique, "It was founded by Sarah Tolley in 1901.").decision == "right"
    assert deterministic_decision(musique, "Jim Tolley").decision == "wrong"
    # a long gold answer: no rule decides, token F1 is a figure beside it
    long = Query("h", "?", "Stephen King wrote the horror novel in Maine during a winter", [1])
    d = decide(long, "Stephen King wrote it in Maine", False, None, None, None)
    assert d.decision == "undecided" and d.f1 > 0.5


def test_a_trusted_judge_still_decides_and_a_refusal_is_wrong():
    d = decide(FINANCE_05, f"{OTHER} paid more", False, 4.0, True, "j")
    assert d.decision == "right" and d.basis.startswith("judge 4/5")
    assert decide(FINANCE_05, GOLD, True, None, None, None).decision == "wrong"


def test_importers_read_canonical_answer_and_aliases(tmp_path):
    import json

    from workbench.project.importers import import_dataset
    from workbench.project.load import load_project

    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"_id": "d1", "title": "T", "text": "Sarah Clarke Tolley founded it."}) + "\n")
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"_id": "q1", "text": "Who?", "answers": ["Sarah Clarke Tolley", "S. Tolley"],
                                   "answer_aliases": ["Sarah Tolley"], "canonical_answer": "Sarah Tolley",
                                   "gold_doc_ids": ["d1"]}) + "\n")
    import_dataset(tmp_path / "p", docs, queries)
    q = load_project(tmp_path / "p").query("q1")
    assert (q.answer, q.answer_aliases, q.canonical_answer) == ("Sarah Clarke Tolley", ["S. Tolley", "Sarah Tolley"], "Sarah Tolley")
