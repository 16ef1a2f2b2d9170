"""Canonicalising a model's localization output into a ranking (docs/METHOD.md §1).

The rule is the paper's, applied literally: every integer token (`\\b\\d+\\b`, ASCII digits) in
order of appearance, keep the first K unique. Nothing is interpreted: a range "3-5" gives 3
and 5 (not 4), a year in prose is an integer like any other and takes a slot, and an output
with no integer is an empty ranking (zero recall, never skipped). ``out_of_tier`` counts the
kept IDs that are not documents of the tier — a diagnostic, not a filter.
"""

from __future__ import annotations

import re
from typing import Iterable

INTEGER = re.compile(r"\b\d+\b", re.ASCII)
MAX_DIGITS = 18  # longer digit runs cannot be DocIDs; kept as numbers but never parsed as huge ints


def extract_docids(text: str, k: int) -> list[int]:
    if k <= 0:
        return []
    seen: set[int] = set()
    out: list[int] = []
    for m in INTEGER.finditer(text or ""):
        digits = m.group()
        # A longer run still takes its slot, as a negative placeholder that matches no DocID.
        value = int(digits) if len(digits) <= MAX_DIGITS else -1 - len(out)
        if value in seen:
            continue
        seen.add(value)
        out.append(value)
        if len(out) == k:
            break
    return out


def out_of_tier(ids: Iterable[int], tier_ids: Iterable[int]) -> int:
    members = set(tier_ids)
    return sum(1 for i in ids if i not in members)
