"""The distractors a system ranked above the gold, with the constraint they differ in.

Built on inspection/rankings.py's near misses (a non-gold document in the top K above a gold document,
paired with the gold document it most resembles) and inspection/worddiff.py's salient changes (the years,
numbers and names found on one side only): usually the one constraint that matters.
"""

from __future__ import annotations

import msgspec

from workbench.inspection.rankings import inspect_query, lost_gold
from workbench.project.files import Project
from workbench.records import Hit, Query, Tier
from workbench.inspection.worddiff import Span, salient_changes, word_diff

MAX_DISTRACTORS = 5
MAX_WORDS = 8
CONTEXT_TOKENS = 8  # tokens kept either side of a change
MAX_SPANS = 160


def around_changes(spans: list[Span], context: int = CONTEXT_TOKENS) -> list[tuple[str, bool]]:
    """The spans near a changed word, merged into runs; "…" marks what was left out."""
    keep: set[int] = set()
    for i, s in enumerate(spans):
        if s.changed and s.kind not in ("space", "punct"):
            keep.update(range(max(0, i - context), min(len(spans), i + context + 1)))
    out: list[tuple[str, bool]] = []
    last = -1
    for i in sorted(keep)[:MAX_SPANS]:
        if i != last + 1:
            out.append(("…", False))
        text, changed = spans[i].text, spans[i].changed and spans[i].kind not in ("space", "punct")
        if out and out[-1][1] == changed and out[-1][0] != "…":
            out[-1] = (out[-1][0] + text, changed)
        else:
            out.append((text, changed))
        last = i
    if keep and last < len(spans) - 1:
        out.append(("…", False))
    return out


class Distractor(msgspec.Struct, frozen=True):
    doc_id: int
    title: str
    kind: str  # hard_negative | other
    rank: int  # in the access system's ranking
    above_gold: list[int]
    imitates: int
    imitates_title: str
    distractor_has: list[str]  # salient words only the distractor has (years, numbers, names first)
    gold_has: list[str]
    similarity: float  # word overlap with the imitated gold document
    # The two texts around their differences: (text, changed) spans, "…" where text was left out.
    distractor_spans: list[tuple[str, bool]] = []
    gold_spans: list[tuple[str, bool]] = []


def _text(project: Project, doc_id: int) -> str:
    d = project.documents[doc_id]
    return f"{d.title}\n{d.text}"


def distractors(project: Project, tier: Tier, query: Query, system: str, ranked: list[int], k: int, limit: int = MAX_DISTRACTORS) -> list[Distractor]:
    hits = [Hit(d, float(len(ranked) - i)) for i, d in enumerate(ranked)]
    ins = inspect_query(project, tier, query, {system: hits}, k)
    out = []
    lost = lost_gold(ins.systems, k)  # the lost gold's imitators first, each group by rank
    for m in sorted(ins.near_misses, key=lambda m: (m.imitates not in lost, m.ranks[system], m.doc_id))[:limit]:
        diff = word_diff(_text(project, m.doc_id), _text(project, m.imitates))
        left, right = salient_changes(diff)
        out.append(Distractor(
            doc_id=m.doc_id, title=m.title, kind=m.kind, rank=m.ranks[system], above_gold=m.above_gold,
            imitates=m.imitates, imitates_title=project.documents[m.imitates].title,
            distractor_has=(left or diff.left_only)[:MAX_WORDS], gold_has=(right or diff.right_only)[:MAX_WORDS],
            similarity=m.similarity, distractor_spans=around_changes(diff.left), gold_spans=around_changes(diff.right),
        ))
    return out
