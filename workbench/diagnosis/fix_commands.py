"""Access fixes you can run: for the diagnosed ranking system, each fix of ``ACCESS_FIXES`` with the
command that tries it on this project, the `compare` that judges it, and its measured effect once
its system is stored (the paired test at the largest level, with the interval).

For the diagnosis's recommendations and the TUI's Diagnosis tab to show beside each fix.
"""

from __future__ import annotations

import shlex
from typing import Literal

import msgspec

from workbench.diagnosis.collect import Collector, level_of
from workbench.diagnosis.compare import CompareError, compare
from workbench.diagnosis.overview import ACCESS_FIXES
from workbench.display import fmt
from workbench.names import RERANK_MARK, TUNED_SUFFIX
from workbench.project.files import Project
from workbench.records import Tier

RERANK_DEPTH = 100  # "a reranker over the top 100 before the top K is cut"
# a chat model scores one pair per call: twice K is the least depth that can still bring a document
# into the top K (a reorder inside it moves no set-based figure) at a fifth of the calls
LLM_DEPTH_PER_K = 2
FixKind = Literal["hybrid", "rerank", "tune"]


class RunnableFix(msgspec.Struct, frozen=True):
    fix: str  # the recommendation's text (ACCESS_FIXES)
    system: str  # the system the command makes
    command: str  # tries it on this project
    judge: str  # the compare that judges it
    effect: str | None = None  # measured, once the system is stored
    note: str = ""  # what to do first (e.g. configure a reranker)
    kind: FixKind = "hybrid"
    tiers: list[str] = []  # the tiers it is judged on (the ladder's largest level)

    @property
    def runnable(self) -> bool:
        """Runs here without a new setting, in minutes: a configured rerank (tuning takes longer)."""
        return self.kind == "rerank" and not self.note


def _effect(project: Project, tiers: list[Tier], base: str, system: str, collector: Collector) -> str | None:
    if not tiers:
        return None
    level = level_of(tiers[-1])
    chosen = [t for t in tiers if level_of(t) == level]
    if not any(system in collector.tier_store(t).rankings for t in chosen):
        return None
    try:
        c = compare(project, chosen, system, base, k=collector.k)
    except CompareError:
        return None
    t = c.test
    if not t.n:
        return None
    return (f"{c.metric} at {level}: {fmt(c.mean_b)} → {fmt(c.mean_a)}, difference {fmt(t.mean_diff)} "
            f"[{fmt(t.ci.low, 3)}, {fmt(t.ci.high, 3)}], p = {fmt(t.p_value, 4)} (n = {t.n})")


def runnable_fixes(project: Project, system: str, tiers: list[Tier], collector: Collector | None = None) -> list[RunnableFix]:
    """The access fixes for ranking system ``system``, in ACCESS_FIXES order (hybrid left out when it is hybrid)."""
    collector = collector or Collector(project)
    root = shlex.quote(str(project.root))
    judged = [t.name for t in tiers if level_of(t) == level_of(tiers[-1])] if tiers else []
    on = f" --tiers {shlex.quote(','.join(judged))}" if judged else ""
    out = []

    def add(kind: FixKind, made: str, command: str, note: str = "") -> None:
        judge = f"workbench compare {root} {shlex.quote(system)} {shlex.quote(made)}{on}"
        fix = ACCESS_FIXES[("hybrid", "rerank", "tune").index(kind)]
        out.append(RunnableFix(fix, made, command, judge, _effect(project, tiers, system, made, collector), note, kind, judged))

    if system != "hybrid":
        add("hybrid", "hybrid", f"workbench eval {root} --retrievers hybrid")
    reranker = next(iter(project.config.rerankers), "")
    backend = project.config.rerankers[reranker].backend if reranker else ""
    depth = LLM_DEPTH_PER_K * collector.k if backend == "llm" else RERANK_DEPTH
    made = f"{system}{RERANK_MARK}{reranker or 'NAME'}@{depth}"
    add("rerank", made, f"workbench rerank {root} {shlex.quote(made)}{on}",
        "" if reranker else "add a [rerankers.NAME] table to workbench.toml first (README: Trying a fix)")
    tuned = f"{'hybrid' if system == 'hybrid' else 'dense'}{TUNED_SUFFIX}"
    add("tune", tuned, f"workbench tune {root}",
        "judged on the held-out queries only (the split is printed by the command); "
        "minutes of CPU training, so not a TUI key")
    return out


def fix_lines(fix: RunnableFix) -> list[str]:
    """What a recommendation carries, one line each: try, judge, and the measured effect."""
    lines = [f"try: {fix.command}", f"judge: {fix.judge}"]
    if fix.note:
        lines.append(f"note: {fix.note}")
    lines.append(f"measured: {fix.effect}" if fix.effect else f"measured: not tried yet ({fix.system} is not stored)")
    return lines
