"""Use-side figures per tier, for `workbench eval` (beside access) and `workbench run`."""

from __future__ import annotations

from statistics import fmean
from typing import Callable

import msgspec

from workbench.llm.calibration import load_calibration
from workbench.correctness import token_f1
from workbench.llm.records import TierRun
from workbench.llm.sources import TUI_RUN, VERSION_TUI_RUN, counted_sources
from workbench.names import TASKS, TaskName
from workbench.project.files import Project
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
    out: dict[str, dict[str, Row]] = {}
    for tier in tiers:
        for system, run in counted_runs(project, tier, localize):
            row: Row = {"fits": run.fits, **figures(run)}
            if not run.fits:
                row.update(input_tokens=run.input_tokens, budget_tokens=run.budget_tokens)
            out.setdefault(tier.name, {})[system] = row
    return out


def counted_runs(project: Project, tier: Tier, localize: bool = False) -> list[tuple[str, TierRun]]:
    """The tier's rows of one side, each a system's results that the verdicts count
    (workbench.llm.sources.counted_sources: one precedence order, a query counted once): full-tier
    runs (the version's, the original's, other versions') merged under the system's name, the
    TUI's one-query runs merged apart, labelled with the queries they add ("model:local:oracle
    [TUI, 3 queries]"). Localization rows read full-tier runs only."""
    rows: dict[tuple[str, bool], list[TierRun]] = {}
    for src in counted_sources(project, tier):
        run, tui = src.run, src.source in (VERSION_TUI_RUN, TUI_RUN)
        if TASKS[run.task].localizes != localize or (tui and (localize or not run.fits)):
            continue
        rows.setdefault((run.system, tui), []).append(run)
    tier_rows = [(system, _merged(runs, False)) for (system, tui), runs in rows.items() if not tui]
    tui_rows = [(system, _merged(runs, True)) for (system, tui), runs in sorted(rows.items()) if tui]
    return tier_rows + [(f"{system} [TUI, {len(run.qa)} quer{'y' if len(run.qa) == 1 else 'ies'}]", run)
                        for system, run in tui_rows if run.qa]


def _merged(runs: list[TierRun], tui: bool) -> TierRun:
    """One row's runs (highest precedence first) as one: the first that fits carries the row's
    figures of the run itself; the results are every run's counted ones. Complete when each run
    is (the TUI's one-query runs merged: never)."""
    if len(runs) == 1:
        return runs[0]
    base = next((r for r in runs if r.fits), runs[0])
    return msgspec.structs.replace(base, qa=[r for run in runs for r in run.qa], localize=[r for run in runs for r in run.localize],
                                   complete=not tui and all(r.complete for r in runs))


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
