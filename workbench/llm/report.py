"""Use-side figures per tier, for `workbench eval` (beside access) and `workbench run`."""

from __future__ import annotations

from statistics import fmean
from typing import Callable

import msgspec

from workbench.llm.calibration import load_calibration
from workbench.llm.records import TierRun
from workbench.llm.store import LLMRunStore
from workbench.project import ORIGINAL_VERSION, Project
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
    items = run.localize if run.task == "localize" else run.qa
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
    if run.task != "localize":
        row["judge_prompt_tokens"] = sum(r.judge_prompt_tokens for r in run.qa)
        row["judge_completion_tokens"] = sum(r.judge_completion_tokens for r in run.qa)
    return row


def qa_figures(run: TierRun) -> Row:
    judged = [r for r in run.qa if r.judged]
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
        "complete": int(run.complete),
    }


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
    out: dict[str, dict[str, Row]] = {}
    for tier in tiers:
        for run in store.runs(tier):
            if (run.task == "localize") != localize:
                continue
            run = _version_only(project, run)
            row: Row = {"fits": run.fits, **figures(run)}
            if not run.fits:
                row.update(input_tokens=run.input_tokens, budget_tokens=run.budget_tokens)
            out.setdefault(tier.name, {})[run.system] = row
    return out


def _version_only(project: Project, run: TierRun) -> TierRun:
    """The run's results for the queries the loaded query-set version keeps."""
    if project.queries_version == ORIGINAL_VERSION:
        return run
    return msgspec.structs.replace(
        run,
        qa=[r for r in run.qa if project.has_query(r.query_id)],
        localize=[r for r in run.localize if project.has_query(r.query_id)],
    )


NOT_RUN: Row = {"QA": None, "n": 0, "judge_failures": None, "refusals": None, "EM": None, "p50_s": None, "p95_s": None}


def use_rows(project: Project, tiers: list[Tier]) -> dict[str, dict[str, Row]]:
    """tier name → system ("model:local:qa", "model:local:oracle", …) → figures.

    QA = mean over answered queries of the median judge score (0–5; judge failures excluded
    and counted); n = answered (judged) queries; fits False = not run ("does not fit"), with
    every figure None. judge_ok = whether the judge passed its calibration (None: not checked).
    Only QA-type systems (qa, oracle, rag) — localization is scored on the access side."""

    def figures(run: TierRun) -> Row:
        cal = load_calibration(project, run.judge) if run.judge else None
        row: Row = {"judge": run.judge, "judge_ok": cal.separates if cal else None}
        row.update({**qa_figures(run), **call_figures(run)} if run.fits else NOT_RUN)
        return row

    return _rows(project, tiers, False, figures)


def localize_rows(project: Project, tiers: list[Tier]) -> dict[str, dict[str, Row]]:
    """tier → model localization system → fits, call figures, and output diagnostics."""
    return _rows(project, tiers, True, lambda run: {**localize_figures(run), **call_figures(run)} if run.fits else {})
