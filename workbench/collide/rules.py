"""The collision-testing rules (docs/METHOD.md §1), as pure functions of one query's verdicts.

  no candidate above the floor        → unsuitable for adversarial evaluation (left out of the
                                        version unless keep_unsuitable)
  CONFLICT (policy "any", default)    → the whole query is excluded, with the conflict's reason
  more than half the candidates CONFLICT → excluded (under policy "majority" this is the only
                                        exclusion; a minority conflict is dropped, the query kept)
  FALSE_NEGATIVE (ambiguous HN/FN too) → promoted to gold
  HARD_NEGATIVE                       → kept as a distractor (added to hard_negative_ids)
  UNVERIFIED                          → recorded, no effect (never guessed)

"More than half" counts every mined candidate in the denominator, unverified ones included: an
unknown verdict is not evidence of a conflict.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from workbench.collide.mining import Candidate, MinedQuery
from workbench.collide.verify import Verification
from workbench.project.versions import LabelRecord
from workbench.records import Query

Status = Literal["retained", "excluded_conflict", "unsuitable"]
ConflictPolicy = Literal["any", "majority"]


class QueryOutcome(msgspec.Struct, frozen=True):
    query_id: str
    status: Status
    query: Query | None  # the relabelled query (None: left out of the version)
    labels: list[LabelRecord]
    promoted: list[int] = []
    hard_negatives: list[int] = []  # added by this run
    conflicts: int = 0
    unverified: int = 0
    reason: str = ""


def decide_query(
    query: Query,
    mined: MinedQuery,
    verdicts: dict[int, Verification],
    *,
    by: str,
    created: str,
    floor: float,
    policy: ConflictPolicy = "any",
    keep_unsuitable: bool = False,
) -> QueryOutcome:
    """Apply the rules to one query. ``verdicts``: doc_id → Verification for its candidates."""

    def label(action, c: Candidate | None = None, v: Verification | None = None, reason: str = "") -> LabelRecord:
        details: dict = {}
        if c is not None:
            details = {"source": c.source, "similarity": c.similarity, "dense_rank": c.dense_rank}
            if c.bm25_score is not None:
                details["bm25_score"] = c.bm25_score
        if v is not None:
            details.update(attempts=v.attempts, ambiguous=v.ambiguous)
        return LabelRecord(
            query_id=query.query_id, action=action, doc_id=c.doc_id if c else None,
            label=v.verdict if v else "", reason=reason or (v.reason if v else ""), by=by, method="collide",
            created=created, details=details,
        )

    if not mined.candidates:
        why = f"unsuitable: no non-gold document at or above the similarity floor {floor}"
        rec = label("flag_unsuitable", reason=why)
        kept = query if keep_unsuitable else None
        return QueryOutcome(query.query_id, "unsuitable", kept, [rec] if keep_unsuitable else [rec, label("exclude_query", reason=why)], reason=why)

    pairs = [(c, verdicts[c.doc_id]) for c in mined.candidates]
    conflicts = [(c, v) for c, v in pairs if v.verdict == "CONFLICT"]
    unverified = sum(v.verdict == "UNVERIFIED" for _, v in pairs)
    majority = len(conflicts) * 2 > len(pairs)
    if conflicts and (policy == "any" or majority):
        c0, v0 = conflicts[0]
        why = (f"{len(conflicts)} of {len(pairs)} candidates conflict" if majority else "a candidate conflicts") + \
            f" (DocID {c0.doc_id}: {v0.reason})"
        labels = [label("none", c, v) for c, v in pairs] + [label("exclude_query", reason=why)]
        return QueryOutcome(query.query_id, "excluded_conflict", None, labels, conflicts=len(conflicts),
                            unverified=unverified, reason=why)

    labels, promoted, negatives = [], [], []
    for c, v in pairs:
        if v.verdict == "FALSE_NEGATIVE":
            promoted.append(c.doc_id)
            labels.append(label("add_gold", c, v))
        elif v.verdict == "HARD_NEGATIVE":
            negatives.append(c.doc_id)
            labels.append(label("add_hard_negative", c, v))
        else:  # UNVERIFIED, or a minority CONFLICT under the majority policy: no effect
            labels.append(label("none", c, v))
    gold = [*query.gold_doc_ids, *(d for d in promoted if d not in query.gold_doc_ids)]
    hn = [d for d in [*query.hard_negative_ids, *(d for d in negatives if d not in query.hard_negative_ids)] if d not in gold]
    relabelled = msgspec.structs.replace(query, gold_doc_ids=gold, hard_negative_ids=hn)
    return QueryOutcome(query.query_id, "retained", relabelled, labels, promoted, negatives,
                        conflicts=len(conflicts), unverified=unverified)
