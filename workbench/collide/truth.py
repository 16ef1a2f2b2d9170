"""Mined-and-verified labels against known labels (a dataset whose hard negatives are known).

Two separate measurements:
  mining recall        how many of the true hard negatives were among the candidates at all
                       (no model involved: also computed for any depth from the dense ranking)
  verification         for the candidates that were mined, the verifier's verdict against the
                       truth: a confusion matrix with truth rows
                         hard_negative  a labelled hard negative of the query
                         gold           a gold document hidden from the query before collide
                         unlabelled     neither (it may still be a near miss nobody labelled)
                       and verdict columns HARD_NEGATIVE / FALSE_NEGATIVE / CONFLICT / UNVERIFIED.
"""

from __future__ import annotations

from statistics import fmean

import msgspec

from workbench.project.versions import LabelRecord
from workbench.records import Query

TRUTH_ROWS = ("hard_negative", "gold", "unlabelled")
VERDICT_COLS = ("HARD_NEGATIVE", "FALSE_NEGATIVE", "CONFLICT", "UNVERIFIED")


class TruthReport(msgspec.Struct, frozen=True):
    queries: int  # queries with at least one true hard negative (the recall denominator's queries)
    true_hard_negatives: int
    mined_true_hard_negatives: int
    mining_recall_micro: float | None
    mining_recall_macro: float | None
    candidates: int
    confusion: dict[str, dict[str, int]]  # truth row → verdict column → count
    hn_recall: float | None  # true hard negatives mined and verified HARD_NEGATIVE / mined true ones
    hn_precision: float | None  # verified HARD_NEGATIVE that are true hard negatives (a lower bound)
    accuracy_on_labelled: float | None  # hard_negative→HN and gold→FN over those two rows


def _ratio(a: int, b: int) -> float | None:
    return a / b if b else None


def score_against_truth(labels: list[LabelRecord], truth: list[Query], hidden_gold: dict[str, list[int]] | None = None) -> TruthReport:
    """``labels``: a collide version's label records (every candidate has one with its verdict);
    ``truth``: the queries with their true hard negatives; ``hidden_gold``: gold documents
    removed from queries before collide (truth row "gold")."""
    hidden_gold = hidden_gold or {}
    true_hn = {q.query_id: set(q.hard_negative_ids) for q in truth}
    verdicts: dict[tuple[str, int], str] = {}
    for r in labels:
        if r.doc_id is not None and r.label in VERDICT_COLS:
            verdicts[(r.query_id, r.doc_id)] = r.label
    confusion = {row: {col: 0 for col in VERDICT_COLS} for row in TRUTH_ROWS}
    for (qid, doc), verdict in verdicts.items():
        row = "gold" if doc in hidden_gold.get(qid, ()) else "hard_negative" if doc in true_hn.get(qid, ()) else "unlabelled"
        confusion[row][verdict] += 1
    mined_by_query: dict[str, set[int]] = {}
    for qid, doc in verdicts:
        mined_by_query.setdefault(qid, set()).add(doc)
    per_query = []
    total = found = 0
    for qid, hn in true_hn.items():
        if not hn:
            continue
        hit = len(hn & mined_by_query.get(qid, set()))
        total += len(hn)
        found += hit
        per_query.append(hit / len(hn))
    hn_row, gold_row = confusion["hard_negative"], confusion["gold"]
    said_hn = sum(confusion[r]["HARD_NEGATIVE"] for r in TRUTH_ROWS)
    labelled = sum(hn_row.values()) + sum(gold_row.values())
    return TruthReport(
        queries=len(per_query), true_hard_negatives=total, mined_true_hard_negatives=found,
        mining_recall_micro=_ratio(found, total), mining_recall_macro=fmean(per_query) if per_query else None,
        candidates=len(verdicts), confusion=confusion,
        hn_recall=_ratio(hn_row["HARD_NEGATIVE"], sum(hn_row.values())),
        hn_precision=_ratio(hn_row["HARD_NEGATIVE"], said_hn),
        accuracy_on_labelled=_ratio(hn_row["HARD_NEGATIVE"] + gold_row["FALSE_NEGATIVE"], labelled),
    )


def recall_at(rankings: dict[str, list[int]], truth: list[Query], ks: list[int]) -> dict[int, float | None]:
    """Mining recall at several depths from a non-gold ranking per query (no model calls):
    micro-averaged share of true hard negatives within its top k documents."""
    out = {}
    for k in ks:
        total = found = 0
        for q in truth:
            if not q.hard_negative_ids:
                continue
            top = set(rankings.get(q.query_id, [])[:k])
            total += len(q.hard_negative_ids)
            found += len(set(q.hard_negative_ids) & top)
        out[k] = _ratio(found, total)
    return out
