"""eval_set.jsonl: one line per (query, tier) of a query-set version, self-contained for other tools."""

from __future__ import annotations

from pathlib import Path

import msgspec

from workbench.fsutil import atomic_write_bytes
from workbench.project.files import Project
from workbench.records import Tier


class EvalSetRow(msgspec.Struct, frozen=True):
    query_id: str
    query: str
    answer: str
    gold_doc_ids: list[int]
    hard_negative_ids: list[int]
    tier: str
    # The tier's documents: a promoted gold document absent from them cannot be retrieved there.
    corpus_doc_ids: list[int]
    queries_version: str


def eval_set_rows(project: Project, tiers: list[Tier]) -> list[EvalSetRow]:
    rows = []
    for tier in tiers:
        for qid in project.tier_query_ids(tier):
            q = project.query(qid)
            rows.append(EvalSetRow(q.query_id, q.query, q.answer, q.gold_doc_ids, q.hard_negative_ids, tier.name,
                                   tier.doc_ids, project.queries_version))
    return rows


def write_eval_set(project: Project, tiers: list[Tier], out: Path) -> int:
    rows = eval_set_rows(project, tiers)
    enc = msgspec.json.Encoder()
    atomic_write_bytes(out, b"".join(enc.encode(r) + b"\n" for r in rows))
    return len(rows)
