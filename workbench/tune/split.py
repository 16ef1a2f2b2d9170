"""The seeded split of labelled queries into training and held-out queries.

No held-out query's gold documents or hard negatives reach training: a training example whose
document is gold or a hard negative of any held-out query is left out (and counted).
"""

from __future__ import annotations

import random

import msgspec

from workbench.records import Query


class Split(msgspec.Struct, frozen=True):
    seed: int
    train_share: float
    train: list[str]  # query IDs, sorted
    held_out: list[str]

    def caption(self) -> str:
        return (f"tuned on {len(self.train)} training queries, figures on {len(self.held_out)} held-out queries "
                f"(split seed {self.seed}, train share {self.train_share:g})")


def split_queries(queries: list[Query], train_share: float, seed: int) -> Split:
    """Labelled queries (with gold) shuffled by ``seed``; the first ``train_share`` of them train.
    The same queries, share and seed give the same split."""
    ids = sorted(q.query_id for q in queries if q.gold_doc_ids)
    random.Random(seed).shuffle(ids)
    n_train = min(len(ids) - 1, max(1, round(train_share * len(ids)))) if len(ids) > 1 else 0
    return Split(seed, train_share, sorted(ids[:n_train]), sorted(ids[n_train:]))


def held_out_documents(queries: list[Query], split: Split) -> set[int]:
    held = set(split.held_out)
    return {d for q in queries if q.query_id in held for d in (*q.gold_doc_ids, *q.hard_negative_ids)}
