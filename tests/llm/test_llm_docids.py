"""DocID canonicalisation on adversarial model outputs (docs/METHOD.md §1: integers in order, first K unique)."""

import pytest

from workbench.llm.docids import extract_docids, out_of_tier
from workbench.access.metrics import query_access


@pytest.mark.parametrize(
    "text, k, expected",
    [
        ("12, 7, 31", 10, [12, 7, 31]),
        ("[DocID=12] and [DocID=7]", 10, [12, 7]),
        ("The evidence is in DocID 4 and also DocID=9.", 10, [4, 9]),
        # prose with no numbers: zero IDs (zero recall, never skipped)
        ("The answer is in the document about Paris.", 10, []),
        ("", 10, []),
        # ranges are not interpreted: both ends, nothing in between
        ("Documents 3-5 are relevant", 10, [3, 5]),
        ("3–5", 10, [3, 5]),
        # years look like IDs and take their slot, in order
        ("In 1989 the wall fell; see DocID 3", 10, [1989, 3]),
        # duplicates kept once, first occurrence order
        ("5, 5, 2, 5, 2, 9", 10, [5, 2, 9]),
        # first K unique only
        ("1 2 3 4 5 6 7 8 9 10 11 12", 10, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
        ("9 9 9 8", 2, [9, 8]),
        # digits glued to letters are not integer tokens (\b\d+\b)
        ("Doc12 v2 12a", 10, []),
        # decimals split into integers; leading zeros collapse
        ("3.5 and 007", 10, [3, 5, 7]),
        # negative sign is not part of the integer
        ("-4", 10, [4]),
        # non-ASCII digits are not DocIDs
        ("٣ and 4", 10, [4]),
        ("1, 2", 0, []),
    ],
)
def test_extract(text, k, expected):
    assert extract_docids(text, k) == expected


def test_absurdly_long_digit_run_takes_a_slot_but_matches_nothing():
    ids = extract_docids("9" * 5000 + " 3 4", 2)
    assert len(ids) == 2 and ids[1] == 3 and ids[0] < 0


def test_zero_ids_score_zero_not_skipped():
    qa = query_access("q", extract_docids("no idea", 10), [1, 2], 10)
    assert qa.sr_at_k == 0.0 and qa.fr_at_k == 0.0


def test_out_of_tier_counts_ids_not_in_the_tier():
    assert out_of_tier([1989, 3, 4], [3, 4, 5]) == 1
