"""Access fixes you can run: for the diagnosed ranking system, each fix of ``ACCESS_FIXES`` with the
command that tries it on this project, the `compare` that judges it, and its measured effect once
its system is stored (the paired test at the largest level, with the interval).

For the diagnosis's recommendations and the TUI's Diagnosis tab to show beside each fix.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from workbench.diagnosis.verdicts import VerdictReader, level_of
from workbench.diagnosis.overview import ACCESS_FIXES
from workbench.display import fmt
from workbench.names import RERANK_MARK, TUNED_SUFFIX
from workbench.project.files import Project
from workbench.records import Tier
from workbench.project.suggest import command as suggest

RERANK_DEPTH = 100  # "a reranker over the top 100 before the top K is cut"
# a chat model scores one pair per call: twice K is the least depth that can still bring a document
# into the top K (a reorder inside it moves no set-based figure) at a fifth of the calls
LLM_DEPTH_PER_K = 2
FixKind = Literal["hybrid", "rerank", "tune"]
# The embedded model answers one (query, document) pair per call; on this project's 2 CPU cores a
# call took 1–5 s (README: Trying a fix). Past this many pairs a rerank through it is an hour or
# more, not a key press: the key moves on to the next fix and the tab says why.
EMBEDDED_LLM_KEY_PAIRS = 300
EMBEDDED_LLM_S_PER_PAIR = (1.0, 5.0)


class RunnableFix(msgspec.Struct, frozen=True):
    fix: str  # the recommendation's text (ACCESS_FIXES)
    system: str  # the system the command makes
    command: str  # tries it on this project
    judge: str  # the compare that judges it
    effect: str | None = None  # measured, once the system is stored
    note: str = ""  # what to do first (e.g. configure a reranker)
    kind: FixKind = "hybrid"
    tiers: list[str] = []  # the tiers it is judged on (the ladder's largest level)
    about: str = ""  # how it is judged (a tuned system: held-out queries only)
    skipped: str = ""  # why the Diagnosis tab's key does not run it here: its cost on this machine
    pairs: int = 0  # a rerank: (query, document) pairs it scores at most

    @property
    def runnable(self) -> bool:
        """Runs from the Diagnosis tab's key: a configured rerank that is not too costly here, or
        fine-tuning where there are hard negatives to train on."""
        return self.kind in ("rerank", "tune") and not self.note and not self.skipped


def _effect(project: Project, tiers: list[Tier], base: str, system: str, collector: VerdictReader) -> str | None:
    """The measured effect, as the report states it (workbench/diagnosis/fix_effect.py): FR@K on the largest
    level's multi-source queries (SR@K where it has none), the paired test, n and the rank movement."""
    from workbench.diagnosis.fix_effect import fix_effect  # the report's one computation of a fix's effect

    chosen = [t for t in tiers if level_of(t) == level_of(tiers[-1])] if tiers else []
    if not any(system in collector.tier_store(t).rankings for t in chosen):
        return None
    f = fix_effect(project, chosen, collector, base, system)
    if f is None or not f.test.n:
        return None
    t, m = f.test, f.movement
    which = " multi-source" if f.metric.startswith("FR") else ""
    return (f"{f.metric} at {f.level}: {fmt(f.before.mean)} → {fmt(f.after.mean)}, difference {fmt(t.mean_diff)} "
            f"[{fmt(t.ci.low, 3)}, {fmt(t.ci.high, 3)}], p = {fmt(t.p_value, 4)} (n = {t.n}{which} queries); "
            f"gold into the top {m.k} {m.gold_promoted}, out {m.gold_demoted}; near misses below their gold "
            f"{m.near_misses_demoted}, above {m.near_misses_promoted}")


def _embedded_llm(project: Project, reranker: str) -> bool:
    """Whether the reranker is the `llm` backend on the embedded CPU server (not a served model)."""
    from workbench.llm.providers import resolve_model
    from workbench.errors import WorkbenchError

    config = project.config.rerankers[reranker]
    if config.backend != "llm":
        return False
    try:
        return not resolve_model(project, config.model or None)[1].base_url
    except WorkbenchError:
        return False


def _too_costly(pairs: int) -> str:
    lo, hi = (pairs * s / 60 for s in EMBEDDED_LLM_S_PER_PAIR)
    return (f"not run by the key here: {pairs:,} pointwise calls to the embedded CPU model, about {lo:.0f}–{hi:.0f} "
            "minutes at 1–5 s a call (more on a busy machine); run the command in a shell (it resumes), or "
            "configure a cross-encoder or a served model")


def _tune_blocker(project: Project) -> str:
    if project.config.embedding.backend != "sentence-transformers":
        return "fine-tuning needs a sentence-transformers embedder ([embedding] backend)"
    if not any(q.hard_negative_ids and q.gold_doc_ids for q in project.queries):
        return "no query has hard negatives to train on: run `workbench collide` first"
    return ""


def runnable_fixes(project: Project, system: str, tiers: list[Tier], collector: VerdictReader | None = None) -> list[RunnableFix]:
    """The access fixes for ranking system ``system``, in ACCESS_FIXES order (hybrid left out when it is hybrid)."""
    collector = collector or VerdictReader(project)
    root = project.root
    judged = [t.name for t in tiers if level_of(t) == level_of(tiers[-1])] if tiers else []
    on = ",".join(judged) or None  # --tiers: the level the fix is judged on
    queries = sum(len(project.tier_query_ids(t)) for t in tiers if t.name in judged)
    out = []

    def add(kind: FixKind, made: str, command: str, note: str = "", **more) -> None:
        judge = suggest("compare", root, system, made, tiers=on)
        fix = ACCESS_FIXES[("hybrid", "rerank", "tune").index(kind)]
        out.append(RunnableFix(fix, made, command, judge, _effect(project, tiers, system, made, collector), note, kind,
                               judged, **more))

    if system != "hybrid":
        add("hybrid", "hybrid", suggest("eval", root, retrievers="hybrid"))
    reranker = next(iter(project.config.rerankers), "")
    backend = project.config.rerankers[reranker].backend if reranker else ""
    depth = LLM_DEPTH_PER_K * collector.k if backend == "llm" else RERANK_DEPTH
    made = f"{system}{RERANK_MARK}{reranker or 'NAME'}@{depth}"
    pairs = depth * queries
    costly = reranker and pairs > EMBEDDED_LLM_KEY_PAIRS and _embedded_llm(project, reranker)
    add("rerank", made, suggest("rerank", root, made, tiers=on),
        "" if reranker else "add a [rerankers.NAME] table to workbench.toml first (README: Trying a fix)",
        skipped=_too_costly(pairs) if costly else "", pairs=pairs)
    tuned = f"{'hybrid' if system == 'hybrid' else 'dense'}{TUNED_SUFFIX}"
    add("tune", tuned, suggest("tune", root, tiers=on), _tune_blocker(project),
        about="judged on the held-out queries only (the split is printed by the command and shown beside its figures)")
    return out


def fix_lines(fix: RunnableFix) -> list[str]:
    """What a recommendation carries, one line each: try, judge, and the measured effect."""
    lines = [f"try: {fix.command}", f"judge: {fix.judge}"]
    for note in (fix.note, fix.about, fix.skipped):
        if note:
            lines.append(f"note: {note}")
    lines.append(f"measured: {fix.effect}" if fix.effect else f"measured: not tried yet ({fix.system} is not stored)")
    return lines
