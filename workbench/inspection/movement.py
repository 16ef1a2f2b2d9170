"""Rank movement between two ranking systems: where each gold document and each hard negative
(near miss) of a query was under A and where it is under B, per query × tier.

A reranker is one B (its base is A), but any pair works: bm25 vs dense, production vs hybrid.
Counts, per (query, tier):
  gold promoted:  a gold document outside A's top K is inside B's (gold demoted: the reverse);
  near miss demoted below its gold: a hard negative ranked above at least one of the query's gold
  documents under A is below all of them under B (promoted above its gold: the reverse).
A rank is 1-based in the system's stored ranking; None = not ranked at all (below its depth).
"""

from __future__ import annotations

import math
from typing import Literal

import msgspec

from workbench.names import SystemName, untuned
from workbench.records import Query

Role = Literal["gold", "near_miss"]


class DocMove(msgspec.Struct, frozen=True, array_like=True):
    query_id: str
    tier: str
    doc_id: int
    role: Role
    before: int | None  # rank under A
    after: int | None  # rank under B


class MovementCounts(msgspec.Struct, frozen=True):
    k: int
    n_pairs: int  # (query, tier) pairs both systems ranked
    gold_promoted: int  # into B's top K
    gold_demoted: int  # out of B's top K
    near_misses_demoted: int  # below their gold under B
    near_misses_promoted: int  # above their gold under B


class RankMovement(msgspec.Struct, frozen=True):
    a: str
    b: str
    counts: MovementCounts
    moves: list[DocMove]


def positions(ranking: list[int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for rank, doc_id in enumerate(ranking, 1):
        out.setdefault(doc_id, rank)
    return out


def query_moves(query: Query, tier: str, a: list[int], b: list[int]) -> list[DocMove]:
    pa, pb = positions(a), positions(b)
    roles: list[tuple[Role, list[int]]] = [("gold", query.gold_doc_ids), ("near_miss", query.hard_negative_ids)]
    return [DocMove(query.query_id, tier, d, role, pa.get(d), pb.get(d)) for role, ids in roles for d in sorted(set(ids))]


def _rank(r: int | None) -> float:
    return math.inf if r is None else r


def _above_gold(rank: int | None, gold_ranks: list[int | None]) -> bool:
    """Ranked above at least one gold document (an unranked gold is below every ranked document)."""
    return rank is not None and any(rank < _rank(g) for g in gold_ranks)


def count_moves(moves: list[DocMove], k: int) -> MovementCounts:
    by_pair: dict[tuple[str, str], list[DocMove]] = {}
    for m in moves:
        by_pair.setdefault((m.query_id, m.tier), []).append(m)
    gp = gd = nd = np_ = 0
    for items in by_pair.values():
        gold = [m for m in items if m.role == "gold"]
        gold_a, gold_b = [m.before for m in gold], [m.after for m in gold]
        for m in gold:
            in_a, in_b = _rank(m.before) <= k, _rank(m.after) <= k
            gp += in_b and not in_a
            gd += in_a and not in_b
        for m in items:
            if m.role == "near_miss":
                above_a, above_b = _above_gold(m.before, gold_a), _above_gold(m.after, gold_b)
                nd += above_a and not above_b
                np_ += above_b and not above_a
    return MovementCounts(k, len(by_pair), gp, gd, nd, np_)


def movement(a: str, b: str, pairs: list[tuple[Query, str, list[int], list[int]]], k: int) -> RankMovement:
    """``pairs``: (query, tier, A's ranking, B's ranking) for every pair both ranked."""
    moves = [m for q, tier, ra, rb in pairs for m in query_moves(q, tier, ra, rb)]
    return RankMovement(a, b, count_moves(moves, k), moves)


def fix_base(system: str) -> str | None:
    """The system a fix is judged against: a reranked system's base, a tuned retriever's untuned
    one (``dense@tuned`` → ``dense``); None for any other."""
    name = SystemName.parse(system)
    return name.base if name.kind == "rerank" else untuned(system)


def ranks_before(rankings: dict[str, list[int]], system: str) -> dict[int, int] | None:
    """Each document's rank under the base ``system`` is judged against (the inspector's ``#16 → #3``):
    None when the system has no base or the base has no ranking here."""
    base = fix_base(system)
    return positions(rankings[base]) if base is not None and base in rankings else None


def movement_line(m: MovementCounts, b: str) -> str:
    return (f"{b} promoted {m.gold_promoted} gold document(s) into the top {m.k} and demoted {m.gold_demoted}; "
            f"it demoted {m.near_misses_demoted} near miss(es) below their gold and promoted {m.near_misses_promoted} "
            f"(over {m.n_pairs} query × tier pairs)")
