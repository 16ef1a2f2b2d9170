"""Every row of the verdict rule table, and the answer decision beneath it (judge vs deterministic)."""

from __future__ import annotations

import msgspec
import pytest

from workbench.llm.answers import AnswerCheck, judge_reason
from workbench.correctness import decide_answer
from workbench.diagnosis.rules import DISTRACTOR_CAUSES, RULES, Facts, decide_verdict
from workbench.correctness import token_f1
from workbench.records import Query

Q = Query("finance-05", "What yearly return…?", "2,900", [917095], [])


def ans(correct: bool, gold_given: bool = True, arm: str = "rag", context: list[int] | None = None) -> AnswerCheck:
    return AnswerCheck(
        query_id="finance-05", arm=arm, system=f"model:local:{arm}", tier="full", answer="x", refusal=False, judge="local",
        judge_score=None, judge_scores=[], judge_trusted=False, judge_reason="", exact=correct, contains=correct,
        f1=float(correct), correct=correct, basis="the answer contains the gold answer" if correct else "no match",
        gold_given=gold_given, context_doc_ids=context if context is not None else ([917095] if gold_given else [1, 2]),
        run_queries=10, source="tier run",
    )


def undecided(gold_given: bool = True) -> AnswerCheck:
    return msgspec.structs.replace(ans(False, gold_given=gold_given), decision="undecided", basis="names both candidates")


def facts(rank: int | None | str, answer=None, oracle=None, k: int = 10, reader_k: int | None = None) -> Facts:
    ranks = None if rank == "none" else {917095: rank}
    return Facts(k=k, access_label="hybrid", gold_ranks=ranks, answer=answer, oracle=oracle, reader_k=reader_k)  # type: ignore[arg-type]


CASES = [
    # (row, facts) — and a neighbour that differs in one fact and must NOT give that row
    ("P1", facts(3, answer=ans(True)), facts(3, answer=ans(False))),
    ("N1", facts("none"), facts(3)),
    ("A1", facts(16, answer=ans(False, gold_given=False), oracle=ans(True, arm="oracle")), facts(16, answer=ans(False, gold_given=False), oracle=ans(False, arm="oracle"))),
    ("B1", facts(16, answer=ans(False, gold_given=False), oracle=ans(False, arm="oracle")), facts(4, answer=ans(False), oracle=ans(False, arm="oracle"))),
    ("A2", facts(None), facts(None, oracle=ans(True, arm="oracle"))),
    ("N5", Facts(k=10, access_label="", gold_ranks=None, answer=ans(False, gold_given=False, context=[]), oracle=None, production=True,
                 context_known=False),
     Facts(k=10, access_label="", gold_ranks=None, answer=ans(False, gold_given=False, context=[1]), oracle=None, production=True)),
    ("Q1", facts(2, answer=undecided()), facts(2, answer=ans(False))),
    ("U1", facts(2, answer=ans(False), oracle=ans(False, arm="oracle")), facts(2, answer=ans(False), oracle=ans(True, arm="oracle"))),
    ("D1", facts(2, answer=ans(False), oracle=ans(True, arm="oracle")), facts(2, answer=ans(True), oracle=ans(True, arm="oracle"))),
    ("U2", facts(2, answer=ans(False)), facts(2, answer=ans(False, gold_given=False))),
    ("N3", facts(2, oracle=ans(True, arm="oracle")), facts(2, oracle=ans(False, arm="oracle"))),
    ("N4", facts(2), facts(12)),
]


@pytest.mark.parametrize("row, f, neighbour", CASES, ids=[c[0] for c in CASES])
def test_every_row_fires_on_its_facts_and_not_on_a_neighbour(row, f, neighbour):
    v = decide_verdict(f)
    assert (v.rule, v.verdict) == (row, RULES[row][0])
    assert v.because.endswith(f"→ {v.verdict}")
    assert decide_verdict(neighbour).rule != row


def test_every_row_of_the_table_is_tested():
    assert {c[0] for c in CASES} == set(RULES) - set(DISTRACTOR_CAUSES)  # D2, D3: tests/diagnosis/test_nearmiss_split.py


