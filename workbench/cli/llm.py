"""Model commands: `run` (a long-context model on tiers: localize | qa | oracle | rag) and
`serve` (the embedded model in the foreground). Progress and summaries go to stderr."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from workbench.cli.common import EXISTING_PROJECT_ARG, QUERIES_VERSION, err_console, wide_console, Table
from workbench.display import MISSING, fmt
from workbench.safe_text import as_text, markup_escaped
from workbench.session import TASKS

if TYPE_CHECKING:
    from workbench.session import RunSummary


@click.command("run")
@EXISTING_PROJECT_ARG
@click.option("--model", "model_name", default=None, help="A [models.NAME] of workbench.toml; default: the first one, else 'local' (embedded SmolLM2).")
@click.option("--task", "tasks", multiple=True, required=True, help=f"{' | '.join(TASKS)} (repeat or comma-separate).")
@click.option("--tiers", default="all", show_default=True, help="Tier names or kinds, comma-separated, or 'all'.")
@click.option("--queries", default="", help="Comma-separated query ids (default: every query of each tier).")
@click.option("--variant", type=click.Choice(["standard", "strict"]), default="standard", show_default=True, help="QA prompt: strict = 'if the answer is not in the documents, say you do not know'.")
@click.option("--k", type=click.IntRange(1, 1000), default=None, help="DocIDs asked for in localize (default: the project's retrievers.k).")
@click.option("--retriever", default=None, help="rag: the retriever whose stored run gives the documents (default: the preferred one, hybrid).")
@click.option("--rag-k", type=click.IntRange(1, 1000), default=5, show_default=True, help="rag: documents given to the model.")
@click.option("--judge", default=None, help="Judge model name (default: workbench.toml `judge`, else the model under test).")
@click.option("--judge-samples", type=click.IntRange(1, 15), default=3, show_default=True, help="Judge calls per answer; the median is kept.")
@click.option("--seed", type=int, default=None, help="Seed of the document order (default: the ladder seed).")
@click.option("--concurrency", type=click.IntRange(1, 256), default=None, help="Concurrent requests (default: the model's `concurrency`).")
@click.option("--no-cache", is_flag=True, help="Ignore the response cache (new responses are still stored).")
@QUERIES_VERSION
def run_command(root: Path, model_name, tasks, tiers, queries, variant, k, retriever, rag_k, judge, judge_samples, seed, concurrency, no_cache,
                queries_version):
    """Run a long-context model on the project's tiers and store its results beside the retriever runs.

    With --queries-version, the version's queries are run; oracle and rag (whose context comes from
    the labels) are stored apart for that version and never replace the original's."""
    from workbench.progress import stage_progress
    from workbench.session import plan_run, run_models

    task_list = [t.strip() for spec in tasks for t in spec.split(",") if t.strip()]
    bad = [t for t in task_list if t not in TASKS]
    if bad:
        raise click.BadParameter(f"unknown task(s) {bad}; known: {list(TASKS)}", param_hint="--task")
    plan = plan_run(root, task_list, model=model_name, tiers=tiers, query_ids=tuple(q.strip() for q in queries.split(",") if q.strip()),
                    variant=variant, k=k, retriever=retriever, rag_k=rag_k, judge=judge, judge_samples=judge_samples,
                    seed=seed, concurrency=concurrency, queries_version=queries_version)
    for note in plan.notes:
        err_console.print(f"[dim]{markup_escaped(note)}[/]")
    if plan.needs_server:
        err_console.print("[dim]starting the embedded model server…[/]")
    started = time.perf_counter()
    try:
        with stage_progress(err_console, unit="queries") as progress:
            done = run_models(plan, progress, use_cache=not no_cache)
    except KeyboardInterrupt:
        err_console.print("[yellow]interrupted: finished queries are saved; rerun the same command to resume[/]")
        raise SystemExit(130)
    wall = time.perf_counter() - started
    if done.calibration is not None:
        err_console.print(as_text(done.calibration, "green" if done.calibrated else "yellow"))
    from workbench.session import run_summary

    _print_summary(run_summary(plan.project, done.runs, plan.tiers))
    for note in done.invalidated:  # an edit that really changed a prompt: said, never silent
        err_console.print(f"[yellow]{markup_escaped(note, one_line=True)}[/]", highlight=False, soft_wrap=True)
    err_console.print(f"wall time {wall:.1f} s; model calls {done.calls} (cache hits {done.cache_hits}, failed {done.failures})")
    failed = [(r.tier, r.system, f) for r in done.runs for f in r.failures]
    for tier, system, f in failed[:20]:
        err_console.print(f"[red]failed[/] {markup_escaped(f'{tier} {system} {f.query_id} ({f.stage}): {f.error}', one_line=True)}",
                      highlight=False, soft_wrap=True)  # one line per failure
    if failed:
        err_console.print(f"[red]{len(failed)} query run(s) failed[/]: rerun the same command to retry them (finished ones are not recomputed)")
        raise SystemExit(1)


