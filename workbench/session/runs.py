"""`run`: a long-context model on the project's tiers, one operation (the CLI parses and prints;
the TUI's one-query and batch runs are session/use.py, over the same `llm.tasks.run_tier`).

Planned first (tasks, tiers, queries, model, judge, K from the project: every check before any
model call), then run; finished queries are stored as they land, so an interrupted run resumes."""

from __future__ import annotations

import msgspec

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.llm.figures import UseRow
    from workbench.llm.records import TierRun
    from workbench.progress import Progress
    from workbench.project.files import Project
    from workbench.records import AccessSummary, ModelConfig, Tier


class RunPlan(msgspec.Struct, frozen=True):
    """What a `run` will do, checked: every name resolved, K and the seed from the project."""

    project: Project
    tiers: list[Tier]
    tasks: list[str]
    model: str
    model_config: ModelConfig
    judge: str
    judge_config: ModelConfig
    variant: str
    k: int
    seed: int
    retriever: str | None  # rag: whose stored ranking gives the documents
    rag_k: int
    judge_samples: int
    query_ids: tuple[str, ...] | None
    concurrency: int | None
    notes: list[str]  # said before the run starts (a default chosen for the user)

    @property
    def needs_server(self) -> bool:
        """The embedded model answers (no base_url) for the model, or for the judge when one is needed."""
        from workbench.names import TASKS

        needs_judge = any(not TASKS[t].localizes for t in self.tasks)
        return not self.model_config.base_url or (needs_judge and not self.judge_config.base_url)


class ModelRuns(msgspec.Struct, frozen=True):
    """What a `run` stored, and what it found on the way."""

    runs: list[TierRun]
    calls: int
    cache_hits: int
    failures: int
    calibration: str | None  # the judge's calibration verdict (None: nothing was judged)
    calibrated: bool  # the judge separated right from wrong reference answers
    invalidated: list[str]  # edits that really changed a prompt, said (llm.counting.invalidation_note)


def plan_run(root: Path, tasks: list[str], *, model: str | None = None, tiers: str = "all", query_ids: tuple[str, ...] = (),
             variant: str = "standard", k: int | None = None, retriever: str | None = None, rag_k: int = 5,
             judge: str | None = None, judge_samples: int = 3, seed: int | None = None, concurrency: int | None = None,
             queries_version: str | None = None) -> RunPlan:
    """Everything a run needs, resolved and checked (an unknown task, tier, query or model fails
    here, before the server starts or any work is queued)."""
    from workbench.access.ladder import ensure_tiers, select_tiers
    from workbench.errors import BadInput
    from workbench.llm.providers import resolve_judge, resolve_model
    from workbench.names import TASKS
    from workbench.project.load import load_project
    from workbench.project.settings import access_k

    bad = [t for t in tasks if t not in TASKS]
    if bad:
        raise BadInput(f"unknown task(s) {bad}; known: {list(TASKS)}", title="Unknown task")
    notes = []
    if any(TASKS[t].context == "retrieved" for t in tasks) and not retriever:
        from workbench.access.retrievers import preferred

        retriever = preferred()[0]  # the registry's best, as the TUI's retrieve-then-read uses
        notes.append(f"rag reads the top {rag_k} of {retriever} (--retriever to choose)")
    project = load_project(root, queries_version)
    tier_list = select_tiers(ensure_tiers(project), tiers)
    name, cfg = resolve_model(project, model)
    judge_name, judge_cfg = resolve_judge(project, name, judge)
    if query_ids:
        known = {x.query_id for x in project.queries}
        unknown = [q for q in query_ids if q not in known]
        if unknown:
            raise BadInput(f"unknown query id(s): {unknown[:10]}", title="Unknown query")
    return RunPlan(project, tier_list, list(tasks), name, cfg, judge_name, judge_cfg, variant, k or access_k(project),
                   project.config.ladder.seed if seed is None else seed, retriever, rag_k, judge_samples,
                   query_ids or None, concurrency, notes)


def run_models(plan: RunPlan, progress: Progress, use_cache: bool = True) -> ModelRuns:
    """Run the plan's tasks on its tiers (blocking); the judge calibrated when anything was judged.
    KeyboardInterrupt passes through: finished queries are stored, a rerun resumes."""
    import asyncio

    if plan.needs_server:
        # started up front so a missing model or package fails before any work is queued
        from workbench.llm import server

        server.default_server()
    return asyncio.run(_run_all(plan, progress, use_cache))


