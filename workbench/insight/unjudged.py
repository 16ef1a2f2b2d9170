"""Unjudged and answer-bearing documents in a system's top K (trec_eval's and ranx's unjudged count).

Per system × tier, over the tier's labelled queries: of the top-K slots of every ranking, the share
holding a document that nobody judged for that query: neither gold, nor a labelled hard negative,
nor labelled otherwise (a label record for that query and document anywhere in the loaded
query-set version's lineage: marked not relevant, or a collide verdict). Among the unjudged, the
*answer-bearing* ones contain the reference answer or one of its aliases in their title or text
(normalised, whole words: workbench/correctness.py's contains match): likely missing gold, the
first ones to label. Aliases: the reference answer's alternatives written "A | B" or "A; B".
"""

from __future__ import annotations

import re

import msgspec

from workbench.access.metrics import unique_in_order
from workbench.access.retrievers import system_order
from workbench.access.runs import RunStore
from workbench.correctness import contains_match, normalize
from workbench.project.files import Project
from workbench.project.versions import lineage, read_labels
from workbench.records import Query, Tier

_ALTERNATIVES = re.compile(r"\s*[|;]\s*")
NOT_ANSWERS = {"yes", "no", "true", "false"}  # found in almost any text: never evidence of the answer


class UnjudgedDoc(msgspec.Struct, frozen=True):
    query_id: str
    doc_id: int
    title: str
    rank: int
    answer_bearing: bool
    alias: str = ""  # the alias found in it


class UnjudgedRow(msgspec.Struct, frozen=True):
    system: str
    tier: str
    k: int
    queries: int
    slots: int  # top-K slots filled, over the queries
    unjudged: int
    answer_bearing: int
    docs: list[UnjudgedDoc]

    @property
    def share(self) -> float | None:
        return self.unjudged / self.slots if self.slots else None


def aliases(answer: str) -> list[str]:
    """The reference answer and its alternatives, without those that would match any text."""
    out = [answer.strip(), *_ALTERNATIVES.split(answer.strip())]
    return [a for a in dict.fromkeys(out) if len(normalize(a)) >= 2 and normalize(a) not in NOT_ANSWERS]


def judged_elsewhere(project: Project) -> dict[str, set[int]]:
    """Per query, the documents some label record of the loaded version's lineage judged."""
    out: dict[str, set[int]] = {}
    for name in lineage(project.root, project.queries_version):
        for r in read_labels(project.root, name):
            if r.doc_id is not None:
                out.setdefault(r.query_id, set()).add(r.doc_id)
    return out


def bearing_alias(project: Project, doc_id: int, names: list[str]) -> str:
    doc = project.documents[doc_id]
    return next((a for a in names if contains_match(f"{doc.title} {doc.text}", a)), "")


def unjudged(project: Project, tiers: list[Tier], k: int | None = None, query_ids: set[str] | None = None) -> list[UnjudgedRow]:
    k = k or project.config.retrievers.k
    judged = judged_elsewhere(project)
    names: dict[str, list[str]] = {}
    rows = []
    for tier in tiers:
        for run in sorted(RunStore(project).runs(tier), key=lambda r: system_order(r.system)):
            slots, docs, n = 0, [], 0
            for ranked in run.rankings:
                if not project.has_query(ranked.query_id) or (query_ids is not None and ranked.query_id not in query_ids):
                    continue
                q = project.query(ranked.query_id)
                if not q.is_labelled:
                    continue
                n += 1
                top = unique_in_order([h.doc_id for h in ranked.hits])[:k]
                slots += len(top)
                alias_list = names.setdefault(q.query_id, aliases(q.answer))
                docs += [_doc(project, q, d, rank, alias_list) for rank, d in enumerate(top, 1)
                         if _unjudged(q, d, judged.get(q.query_id, set())) and d in project.documents]
            rows.append(UnjudgedRow(run.system, tier.name, k, n, slots, len(docs), sum(d.answer_bearing for d in docs), docs))
    return rows


def _unjudged(q: Query, doc_id: int, elsewhere: set[int]) -> bool:
    return doc_id not in q.gold_doc_ids and doc_id not in q.hard_negative_ids and doc_id not in elsewhere


def _doc(project: Project, q: Query, doc_id: int, rank: int, names: list[str]) -> UnjudgedDoc:
    alias = bearing_alias(project, doc_id, names)
    return UnjudgedDoc(q.query_id, doc_id, project.documents[doc_id].title, rank, bool(alias), alias)
