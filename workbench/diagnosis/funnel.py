"""The loss funnel: the one stage where each query's gold was lost, per (system, tier).

A pipeline loses the gold at distinct stages — the retriever never finds it, the ranking (or a
reranker's cut) puts it below K, the context handed to the reader leaves it out (a token budget,
truncation, production's prompt from its trace), or the reader has it all and answers wrong. Each
query lands in exactly one stage, the first that holds, in this order:

  right          the answer is decided correct (a PASS, parametric or not: the verdicts' P1 first)
  not_retrieved  a ranking is stored and no gold is in it at all (the retriever's stored depth)
  ranked_out     some gold retrieved, but not every gold in the top K (of the reranked list when
                 production's trace had a reranker: its cut)
  not_delivered  every gold in the top K (or no ranking), but not every gold in what the reader was
                 given (the answer's context_doc_ids)
  not_used       every gold delivered, the answer decided wrong
  no_answer      no answer yet (the verdict waits: NOT-YET): the gold is not lost at access, and no reader answered
  unknown        an answer, but nothing says where the gold went: what production read is unknown, or no
                 ranking is stored and the context lacks the gold
  undecided      an answer no rule decides (the verdict UNDECIDED's case): the gold delivered, the answer
                 neither right nor wrong

"undecided" is the name of one thing only, an answer no rule decides (the verdict UNDECIDED, the
correctness rule's decision): a query with no answer yet is "no answer yet", never undecided.

A long-context reader is handed the whole tier: its ranking is its own localization (as in the
verdicts' rule table) and delivery always holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Literal

import msgspec

if TYPE_CHECKING:
    from workbench.llm.answers import AnswerCheck

Stage = Literal["not_retrieved", "ranked_out", "not_delivered", "not_used", "right", "undecided", "unknown", "no_answer"]
STAGES: tuple[Stage, ...] = ("not_retrieved", "ranked_out", "not_delivered", "not_used", "right", "undecided", "unknown",
                             "no_answer")
# The stages where the gold is not (yet) known lost: an outcome that waits, not a loss.
WAITING: tuple[Stage, ...] = ("undecided", "unknown", "no_answer")
# How a front end names a stage (the report's bars, the TUI's Diagnosis tab, the why pane).
STAGE_LABELS: dict[str, str] = {
    "not_retrieved": "never retrieved", "ranked_out": "ranked below K", "not_delivered": "not given to the reader",
    "not_used": "given, answer wrong", "right": "right", "undecided": "answer undecided",
    "unknown": "not known where", "no_answer": "no answer yet",
}
# One letter per stage: the text bars' cells and their legend (the CLI, the Markdown report).
MARKS: dict[str, str] = {"right": "R", "not_used": "U", "not_delivered": "D", "ranked_out": "K", "not_retrieved": "N",
                         "undecided": "~", "unknown": "?", "no_answer": "."}
BAR_ORDER: tuple[str, ...] = ("right", "not_used", "not_delivered", "ranked_out", "not_retrieved", "undecided", "unknown",
                              "no_answer")


class FunnelCounts(msgspec.Struct, frozen=True):
    not_retrieved: int = 0
    ranked_out: int = 0
    not_delivered: int = 0
    not_used: int = 0
    right: int = 0
    undecided: int = 0
    unknown: int = 0
    no_answer: int = 0

    def as_dict(self) -> dict[str, int]:
        return {s: getattr(self, s) for s in STAGES}


class Funnel(msgspec.Struct, frozen=True):
    """One (system, tier)'s funnel: how many of its n queries were lost at each stage."""

    system: str
    tier: str
    level: str
    n: int
    funnel: FunnelCounts

    @property
    def lost(self) -> int:
        return self.n - self.funnel.right - sum(getattr(self.funnel, s) for s in WAITING)


def funnel_stage(gold: Sequence[int], k: int, ranking: Sequence[int] | None, answer: "AnswerCheck | None", *,
                 cut: Sequence[int] | None = None, whole_tier: bool = False, context_known: bool = True) -> Stage:
    """The stage where this query's gold was lost (module docstring). ``ranking`` the access source's
    stored ranking (None: none stored), ``cut`` a reranked list whose top K is what moves on,
    ``whole_tier`` the reader reads the whole tier, ``context_known`` production's import said what it read."""
    gold_set = set(gold)
    if answer is not None and answer.decided and answer.correct:
        return "right"
    if ranking is not None:
        if not gold_set & set(ranking):
            return "not_retrieved"
        top = set((cut if cut is not None else ranking)[:k])
        if not gold_set <= top:
            return "ranked_out"
    if answer is None:
        return "no_answer"
    if not whole_tier:
        if not context_known:
            return "unknown"  # what production read is unknown: delivery cannot be told from use
        if not gold_set <= set(answer.context_doc_ids):
            return "not_delivered" if ranking is not None else "unknown"
    return "not_used" if answer.decided else "undecided"


def funnels(verdicts: Iterable) -> list[Funnel]:
    """One Funnel per (system, tier), in the verdicts' order; counts add up to n."""
    counts: dict[tuple[str, str], dict[str, int]] = {}
    levels: dict[tuple[str, str], str] = {}
    for v in verdicts:
        key = (v.system, v.tier)
        levels.setdefault(key, v.level)
        slot = counts.setdefault(key, dict.fromkeys(STAGES, 0))
        slot[v.stage if v.stage in slot else "unknown"] += 1
    return [Funnel(system=s, tier=t, level=levels[(s, t)], n=sum(c.values()), funnel=FunnelCounts(**c))
            for (s, t), c in counts.items()]


def level_funnels(fs: Iterable[Funnel], system: str) -> list[Funnel]:
    """One system's funnels summed per level (the report's bar per level; base:<d> tiers are one level)."""
    out: dict[str, dict[str, int]] = {}
    for f in fs:
        if f.system != system:
            continue
        slot = out.setdefault(f.level, dict.fromkeys(STAGES, 0))
        for s, n in f.funnel.as_dict().items():
            slot[s] += n
    return [Funnel(system=system, tier=lv, level=lv, n=sum(c.values()), funnel=FunnelCounts(**c)) for lv, c in out.items()]


def bar(counts: FunnelCounts, width: int = 40) -> str:
    """A text bar, one letter per stage (MARKS; bar_legend says them), cells in proportion: for
    terminals and Markdown."""
    d = counts.as_dict()
    n = sum(d.values())
    if not n:
        return ""
    return "".join(MARKS[s] * round(width * d[s] / n) for s in BAR_ORDER)


def bar_legend() -> str:
    """What each letter of a bar means: "R right, U given, answer wrong, …" (the CLI and the report say the same)."""
    return ", ".join(f"{MARKS[s]} {STAGE_LABELS[s]}" for s in BAR_ORDER)


def counts_line(counts: FunnelCounts) -> str:
    return ", ".join(f"{STAGE_LABELS[s]} {n}" for s, n in counts.as_dict().items() if n)
