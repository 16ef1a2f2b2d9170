"""Use-side figures per tier, for `workbench eval` (beside access) and `workbench run`."""

from __future__ import annotations

from statistics import fmean
from typing import Callable

import msgspec

from workbench.llm.calibration import load_calibration
from workbench.correctness import token_f1
from workbench.llm.records import TierRun
from workbench.llm.store import LABEL_DEPENDENT_TASKS, LLMRunStore, relabelled, tui_stores, version_runs_root
from workbench.names import TASKS, TaskName
from workbench.project.files import ORIGINAL_VERSION, Project
from workbench.records import Tier

Row = dict[str, float | int | str | None]


def percentile(values: list[float], p: float) -> float | None:
    """Nearest-rank percentile (p in 0..100)."""
    if not values:
        return None
    s = sorted(values)
    rank = max(1, -(-len(s) * p // 100))  # ceil
    return s[int(rank) - 1]


def call_figures(run: TierRun) -> Row:
    """Latency and token totals of the model-under-test calls (judge calls reported apart)."""
    localizes = TASKS[run.task].localizes
    items = run.localize if localizes else run.qa
    lat = [r.latency_s for r in items]
    row: Row = {
        "p50_s": percentile(lat, 50),
        "p95_s": percentile(lat, 95),
        "prompt_tokens": sum(r.prompt_tokens for r in items),
        "completion_tokens": sum(r.completion_tokens for r in items),
        "input_tokens": run.input_tokens,
        "budget_tokens": run.budget_tokens,
        "failures": len(run.failures),
    }
    if not localizes:
        row["judge_prompt_tokens"] = sum(r.judge_prompt_tokens for r in run.qa)
        row["judge_completion_tokens"] = sum(r.judge_completion_tokens for r in run.qa)
    return row


def qa_figures(run: TierRun, golds: dict[str, str] | None = None) -> Row:
    """golds (query id → gold answer) adds token F1, computed here from the answers. The figures
    stand on the judged answers of a judged run, on every answer of a run without a judge (n says which)."""
    judged = [r for r in run.qa if r.judged] if run.judge else list(run.qa)
    scored = [r.judge_median for r in judged if r.judge_median is not None]
    em = [r.exact for r in judged if r.exact is not None]
    contains = [r.contains for r in judged if r.contains is not None]
    spreads = [r.judge_spread for r in judged if r.judge_spread is not None]
    return {
        "QA": fmean(scored) if scored else None,
        "n": len(judged),
        "scored": len(scored),
        "judge_failures": sum(r.judge_failure for r in judged),
        "judge_spread_max": max(spreads) if spreads else None,
        "refusals": sum(r.refusal for r in judged),
        "EM": fmean(em) if em else None,
        "contains": fmean(contains) if contains else None,
        "F1": fmean(token_f1(r.answer, golds[r.query_id]) for r in judged if r.query_id in golds) if golds and judged else None,
        "complete": int(run.complete),
    }


def decision_counts(project: Project, run: TierRun, trusted: bool | None) -> Row:
    """How many of the run's answers (the ones qa_figures counts) are decided right, and how many undecided."""
    from workbench.correctness import decide

    answered = [r for r in run.qa if (r.judged or not run.judge) and project.has_query(r.query_id)]
    decisions = [decide(project.query(r.query_id), r.answer, r.refusal, r.judge_median if r.judged else None, trusted, run.judge).decision
                 for r in answered]
    return {"right": decisions.count("right"), "undecided": decisions.count("undecided")}


def localize_figures(run: TierRun) -> Row:
    return {
        "n": len(run.localize),
        "no_ids": sum(not r.doc_ids for r in run.localize),
        "out_of_tier_ids": sum(r.out_of_tier for r in run.localize),
        "complete": int(run.complete),
    }


def judge_verdicts(project: Project, judges: set[str]) -> dict[str, str]:
    """judge name → one line saying whether its scores can be believed (see calibration.py)."""
    out = {}
    for judge in sorted(judges):
        cal = load_calibration(project, judge)
        out[judge] = cal.verdict() if cal else f"judge {judge}: not calibrated yet (run `workbench run … --task qa`)"
    return out


def _rows(project: Project, tiers: list[Tier], localize: bool, figures: Callable[[TierRun], Row]) -> dict[str, dict[str, Row]]:
    """tier → system → {"fits", **figures(run)} over the stored runs of one side; a run that does
    not fit also reports its input size against the window budget."""
    store = LLMRunStore(project)
    vroot = version_runs_root(project)
    out: dict[str, dict[str, Row]] = {}
    for tier in tiers:
        own = {run.system: run for run in LLMRunStore(project, root=vroot).runs(tier)} if vroot else {}
        labelled = [(run.system, run) for run in store.runs(tier)]
        labelled += [(system, run) for system, run in own.items() if system not in {s for s, _ in labelled}]
        if not localize:
            labelled += tui_runs(project, tier)
        for system, run in labelled:
            if TASKS[run.task].localizes != localize:
                continue
            run = _version_only(project, run, own.get(system))
            row: Row = {"fits": run.fits, **figures(run)}
            if not run.fits:
                row.update(input_tokens=run.input_tokens, budget_tokens=run.budget_tokens)
            out.setdefault(tier.name, {})[system] = row
    return out


def _version_only(project: Project, run: TierRun, own: TierRun | None = None) -> TierRun:
    """The run's results for the queries the loaded query-set version keeps. A label-dependent
    answer (oracle, rag) of a query the version relabels counts only from the version's own run."""
    if project.queries_version == ORIGINAL_VERSION:
        return run
    qa = [r for r in run.qa if project.has_query(r.query_id)]
    if own is not run:  # the original's run
        if run.task in LABEL_DEPENDENT_TASKS:
            qa = [r for r in qa if not relabelled(project, r.query_id)]
        if own is not None:
            mine = [r for r in own.qa if project.has_query(r.query_id)]
            qa = [r for r in qa if r.query_id not in {m.query_id for m in mine}] + mine
    return msgspec.structs.replace(run, qa=qa, localize=[r for r in run.localize if project.has_query(r.query_id)])


def tui_runs(project: Project, tier: Tier) -> list[tuple[str, TierRun]]:
    """The TUI's one-query runs of a tier, merged per system into one run labelled with the number of
    queries it covers ("model:local:oracle [TUI, 3 queries]"): shown apart from full-tier runs."""
    merged: dict[str, TierRun] = {}
    for s in tui_stores(project):
        for run in s.runs(tier):
            if not run.fits:
                continue
            have = merged.get(run.system)
            if have is None:
                merged[run.system] = run
            else:
                known = {r.query_id for r in have.qa}
                merged[run.system] = msgspec.structs.replace(have, qa=[*have.qa, *(r for r in run.qa if r.query_id not in known)],
                                                             complete=False)
    return [(f"{system} [TUI, {len(run.qa)} quer{'y' if len(run.qa) == 1 else 'ies'}]", run) for system, run in sorted(merged.items())]


class UseRow(msgspec.Struct, frozen=True):
    """One (tier, model QA system) row of the use side. None = not measured (or not run).

    QA = mean over answered queries of the median judge score (0–5; judge failures excluded
    and counted); n = answered (judged) queries; fits False = not run ("does not fit"), with
    every figure None. judge_ok = whether the judge passed its calibration (None: not checked)."""

    task: TaskName
    fits: bool
    judge: str | None = None
    judge_ok: bool | None = None
    QA: float | None = None
    n: int = 0
    scored: int | None = None
    judge_failures: int | None = None
    judge_spread_max: int | None = None
    refusals: int | None = None
    EM: float | None = None
    contains: float | None = None
    F1: float | None = None  # mean token F1 of the answers against the gold answers
    right: int | None = None  # of the n answers, decided right (workbench/correctness.py: judge or deterministic)
    undecided: int | None = None  # of the n answers, neither right nor wrong (the deterministic rule abstained)
    complete: int | None = None
    p50_s: float | None = None
    p95_s: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    input_tokens: int | None = None
    budget_tokens: int | None = None
    failures: int | None = None
    judge_prompt_tokens: int | None = None
    judge_completion_tokens: int | None = None

    @property
    def distrusted(self) -> bool:
        """Scored by a judge that failed its calibration (cannot tell right answers from wrong)."""
        return self.judge_ok is False


UseRows = dict[str, dict[str, UseRow]]  # tier name -> system name -> row


class UseTable(msgspec.Struct, frozen=True):
    """The use side of a set of tiers: rows, and one line per judge saying whether to believe it."""

    rows: UseRows
    judges: dict[str, str]


def use_rows(project: Project, tiers: list[Tier]) -> UseRows:
    """tier name → system ("model:local:qa", "model:local:oracle", …) → UseRow.

    Only QA-type systems (qa, oracle, rag): localization is scored on the access side."""

    golds = {q.query_id: q.answer for q in project.queries}

    def figures(run: TierRun) -> Row:
        cal = load_calibration(project, run.judge) if run.judge else None
        row: Row = {"task": run.task, "judge": run.judge, "judge_ok": cal.separates if cal else None}
        if run.fits:
            row.update({**qa_figures(run, golds), **call_figures(run), **decision_counts(project, run, cal.separates if cal else None)})
        return row

    return {tier: {system: msgspec.convert(row, UseRow) for system, row in systems.items()}
            for tier, systems in _rows(project, tiers, False, figures).items()}


def use_table(project: Project, tiers: list[Tier]) -> UseTable | None:
    """Use rows of these tiers and a verdict on each judge behind them (None: no model runs)."""
    rows = use_rows(project, tiers)
    if not rows:
        return None
    judges = {r.judge for systems in rows.values() for r in systems.values() if r.judge}
    return UseTable(rows, judge_verdicts(project, judges))


def localize_rows(project: Project, tiers: list[Tier]) -> dict[str, dict[str, Row]]:
    """tier → model localization system → fits, call figures, and output diagnostics."""
    return _rows(project, tiers, True, lambda run: {**localize_figures(run), **call_figures(run)} if run.fits else {})
