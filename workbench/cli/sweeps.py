"""`workbench sweep volume | depth | distribution | list | show`: vary the context a model reads
and nothing else. Progress and summaries go to stderr."""

from __future__ import annotations

import contextlib
import functools
from pathlib import Path

import click

from workbench.cli.common import EXISTING_PROJECT_ARG, console, err_console

DEFAULT_MAX_TOKENS = 64


def _ints(text: str | None, name: str) -> list[int] | None:
    if not text:
        return None
    try:
        vals = [int(float(x.strip().lower().replace("k", "")) * (1024 if x.strip().lower().endswith("k") else 1)) for x in text.split(",") if x.strip()]
    except ValueError:
        raise click.BadParameter(f"expected comma-separated token counts (e.g. 1K,2K,4K or 1024,2048), got {text!r}", param_hint=name) from None
    if not vals or any(v <= 0 for v in vals):
        raise click.BadParameter("lengths must be positive", param_hint=name)
    return sorted(set(vals))


def _names(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def common(fn):
    @EXISTING_PROJECT_ARG
    @click.option("--model", "model_name", default=None, help="A [models.NAME] of workbench.toml; default: the first, else 'local' (embedded SmolLM2).")
    @click.option("--judge", default=None, help="Judge model (default: workbench.toml `judge`, else the model under test). Calibrated first; if it fails, the deterministic match decides.")
    @click.option("--judge-samples", type=click.IntRange(1, 15), default=1, show_default=True)
    @click.option("--lengths", default=None, help="Total input tokens, comma-separated (1K = 1024). Default: scaled to the model's window.")
    @click.option("--max-tokens", type=click.IntRange(1, 4096), default=DEFAULT_MAX_TOKENS, show_default=True, help="The fixed answer budget.")
    @click.option("--seed", type=int, default=None, help="Default: the ladder seed.")
    @click.option("--concurrency", type=click.IntRange(1, 256), default=None, help="Concurrent requests (default: the model's `concurrency`).")
    @click.option("--no-cache", is_flag=True, help="Ignore the response cache (new responses are still stored).")
    @click.option("--dry-run", is_flag=True, help="Print the arms, token counts and call count; call nothing.")
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


@click.group("sweep")
def sweep() -> None:
    """Vary the context a model reads and nothing else: volume, depth × length, fact distributions."""


@sweep.command("volume")
@common
@click.option("--repeats", type=click.IntRange(1, 50), default=3, show_default=True, help="Evidence positions per case (seeded).")
@click.option("--cases", type=click.IntRange(1, 1000), default=4, show_default=True, help="Queries per family.")
@click.option("--families", default="needle,single-hop,two-hop", show_default=True, help="needle (control), single-hop, two-hop.")
def volume(root, families, repeats, cases, **kw):
    """Context rot: the same questions and gold at growing input lengths (docs/METHOD.md §2)."""
    _run("volume", root, kw, families=_names(families), repeats=repeats, cases=cases)


@sweep.command("depth")
@common
@click.option("--depths", default="0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0", show_default=True, help="Depths (0 = start, 1 = end).")
@click.option("--cases", type=click.IntRange(1, 100), default=1, show_default=True, help="Planted questions (the project's needle queries, else the fact bank).")
@click.option("--variants", default="standard,strict", show_default=True)
def depth(root, depths, cases, variants, **kw):
    """Protocol A: one planted fact over a depth × length grid, under both prompts (docs/METHOD.md §3)."""
    try:
        ds = sorted({round(float(x), 4) for x in _names(depths)})
    except ValueError:
        raise click.BadParameter(f"expected comma-separated depths in 0..1, got {depths!r}", param_hint="--depths") from None
    if not ds or any(not 0 <= d <= 1 for d in ds):
        raise click.BadParameter("depths must lie in 0..1", param_hint="--depths")
    _run("depth", root, kw, depths=ds, cases=cases, variants=_names(variants))


@sweep.command("distribution")
@common
@click.option("--distributions", default="all", show_default=True, help="Comma-separated names, or 'all' (the nine of docs/METHOD.md §3).")
@click.option("--facts", "n_facts", type=click.IntRange(1, 40), default=10, show_default=True)
@click.option("--absent", "n_absent", type=click.IntRange(0, 40), default=5, show_default=True, help="Questions whose fact is never planted (faithfulness).")
@click.option("--variants", default="standard,strict", show_default=True)
def distribution(root, distributions, n_facts, n_absent, variants, **kw):
    """Protocol B: ten facts placed by a density over 5% depth bins at full window, under both prompts."""
    names = ["all"] if distributions.strip() == "all" else _names(distributions)
    _run("distribution", root, kw, distributions=names, n_facts=n_facts, n_absent=n_absent, variants=_names(variants))


@contextlib.contextmanager
def _refusals():
    """A sweep the session refuses: an option's value as click's usage error, anything else as its message."""
    from workbench.session import ProjectError, SweepError

    try:
        yield
    except SweepError as exc:
        if exc.option:
            raise click.BadParameter(str(exc), param_hint=exc.option) from None
        raise click.ClickException(str(exc)) from None
    except ProjectError as exc:
        click.echo(str(exc), err=True)
        raise SystemExit(2) from None


def _run(kind: str, root: Path, kw: dict, **params) -> None:
    from workbench.progress import stage_progress
    from workbench.session import SweepRequest, plan_sweep, run_sweep

    request = SweepRequest(kind=kind, model=kw["model_name"], judge=kw["judge"], judge_samples=kw["judge_samples"],  # type: ignore[arg-type]
                           lengths=_ints(kw["lengths"], "--lengths"), max_tokens=kw["max_tokens"], seed=kw["seed"],
                           concurrency=kw["concurrency"], use_cache=not kw["no_cache"], params=params)
    if kw["dry_run"]:
        with _refusals():
            plan = plan_sweep(root, request)
        _print_plan(plan)
        return

    def opened(o) -> None:
        err_console.print(f"sweep {o.sweep_id}: {o.arms} arms, {o.done} already done (stored under {o.folder})")
        if o.starts_local_server:
            err_console.print("[dim]starting the embedded model server…[/]")

    try:
        with _refusals(), stage_progress(err_console, unit="calls") as progress:
            done = run_sweep(root, request, progress=progress, opened=opened)
    except KeyboardInterrupt:
        err_console.print("[yellow]interrupted: finished arms are saved; rerun the same command to continue[/]")
        raise SystemExit(130) from None
    click.echo(done.summary_markdown)
    err_console.print(f"wall time {done.wall_s:.1f} s (all sessions of this sweep: {done.total_wall_s:.0f} s)")
    if done.failed_calls:
        err_console.print(f"[red]{done.failed_calls} call(s) failed[/]: rerun the same command to retry them (finished arms are not recomputed)")
        raise SystemExit(1)


def _print_plan(plan) -> None:
    from rich.table import Table

    table = Table(title=f"sweep {plan.sweep_id} (dry run: nothing is called)", title_justify="left")
    for c in ("family/question", "length", "prompt", "distribution", "arms", "input tokens min–max"):
        table.add_column(c)
    for row in plan.rows:
        table.add_row(row.family, row.length, row.variant, row.distribution, str(row.arms), f"{row.min_tokens}–{row.max_tokens}")
    console.print(table)
    click.echo(
        f"{plan.arms} arms ({plan.stored} stored, {plan.to_run} to run): {plan.to_run} model calls of at most "
        f"{plan.max_input_tokens} input + {plan.answer_tokens} answer tokens (usable window {plan.window}); "
        f"judge: {plan.calibration_calls} calibration calls, then up to {plan.judge_calls} judge calls if it passes."
    )


@sweep.command("list")
@EXISTING_PROJECT_ARG
def list_(root):
    """The project's stored sweeps."""
    from workbench.session import list_sweeps

    with _refusals():
        listed = list_sweeps(root)
    if not listed.sweeps:
        click.echo(f"no sweeps yet: run `{listed.first_command}` (add --dry-run to see the arms first)")
        return
    for m in listed.sweeps:
        click.echo(f"{m.sweep_id}  {m.kind:<12} model {m.model}  {m.done}/{m.arms} arms  {m.wall_s:.0f} s")


@sweep.command("show")
@EXISTING_PROJECT_ARG
@click.argument("sweep_id", required=False)
def show(root, sweep_id):
    """A stored sweep's tables (default: the latest sweep of each kind)."""
    from workbench.session import show_sweeps

    with _refusals():
        text = show_sweeps(root, sweep_id)
    click.echo(text or "no sweeps yet")
