"""One query on one tier, as an engineer inspects it: every system's ranked list, where each gold
document landed (including below the top K), and the near-miss distractors that outranked gold.

Rankings come from the run store (retriever runs written by `evaluate`, model localization runs
`model:<name>:localize`), so inspecting never recomputes anything. Headless: no Rich, no Textual.

A *near miss* is a non-gold document ranked within the top K of some system above at least one
gold document of the query (a gold document that was not retrieved at all counts as ranked below
everything) that looks like the evidence: a verified hard negative, or a document sharing at least
NEAR_MISS_MIN_OVERLAP of its words with a gold document. Each near miss is paired with the gold
document it most resembles (word-set Jaccard over title + text), the one it imitates.
"""

from __future__ import annotations

import re
from typing import Literal

import msgspec

from workbench.access.metrics import unique_in_order
from workbench.project.files import Project
from workbench.records import Document, Hit, Query, Tier
from workbench.access.retrievers import system_order
from workbench.inspection.movement import ranks_before
from workbench.access.runs import RunStore
from workbench.inspection.worddiff import WordDiff, word_diff
from workbench.project.settings import access_k

RowKind = Literal["gold", "hard_negative", "other"]
GOLD: RowKind = "gold"
HARD_NEGATIVE: RowKind = "hard_negative"
OTHER: RowKind = "other"
# An unverified document must share at least this share of its words (Jaccard) with a gold document
# to count as a near miss: above gold but unlike it, it is just noise ranked high (0.12 was listed).
NEAR_MISS_MIN_OVERLAP = 0.2
_WORD = re.compile(r"\w+")


class RankedRow(msgspec.Struct, frozen=True):
    rank: int
    doc_id: int
    title: str
    score: float
    kind: RowKind


class SystemRanking(msgspec.Struct, frozen=True):
    system: str
    rows: list[RankedRow]  # the top K
    depth: int  # how many ranks the stored run kept
    # 1-based rank of each gold DocID in the full stored ranking; None = not retrieved at all.
    gold_ranks: dict[int, int | None]
    # A reranked or tuned system: each shown document's rank under its base ("#16 → #3"); else empty.
    before: dict[int, int | None] = {}

    @property
    def all_gold_in_top_k(self) -> bool:
        k = len(self.rows)
        return all(r is not None and r <= k for r in self.gold_ranks.values())


class NearMiss(msgspec.Struct, frozen=True):
    doc_id: int
    title: str
    kind: RowKind  # hard_negative | other
    ranks: dict[str, int]  # system -> rank, for each system where it outranks a gold document
    above_gold: list[int]  # gold DocIDs it outranks in at least one system
    imitates: int  # the gold DocID it most resembles
    similarity: float  # Jaccard of word sets with that gold document

    @property
    def best_rank(self) -> int:
        return min(self.ranks.values())


class QueryInspection(msgspec.Struct, frozen=True):
    query_id: str
    tier: str
    k: int
    gold: list[int]
    hard_negatives: list[int]
    systems: list[SystemRanking]
    near_misses: list[NearMiss]
    gold_in_tier: list[int]  # gold documents present in this tier (all of them, by construction)
    # near-miss DocID -> word diff against the gold document it imitates (computed once, here)
    diffs: dict[int, WordDiff] = {}

    def system(self, name: str) -> SystemRanking | None:
        return next((s for s in self.systems if s.system == name), None)


def row_kind(doc_id: int, query: Query) -> RowKind:
    if doc_id in query.gold_doc_ids:
        return GOLD
    if doc_id in query.hard_negative_ids:
        return HARD_NEGATIVE
    return OTHER


def stored_rankings(project: Project, tier: Tier, query_id: str, store: RunStore | None = None) -> dict[str, list[Hit]]:
    """Every stored system's ranking of this query on this tier (current runs only), retrievers first."""
    store = store or RunStore(project)
    out: dict[str, list[Hit]] = {}
    for run in sorted(store.runs(tier), key=lambda r: system_order(r.system)):  # each file decoded once
        hits = run.hits(query_id)
        if hits is not None:
            out[run.system] = hits
    return out


