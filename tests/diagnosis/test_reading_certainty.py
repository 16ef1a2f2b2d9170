"""Issue 40: a reading carries its n and its certainty, and never drops the access fixes while
access loses gold. Seen: after two pasted `run` commands `diagnose` read "use-bound" from 8 decided
verdicts while 20 of 100 queries lost gold, with the reranker and fine-tuning gone from the fixes;
production's reading flipped from "use-bound" to "both" after one oracle answer."""

from __future__ import annotations

from collections import Counter
from itertools import product

from workbench.diagnosis.overview import ACCESS_FIXES, USE_FIXES, reading_key, reading_of

RERANKER, FINE_TUNING = ACCESS_FIXES[1], ACCESS_FIXES[2]


def test_use_bound_from_8_decided_while_20_lose_gold_is_tentative_and_keeps_the_access_fixes():
    counts = Counter({"USE": 5, "USE-UNDER-DISTRACTORS": 1, "PASS": 2, "ACCESS?": 20, "NOT-YET": 72})
    r = reading_of(counts, "hybrid+local", "overall", True)
    assert r.reading == "use-bound" and r.decided == 8 and r.n == 100
    assert r.certainty == "tentative" and r.could_change is not None and r.could_change <= 20
    assert RERANKER in r.recommendations and FINE_TUNING in r.recommendations
    assert r.recommendations.index(RERANKER) < r.recommendations.index(USE_FIXES[0])  # access first
    said = r.said
    assert said.startswith("use-bound (tentative: 8 decided of 100 verdicts, 92 wait for an answer")
    assert f"{r.could_change} more answer" in said


def test_a_reading_one_oracle_answer_flips_says_so():
    # production: U 2, B 1, PASS 2 is use-bound; its ACCESS? answered wrong by the oracle makes it BOTH
    counts = Counter({"USE": 2, "BOTH": 1, "PASS": 2, "ACCESS?": 1})
    r = reading_of(counts, "run:prod:answers", "overall", False)
    assert r.reading == "use-bound" and r.certainty == "tentative" and r.could_change == 1
    after = reading_of(Counter({"USE": 2, "BOTH": 2, "PASS": 2}), "run:prod:answers", "overall", False)
    assert after.reading == "both"  # what the one answer did
    assert "1 more answer could change it" in r.said
    assert RERANKER in r.recommendations  # BOTH and ACCESS? lose gold: the access fixes stay


def test_a_reading_the_pending_verdicts_cannot_change_is_settled():
    r = reading_of(Counter({"ACCESS": 20, "PASS": 10, "NOT-YET": 2}), "hybrid", "overall", False)
    assert r.reading == "retrieval-bound" and r.certainty == "settled" and r.could_change is None
    assert r.said == "retrieval-bound (settled: 30 decided of 32 verdicts; the 2 pending cannot change it)"
    done = reading_of(Counter({"ACCESS": 20, "PASS": 10}), "hybrid", "overall", False)
    assert done.certainty == "settled" and done.said == "retrieval-bound (settled: 30 decided of 30 verdicts)"


def test_no_reading_is_never_called_undecided():
    for counts in (Counter({"NOT-YET": 9}), Counter({"ACCESS?": 3, "NOT-YET": 2})):
        r = reading_of(counts, "hybrid", "overall", True)
        assert r.reading == "no reading yet" and r.certainty == ""


def _brute_settled(counts: Counter) -> bool:
    """Every way the pending verdicts can be decided, one by one (an ACCESS? becomes ACCESS or BOTH)."""
    a, b = counts["ACCESS"], counts["BOTH"]
    u = counts["USE"] + counts["USE-UNDER-DISTRACTORS"]
    decided = counts["PASS"] + a + u + b
    now = reading_key(a, u, b, decided, counts["ACCESS?"])
    other = counts["NOT-YET"] + counts["UNDECIDED"]
    ends = set()
    for prov in product("AB", repeat=counts["ACCESS?"]):
        for rest in product("PAUB", repeat=other):
            picks = Counter(prov + rest)
            ends.add(reading_key(a + picks["A"], u + picks["U"], b + picks["B"], decided + len(prov) + len(rest), 0))
    return ends == {now}


def test_settled_means_no_outcome_of_the_pending_verdicts_changes_it():
    checked = {"settled": 0, "tentative": 0}
    for a, u, b, passed, prov, other in product(range(0, 5), range(0, 5), range(0, 3), (0, 3), range(0, 3), range(0, 3)):
        counts = Counter({"ACCESS": a, "USE": u, "BOTH": b, "PASS": passed, "ACCESS?": prov, "NOT-YET": other})
        r = reading_of(+counts, "s", "overall", True)
        if not r.certainty:
            continue
        assert (r.certainty == "settled") == _brute_settled(counts), counts
        checked[r.certainty] += 1
        if r.certainty == "tentative":  # the fewest that could change it really can; going its way settles it
            assert r.could_change is not None and r.could_change <= prov + other
    assert checked["settled"] > 20 and checked["tentative"] > 20


def test_going_its_way_the_answers_named_do_settle_it():
    counts = Counter({"USE": 5, "USE-UNDER-DISTRACTORS": 1, "PASS": 2, "ACCESS?": 20, "NOT-YET": 72})
    r = reading_of(counts, "hybrid+local", "overall", True)
    assert r.to_settle is not None and f"; {r.to_settle} more, going its way, would settle it" in r.said
    after = reading_of(counts + Counter({"USE": r.to_settle}) - Counter({"NOT-YET": r.to_settle}), "hybrid+local", "overall", True)
    assert after.reading == r.reading and after.certainty == "settled"
    before = reading_of(counts + Counter({"USE": r.to_settle - 1}) - Counter({"NOT-YET": r.to_settle - 1}), "hybrid+local", "overall", True)
    assert before.certainty == "tentative"  # one fewer does not (the fewest, below 256)


def test_a_reading_over_tens_of_thousands_of_verdicts_is_worded():
    r = reading_of(Counter({"USE": 300, "ACCESS": 100, "PASS": 500, "ACCESS?": 20000, "NOT-YET": 30000}), "s", "overall", True)
    assert r.certainty == "tentative" and r.n == 50900 and r.could_change is not None