async def _run_all(plan: RunPlan, progress: Progress, use_cache: bool) -> ModelRuns:
    from workbench.llm.providers import open_model_and_judge
    from workbench.llm.counting import invalidation_note
    from workbench.llm.tasks import TaskOptions, run_tier
    from workbench.names import TASKS

    runs = []
    calibration, calibrated = None, False
    async with open_model_and_judge(plan.project, plan.model, plan.model_config, plan.judge, plan.judge_config,
                                    use_cache, plan.concurrency) as (client, judge_client):
        for task in plan.tasks:
            opts = TaskOptions(task=task, variant=plan.variant, k=plan.k, seed=plan.seed, retriever=plan.retriever,
                               rag_k=plan.rag_k, judge_samples=plan.judge_samples, query_ids=plan.query_ids)
            for tier in plan.tiers:
                if plan.query_ids and not set(plan.query_ids) & set(tier.query_ids):
                    continue  # none of the chosen queries is evaluated on this tier
                runs.append(await run_tier(plan.project, tier, plan.model, client, opts,
                                           judge_client if not TASKS[task].localizes else None, progress=progress))
        answer_runs = [r for r in runs if not TASKS[r.task].localizes and r.fits]
        if answer_runs and not any(r.qa for r in answer_runs) and any(r.failures for r in answer_runs):
            calibration = "judge not calibrated: every answer call of this run failed (is the endpoint down?)"
        elif any(not TASKS[t].localizes for t in plan.tasks):
            from workbench.llm.calibration import calibrate_judge, save_calibration

            cal = await calibrate_judge(judge_client, plan.project.queries, seed=plan.seed)
            save_calibration(plan.project, cal)
            calibration, calibrated = cal.verdict(), cal.separates
    clients = [client] + ([judge_client] if judge_client is not client else [])
    return ModelRuns(runs, sum(c.stats.calls for c in clients), sum(c.stats.cache_hits for c in clients),
                     sum(c.stats.failures for c in clients), calibration, calibrated,
                     [n for n in map(invalidation_note, runs) if n])


class RunSummaryRow(msgspec.Struct, frozen=True):
    """One run of a `run`, with the figures its summary row shows: a localization run's access
    figures at the K asked for; an answer run's use figures as `eval` shows them (every stored
    answer the verdicts count: llm/figures.py use_rows; None when nothing of it counted); and this
    run's own call figures (latency, tokens, failures)."""

    run: TierRun
    localizes: bool
    calls: dict  # llm.figures.call_figures
    access: AccessSummary | None = None  # localization: its ranking scored (None: nothing localized)
    localized: int | None = None  # localization: queries it answered
    use: UseRow | None = None  # answers: the row `eval` shows for the tier and system


class RunSummary(msgspec.Struct, frozen=True):
    rows: list[RunSummaryRow]
    distrusted: bool  # some row is scored by a judge that failed its calibration


def run_summary(project: Project, runs: list[TierRun], tiers: list[Tier]) -> RunSummary:
    """The runs just made, each with the figures `run`'s summary shows (see RunSummaryRow)."""
    from workbench.access.metrics import query_access, summarize
    from workbench.llm.figures import call_figures, use_rows
    from workbench.names import TASKS

    counted = use_rows(project, [t for t in tiers if t.name in {r.tier for r in runs}])
    rows = []
    for r in runs:
        if not r.fits:
            rows.append(RunSummaryRow(r, TASKS[r.task].localizes, {}))
            continue
        c = call_figures(r)
        if TASKS[r.task].localizes:
            per = [query_access(x.query_id, x.doc_ids, project.query(x.query_id).gold_doc_ids, r.k) for x in r.localize]
            rows.append(RunSummaryRow(r, True, c, summarize(per, r.k) if per else None, len(r.localize)))
        else:
            rows.append(RunSummaryRow(r, False, c, use=counted.get(r.tier, {}).get(r.system)))
    return RunSummary(rows, any(row.use is not None and row.use.distrusted for row in rows))


def serve_model(host: str, port: int | None, n_ctx: int, n_threads: int | None, echo) -> int:
    """`workbench serve`: the embedded model (OpenAI-compatible /v1) in the foreground until Ctrl-C; its exit code."""
    from workbench.llm.server import serve_foreground

    return serve_foreground(host=host, port=port, n_ctx=n_ctx, n_threads=n_threads, echo=echo)