def _words(doc: Document) -> set[str]:
    return {w.lower() for w in _WORD.findall(f"{doc.title} {doc.text}")}


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def inspect_query(
    project: Project, tier: Tier, query: Query, rankings: dict[str, list[Hit]], k: int | None = None
) -> QueryInspection:
    k = access_k(project) if k is None else k  # None: the project's K, never a literal one
    gold = sorted(query.gold_doc_ids)
    systems: list[SystemRanking] = []
    near: dict[int, dict] = {}
    for system in sorted(rankings, key=system_order):
        hits = unique_in_order(rankings[system], key=lambda h: h.doc_id)
        position = {h.doc_id: n for n, h in enumerate(hits, 1)}
        gold_ranks = {g: position.get(g) for g in gold}
        rows = []
        for n, h in enumerate(hits[:k], 1):
            doc = project.documents.get(h.doc_id)
            title = doc.title if doc else f"<DocID {h.doc_id} not in corpus>"
            kind = row_kind(h.doc_id, query)
            rows.append(RankedRow(n, h.doc_id, title, h.score, kind))
            if kind == GOLD or doc is None:
                continue
            beaten = [g for g, r in gold_ranks.items() if r is None or r > n]
            if beaten:
                entry = near.setdefault(h.doc_id, {"ranks": {}, "above": set(), "title": title, "kind": kind})
                entry["ranks"][system] = n
                entry["above"].update(beaten)
        base = ranks_before({s: [h.doc_id for h in hs] for s, hs in rankings.items()}, system)
        shown = [r.doc_id for r in rows] + list(gold)
        before = {d: base.get(d) for d in shown} if base is not None else {}
        systems.append(SystemRanking(system, rows, len(hits), gold_ranks, before))

    gold_words = {g: _words(project.documents[g]) for g in gold if g in project.documents}
    misses = []
    for doc_id, e in near.items():
        words = _words(project.documents[doc_id])
        sims = sorted(((jaccard(words, gw), g) for g, gw in gold_words.items()), key=lambda x: (-x[0], x[1]))
        sim, imitates = sims[0] if sims else (0.0, gold[0])
        if e["kind"] != HARD_NEGATIVE and sim < NEAR_MISS_MIN_OVERLAP:
            continue
        misses.append(NearMiss(
            doc_id=doc_id, title=e["title"], kind=e["kind"], ranks=dict(sorted(e["ranks"].items(), key=lambda kv: system_order(kv[0]))),
            above_gold=sorted(e["above"]), imitates=imitates, similarity=round(sim, 4),
        ))
    # Those imitating a LOST gold first (ranked out of some system's top K: the one to explain; a
    # multi-source query's found gold has imitators too), then hard negatives (verified
    # distractors), then by best rank, then DocID.
    lost = lost_gold(systems, k)
    misses.sort(key=lambda m: (m.imitates not in lost, m.kind != HARD_NEGATIVE, m.best_rank, m.doc_id))
    in_tier = set(tier.doc_ids)
    diffs = {m.doc_id: word_diff(_doc_text(project.documents[m.doc_id]), _doc_text(project.documents[m.imitates]))
             for m in misses}
    return QueryInspection(
        query_id=query.query_id, tier=tier.name, k=k, gold=gold, hard_negatives=sorted(query.hard_negative_ids),
        systems=systems, near_misses=misses, gold_in_tier=[g for g in gold if g in in_tier], diffs=diffs,
    )


def lost_gold(systems: list[SystemRanking], k: int) -> set[int]:
    """The gold documents some system ranks below K (or not at all). A system that ranked nothing
    for the query (an imported run without it: depth 0) loses nothing: it never searched."""
    return {g for s in systems if s.depth for g, r in s.gold_ranks.items() if r is None or r > k}


def _doc_text(doc: Document) -> str:
    return f"{doc.title}\n{doc.text}"


def inspect_stored(project: Project, tier: Tier, query: Query, k: int | None = None, store: RunStore | None = None) -> QueryInspection:
    """``k`` None: the project's K (workbench.project.settings.access_k)."""
    return inspect_query(project, tier, query, stored_rankings(project, tier, query.query_id, store), k)