def _print_summary(summary: "RunSummary") -> None:
    """The runs just made. A QA-type row shows the figures `eval` shows for the same tier and system
    (llm/figures.py use_rows: every stored answer the verdicts count, the judge's calibration
    marked "*"), so the two tables never disagree; the latency and token columns are this run's calls
    (session/runs.py run_summary)."""
    table = Table(title="Model runs (SR/FR at the K asked for; QA: mean median judge score 0–5 over every stored answer, "
                        "as `eval` shows it; p50s–fail: this run's calls)", title_justify="left")
    for col in ("tier", "system", "fits", "R@1", "SR@K", "FR@K", "QA", "n", "jfail", "refus", "EM", "cont", "F1", "p50s", "p95s", "ptok", "fail"):
        table.add_column(col, justify="left" if col in ("tier", "system") else "right", no_wrap=col in ("tier", "system", "fits"))
    for row in summary.rows:
        r, c = row.run, row.calls
        if not r.fits:
            table.add_row(as_text(r.tier), as_text(r.system), f"no ({r.input_tokens}>{r.budget_tokens})", *[MISSING] * 14)
            continue
        calls = (fmt(c["p50_s"], 2), fmt(c["p95_s"], 2), fmt(c["prompt_tokens"]), fmt(c["failures"]))
        if row.localizes:
            s = row.access
            table.add_row(as_text(r.tier), as_text(r.system), "yes", fmt(s.r_at_1 if s else None), fmt(s.sr_at_k if s else None),
                          fmt(s.fr_at_k if s else None), MISSING, fmt(row.localized), MISSING, MISSING, MISSING, MISSING, MISSING, *calls)
        elif (u := row.use) is None:  # nothing of it counted (every answer failed): this run's own call figures only
            table.add_row(as_text(r.tier), as_text(r.system), "yes", *[MISSING] * 10, *calls)
        else:
            qa = fmt(u.QA, 2) + ("*" if u.distrusted and u.QA is not None else "")
            table.add_row(as_text(r.tier), as_text(r.system), "yes", MISSING, MISSING, MISSING, qa, fmt(u.n), fmt(u.judge_failures),
                          fmt(u.refusals), fmt(u.EM, 2), fmt(u.contains, 2), fmt(u.F1, 2), *calls)
    wide_console.print(table)
    if summary.distrusted:
        wide_console.print("* scored by a judge that failed its calibration: read EM / contains / F1 instead", highlight=False)


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True, help="0 = any free port.")
@click.option("--n-ctx", type=click.IntRange(256, 1_048_576), default=8192, show_default=True)
@click.option("--n-threads", type=click.IntRange(1, 256), default=None, help="CPU threads (default: all cores, up to 8).")
def serve_command(host, port, n_ctx, n_threads):
    """Serve the embedded SmolLM2 model (OpenAI-compatible /v1) in the foreground until Ctrl-C."""
    from workbench.session import serve_model

    code = serve_model(host, port or None, n_ctx, n_threads, echo=lambda s: err_console.print(as_text(s)))
    raise SystemExit(code)