def test_access_verdict_states_the_rank_against_k_and_the_oracle():
    v = decide_verdict(facts(16, answer=ans(False, gold_given=False), oracle=ans(True, arm="oracle")))
    assert v.verdict == "ACCESS"
    assert v.because.startswith("gold 917095 at hybrid #16 > K=10; oracle answer right: the answer contains the gold answer")


def test_gold_in_top_k_but_not_handed_to_the_reader_is_access():
    # rank 7 ≤ K=10, but the reader got 5 documents without it
    v = decide_verdict(facts(7, answer=ans(False, gold_given=False, context=[1, 2, 3, 4, 5]), oracle=ans(True, arm="oracle"), reader_k=5))
    assert v.rule == "A1"
    assert "gold 917095 at hybrid #7" in v.because and "not among the 5 documents handed to the reader" in v.because


def test_pass_without_the_gold_is_marked_parametric():
    assert decide_verdict(facts(16, answer=ans(True, gold_given=False))).parametric
    assert not decide_verdict(facts(1, answer=ans(True))).parametric


def test_not_retrieved_at_all_is_said():
    assert "gold 917095 not retrieved by hybrid" in decide_verdict(facts(None)).because


# ---------------------------------------------------------------- is the answer correct?


def test_uncalibrated_judge_giving_5_to_a_wrong_number_is_overruled_by_the_match():
    ok, exact, contains, f1, basis = decide_answer(Q, "1,600", False, 5.0, False, "local")
    assert not ok and not exact and not contains and f1 == 0.0
    assert "judge local failed calibration: decided on the deterministic match" in basis


def test_calibrated_judge_decides():
    ok, *_, basis = decide_answer(Q, "1,600", False, 5.0, True, "local")
    assert ok and basis.startswith("judge 5/5 ≥ 3")
    ok, *_ = decide_answer(Q, "The return is 2,900 dollars", False, 1.0, True, "local")
    assert not ok  # a trusted judge is believed even against the contains match


def test_uncalibrated_judge_right_answer_by_contains():
    ok, exact, contains, *_ = decide_answer(Q, "It was 2,900.", False, 0.0, None, "local")
    assert ok and contains and not exact


def test_long_gold_answers_are_undecided_and_token_f1_stays_a_figure():
    from workbench.correctness import decide

    q = Query("h", "Who?", "Stephen King wrote the horror novel in Maine", [1])
    d = decide(q, "Stephen King wrote it in Maine", False, None, None, None)
    assert d.decision == "undecided" and not d.correct and d.f1 >= 0.5  # on main: right at F1 ≥ 0.5
    assert "the deterministic rule abstains" in d.basis
    assert decide(q, "Stephen King wrote the horror novel in Maine.", False, None, None, None).decision == "right"


def test_refusal_is_never_correct():
    assert not decide_answer(Q, "I do not know; maybe 2,900", True, 5.0, True, "local")[0]


def test_token_f1():
    assert token_f1("the Eiffel Tower", "Eiffel Tower") == 1.0
    assert token_f1("Paris France", "Paris") == pytest.approx(2 / 3)
    assert token_f1("", "Paris") == 0.0 and token_f1("Lyon", "Paris") == 0.0


def test_judge_reason_only_when_it_parsed_and_says_something():
    assert judge_reason(["Score: 4"]) == ""
    assert judge_reason(["The answer names the wrong year entirely"]) == ""  # no score: not a parsed reply
    assert judge_reason(["Score: 2 because the year is wrong"]) == "Score: 2 because the year is wrong"
    assert judge_reason(["Score: 5 Example 3: Question: What is the most"]) == ""  # ran on into the examples


def test_long_context_reader_reaches_the_gold_only_if_it_localizes_it():
    in_context_wrong = ans(False, arm="qa")  # the whole tier, gold included, was in its context
    lost = Facts(k=10, access_label="local localization", gold_ranks={917095: None}, answer=in_context_wrong,
                 oracle=ans(True, arm="oracle"), by_ranking=True)
    assert decide_verdict(lost).verdict == "ACCESS"
    found = msgspec.structs.replace(lost, gold_ranks={917095: 2})
    assert decide_verdict(found).verdict == "USE-UNDER-DISTRACTORS"
    no_localization = msgspec.structs.replace(lost, gold_ranks=None)
    assert decide_verdict(no_localization).verdict == "USE-UNDER-DISTRACTORS"  # gold was in the context


