"""The report's sharper-diagnosis section (workbench/insight/): effective corpus size (also in the
headline), the near-miss split of USE-UNDER-DISTRACTORS per level, the most frequent stealers with
their diff, unjudged and answer-bearing documents, and long-context position effects.

The figures only: builder.py makes the report's sections of them."""

from __future__ import annotations

from collections import Counter

import msgspec

from workbench.diagnosis.verdicts import VerdictReader, QueryVerdicts
from workbench.insight.effective_size import EffectiveSize, effective_sizes
from workbench.insight.position import PositionTable, position_tables
from workbench.insight.stealers import Stealer, steals, top_stealers
from workbench.insight.unjudged import UnjudgedDoc, UnjudgedRow, unjudged
from workbench.project.files import Project
from workbench.records import Tier

MAX_ANSWER_BEARING = 30


class DistractorSplit(msgspec.Struct, frozen=True):
    level: str
    system: str
    interference: int  # D2
    volume: int  # D3
    unsplit: int  # D1: no near-miss answer yet


class UnjudgedFigure(msgspec.Struct, frozen=True):
    system: str
    tier: str
    queries: int
    slots: int
    unjudged: int
    share: float | None
    answer_bearing: int


class Insight(msgspec.Struct, frozen=True):
    keep: float
    effective: list[EffectiveSize]
    split: list[DistractorSplit]
    steals: int
    stealers: list[Stealer]
    unjudged: list[UnjudgedFigure]
    answer_bearing: list[UnjudgedDoc]  # the first MAX_ANSWER_BEARING, over every system and tier
    positions: list[PositionTable]


def _split(qv: QueryVerdicts) -> list[DistractorSplit]:
    counts = Counter((v.level, v.system, v.rule) for v in qv.verdicts if v.verdict == "USE-UNDER-DISTRACTORS")
    keys = dict.fromkeys((lv, s) for lv, s, _ in counts)
    return [DistractorSplit(lv, s, counts[(lv, s, "D2")], counts[(lv, s, "D3")], counts[(lv, s, "D1")]) for lv, s in keys]


def _figures(rows: list[UnjudgedRow]) -> list[UnjudgedFigure]:
    return [UnjudgedFigure(r.system, r.tier, r.queries, r.slots, r.unjudged, r.share, r.answer_bearing) for r in rows]


def insight_section(project: Project, tiers: list[Tier], collector: VerdictReader, qv: QueryVerdicts,
                    query_ids: set[str] | None, seed: int) -> Insight:
    rows = unjudged(project, tiers, qv.k, query_ids)
    bearing = list({(d.query_id, d.doc_id): d for r in rows for d in r.docs if d.answer_bearing}.values())
    found = steals(project, tiers, qv.k, query_ids)
    return Insight(
        keep=project.config.insight.keep, effective=effective_sizes(project, tiers, collector, seed=seed, query_ids=query_ids),
        split=_split(qv), steals=len(found), stealers=top_stealers(project, found), unjudged=_figures(rows),
        answer_bearing=bearing[:MAX_ANSWER_BEARING], positions=position_tables(project, tiers, collector, query_ids),
    )
