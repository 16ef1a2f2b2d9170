"""Unjudged and answer-bearing documents in a system's top K (trec_eval's and ranx's unjudged count).

Per system × tier, over the tier's labelled queries: of the top-K slots of every ranking, the share
holding a document that nobody judged for that query: neither gold, nor a labelled hard negative,
nor labelled otherwise (a label record for that query and document anywhere in the loaded
query-set version's lineage: marked not relevant, or a collide verdict). Among the unjudged, the
*answer-bearing* ones state the reference answer in one of its forms in their title or text
(workbench/correctness.py's answer_span: whole words, a one-number answer as that number read whole
with its unit): likely missing gold, the first ones to label. The forms (answer_forms): the answer,
its canonical head, its aliases and its alternatives written "A | B" or "A; B"; a comparison's
("X (A: v; B: w)") only its aliases, since naming a candidate answers nothing.

`query_unjudged` is one query's list on one tier, over every system, answer-bearing first: what the
inspector's stepper walks through.
"""

from __future__ import annotations

import re

import msgspec

from workbench.access.metrics import unique_in_order
from workbench.insight.stored import labelled_rankings, ordered_runs
from workbench.correctness import answer_span, canonical_head, comparison_candidates, normalize
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
    alias: str = ""  # the form of the answer found in it
    in_title: bool = False  # where: the title, else the text
    start: int = -1  # the answer's characters in it (-1: not answer-bearing)
    end: int = -1


class StepperDoc(msgspec.Struct, frozen=True):
    """One unjudged document of one query on one tier, over every system that retrieved it."""

    doc: UnjudgedDoc  # at its best rank
    ranks: dict[str, int]  # system → rank in its top K


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
    return [a for a in dict.fromkeys(out) if _worth_finding(a)]


def _worth_finding(form: str) -> bool:
    n = normalize(form)
    return (len(n) >= 2 or n.isdigit()) and n not in NOT_ANSWERS


def answer_forms(q: Query) -> list[str]:
    """The wordings of q's answer a document may state (the module's docstring says which)."""
    if comparison_candidates(q.answer) is not None:
        return [a for a in dict.fromkeys(q.answer_aliases) if _worth_finding(a)]
    head = canonical_head(q)
    forms = [*aliases(q.answer), *(aliases(head) if head != q.answer else []), *q.answer_aliases]
    return [a for a in dict.fromkeys(f.strip() for f in forms) if _worth_finding(a)]


def judged_elsewhere(project: Project) -> dict[str, set[int]]:
    """Per query, the documents some label record of the loaded version's lineage judged."""
    out: dict[str, set[int]] = {}
    for name in lineage(project.root, project.queries_version):
        for r in read_labels(project.root, name):
            if r.doc_id is not None:
                out.setdefault(r.query_id, set()).add(r.doc_id)
    return out


def bearing_form(project: Project, doc_id: int, forms: list[str]) -> tuple[str, bool, int, int] | None:
    """(form, in title, start, end) of the first form of the answer the document states, else None."""
    doc = project.documents[doc_id]
    for form in forms:
        for in_title, text in ((True, doc.title), (False, doc.text)):
            span = answer_span(text, form)
            if span is not None:
                return form, in_title, *span
    return None


def unjudged(project: Project, tiers: list[Tier], k: int | None = None, query_ids: set[str] | None = None) -> list[UnjudgedRow]:
    k = k or project.config.retrievers.k
    judged = judged_elsewhere(project)
    names: dict[str, list[str]] = {}
    bearing: dict[tuple[str, int], tuple[str, bool, int, int] | None] = {}  # the same pair on many tiers and systems
    rows = []
    for tier in tiers:
        for run in ordered_runs(project, tier):
            slots, docs, n = 0, [], 0
            for ranked, q in labelled_rankings(project, run, query_ids):
                n += 1
                top = unique_in_order([h.doc_id for h in ranked.hits])[:k]
                slots += len(top)
                alias_list = names.setdefault(q.query_id, answer_forms(q))
                docs += [_doc(project, q, d, rank, alias_list, bearing) for rank, d in enumerate(top, 1)
                         if _unjudged(q, d, judged.get(q.query_id, set())) and d in project.documents]
            rows.append(UnjudgedRow(run.system, tier.name, k, n, slots, len(docs), sum(d.answer_bearing for d in docs), docs))
    return rows


def _unjudged(q: Query, doc_id: int, elsewhere: set[int]) -> bool:
    return doc_id not in q.gold_doc_ids and doc_id not in q.hard_negative_ids and doc_id not in elsewhere


def _doc(project: Project, q: Query, doc_id: int, rank: int, forms: list[str],
         memo: dict[tuple[str, int], tuple[str, bool, int, int] | None]) -> UnjudgedDoc:
    title = project.documents[doc_id].title
    key = (q.query_id, doc_id)
    if key not in memo:
        memo[key] = bearing_form(project, doc_id, forms)
    found = memo[key]
    if found is None:
        return UnjudgedDoc(q.query_id, doc_id, title, rank, False)
    form, in_title, start, end = found
    return UnjudgedDoc(q.query_id, doc_id, title, rank, True, form, in_title, start, end)


def query_unjudged(project: Project, tier: Tier, query_id: str, k: int | None = None) -> list[StepperDoc]:
    """One query's unjudged documents on one tier, each once over the systems' top K: answer-bearing
    first, then by best rank, then DocID."""
    seen: dict[int, StepperDoc] = {}
    for row in unjudged(project, [tier], k, {query_id}):
        for d in row.docs:
            was = seen.get(d.doc_id)
            ranks = {**(was.ranks if was else {}), row.system: d.rank}
            best = d if was is None or d.rank < was.doc.rank else was.doc
            seen[d.doc_id] = StepperDoc(best, ranks)
    return sorted(seen.values(), key=lambda s: (not s.doc.answer_bearing, s.doc.rank, s.doc.doc_id))


def queries_with_answer_bearing(project: Project, tiers: list[Tier], k: int | None = None) -> set[str]:
    """The queries with an answer-bearing unjudged document in some system's top K on some tier."""
    return {d.query_id for row in unjudged(project, tiers, k) for d in row.docs if d.answer_bearing}