# ---------------------------------------------------------------- provisional, undecided, production


def test_an_undecided_answer_is_neither_pass_nor_a_failure():
    # gold not reached, answer undecided, no oracle: the access fact leads (ACCESS?), never PASS
    v = decide_verdict(facts(16, answer=undecided(gold_given=False)))
    assert v.verdict == "ACCESS?" and "end-to-end answer undecided: names both candidates" in v.because
    # gold reached and the oracle right: D1 needs a wrong answer; undecided says so
    v = decide_verdict(facts(2, answer=undecided(), oracle=ans(True, arm="oracle")))
    assert (v.rule, v.verdict) == ("Q1", "UNDECIDED") and "canonical_answer" in v.missing
    # an undecided oracle tells nothing: a provisional access failure, not ACCESS
    assert decide_verdict(facts(16, answer=ans(False, gold_given=False), oracle=undecided())).rule == "A2"


def test_not_all_gold_handed_over_is_said():
    f = Facts(k=10, access_label="hybrid", gold_ranks={917095: 2, 4: 3}, answer=ans(False, gold_given=False, context=[917095, 1, 2, 3, 5]),
              oracle=None, reader_k=5, gold_ids=(917095, 4))
    v = decide_verdict(f)
    assert "not all gold among the 5 documents handed to the reader (1 of 2)" in v.because and v.rule == "A2"
    none = decide_verdict(facts(7, answer=ans(False, gold_given=False, context=[1, 2, 3, 4, 5]), reader_k=5))
    assert "gold not among the 5 documents handed to the reader" in none.because


def production(correct: bool | None, read: bool | None, ranks=None) -> Facts:
    a = ans(bool(correct), gold_given=bool(read), context=[] if read is None else ([917095] if read else [1, 2]))
    if correct is None:
        a = msgspec.structs.replace(a, decision="undecided")
    return Facts(k=10, access_label="run:prod", gold_ranks=ranks, answer=a, oracle=None, production=True,
                 context_known=read is not None, gold_ids=(917095,))


def test_production_answers_reach_verdicts_on_what_production_read():
    assert decide_verdict(production(True, True)).verdict == "PASS"
    v = decide_verdict(production(True, False))
    assert v.verdict == "PASS" and v.parametric and "production read 0 of 1 gold" in v.because
    assert decide_verdict(production(False, True)).rule == "U2"  # gold read, answer wrong: USE
    assert decide_verdict(production(False, False)).rule == "A2"  # gold not read: provisional ACCESS
    assert decide_verdict(production(None, True)).rule == "Q1"
    v = decide_verdict(production(False, None))
    assert v.rule == "N5" and v.because.startswith("no context known")
    # no context known, but an imported ranking: judged on it
    assert decide_verdict(production(False, None, ranks={917095: 14})).rule == "A2"
    assert decide_verdict(production(False, None, ranks={917095: 1})).rule == "U2"
    assert not decide_verdict(production(True, None)).parametric  # nothing says it was not read


def test_the_readme_rule_table_is_the_rule_table():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "reference" / "verdicts.md").read_text()  # the README's table, moved (issue 41)
    table = text[text.index("| row | verdict | when |"):].split("\n\n")[0]
    rows = [line.split("|")[1:3] for line in table.splitlines()[2:]]
    assert [(r.strip(), v.strip()) for r, v in rows] == [(row, verdict) for row, (verdict, _) in RULES.items()]


def test_an_undecided_oracle_asks_for_a_decision_not_another_run():
    v = decide_verdict(facts(16, answer=ans(False, gold_given=False), oracle=undecided()))
    assert v.verdict == "ACCESS?" and v.missing.startswith("a decision on the oracle answer")
    assert "oracle answer undecided: names both candidates" in v.because
