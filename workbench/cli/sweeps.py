"""`workbench sweep volume | depth | distribution | list | show`: vary the context a model reads
and nothing else. Progress and summaries go to stderr."""

from __future__ import annotations

import functools
import time
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
    from workbench.sweeps.arms import family_name

    try:
        fams = list(dict.fromkeys(family_name(f) for f in _names(families)))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--families") from None
    _run("volume", root, kw, families=fams, repeats=repeats, cases=cases)


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
    _run("depth", root, kw, depths=ds, cases=cases, variants=_variants(variants))


@sweep.command("distribution")
@common
@click.option("--distributions", default="all", show_default=True, help="Comma-separated names, or 'all' (the nine of docs/METHOD.md §3).")
@click.option("--facts", "n_facts", type=click.IntRange(1, 40), default=10, show_default=True)
@click.option("--absent", "n_absent", type=click.IntRange(0, 40), default=5, show_default=True, help="Questions whose fact is never planted (faithfulness).")
@click.option("--variants", default="standard,strict", show_default=True)
def distribution(root, distributions, n_facts, n_absent, variants, **kw):
    """Protocol B: ten facts placed by a density over 5% depth bins at full window, under both prompts."""
    from workbench.sweeps.distributions import DISTRIBUTIONS

    names = list(DISTRIBUTIONS) if distributions.strip() == "all" else _names(distributions)
    bad = [n for n in names if n not in DISTRIBUTIONS]
    if bad or not names:
        raise click.BadParameter(f"unknown distribution(s) {bad}; known: {list(DISTRIBUTIONS)}", param_hint="--distributions")
    if kw.get("lengths") and len(_ints(kw["lengths"], "--lengths") or []) != 1:
        raise click.BadParameter("Protocol B runs at one length (the full window)", param_hint="--lengths")
    _run("distribution", root, kw, distributions=names, n_facts=n_facts, n_absent=n_absent, variants=_variants(variants))


def _variants(text: str) -> list[str]:
    vs = list(dict.fromkeys(_names(text)))
    bad = [v for v in vs if v not in ("standard", "strict")]
    if bad or not vs:
        raise click.BadParameter(f"unknown prompt variant(s) {bad}; known: standard, strict", param_hint="--variants")
    return vs


def _load(root: Path):
    from workbench.project.files import ProjectError
    from workbench.project.load import load_project

    try:
        return load_project(root)
    except ProjectError as exc:
        click.echo(str(exc), err=True)
        raise SystemExit(2) from None


def _run(kind: str, root: Path, kw: dict, **params) -> None:
    from workbench.llm.providers import ModelNotFound, resolve_judge, resolve_model
    from workbench.sweeps.arms import check_lengths, default_lengths
    from workbench.sweeps.haystack import NotEnoughPadding
    from workbench.sweeps.runner import make_spec, open_sweep
    from workbench.sweeps.store import SweepStore

    project = _load(root)
    try:
        name, cfg = resolve_model(project, kw["model_name"])
        judge_name, judge_cfg = resolve_judge(project, name, kw["judge"])
    except ModelNotFound as exc:
        raise click.ClickException(str(exc)) from None
    max_tokens = kw["max_tokens"]
    lengths = _ints(kw["lengths"], "--lengths") or default_lengths(cfg, max_tokens, kind)
    try:
        check_lengths(lengths, cfg, max_tokens)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--lengths") from None
    seed = project.config.ladder.seed if kw["seed"] is None else kw["seed"]
    spec = make_spec(project, kind, name, cfg, judge_name, judge_cfg, seed=seed, max_tokens=max_tokens, lengths=lengths,
                     judge_samples=kw["judge_samples"], **params)
    store = SweepStore(project)
    try:
        meta, arms, planner = open_sweep(project, spec, cfg, store) if not kw["dry_run"] else (None, *_plan(project, spec, cfg))
    except NotEnoughPadding as exc:
        raise click.ClickException(f"{exc}: use shorter --lengths") from None
    if not arms:
        from workbench.errors import BadInput  # a user error (exit 2), not a failed call

        raise BadInput(f"no arms: the project has no queries of the kinds this sweep needs ({params.get('families', '')})",
                       hint="add queries of those families (or pick others with --families), then rerun")
    if kw["dry_run"]:
        try:
            _dry_run(project, spec, arms, planner, cfg, store)
        except NotEnoughPadding as exc:  # found while building an arm's input
            raise click.ClickException(f"{exc}: use shorter --lengths") from None
        return
    done = len(store.results(meta.sweep_id))
    err_console.print(f"sweep {meta.sweep_id}: {len(arms)} arms, {done} already done (stored under {store.dir(meta.sweep_id)})")
    if not cfg.base_url or not judge_cfg.base_url:
        from workbench.llm import server
        from workbench.llm.server import LocalServerError

        try:
            err_console.print("[dim]starting the embedded model server…[/]")
            server.default_server()
        except LocalServerError as exc:
            raise click.ClickException(str(exc)) from None
    started = time.perf_counter()
    try:
        import asyncio

        meta, failed = asyncio.run(_execute(project, spec, name, cfg, judge_name, judge_cfg, kw["concurrency"], not kw["no_cache"]))
    except KeyboardInterrupt:
        err_console.print("[yellow]interrupted: finished arms are saved; rerun the same command to continue[/]")
        raise SystemExit(130) from None
    except NotEnoughPadding as exc:
        raise click.ClickException(f"{exc}: use shorter --lengths") from None
    _print(project, meta)
    err_console.print(f"wall time {time.perf_counter() - started:.1f} s (all sessions of this sweep: {meta.wall_s:.0f} s)")
    if failed:
        err_console.print(f"[red]{failed} call(s) failed[/]: rerun the same command to retry them (finished arms are not recomputed)")
        raise SystemExit(1)


def _plan(project, spec, cfg):
    from workbench.sweeps.arms import Planner

    planner = Planner(project, spec, cfg)
    return planner.arms(), planner


def _dry_run(project, spec, arms, planner, cfg, store) -> None:
    from rich.table import Table

    from workbench.llm.calibration import DEFAULT_PAIRS
    from workbench.llm.tasks import window_budget
    from workbench.sweeps.store import sweep_id

    sid = sweep_id(spec)
    done = set(store.results(sid))
    by: dict[tuple, list[int]] = {}
    for a in arms:
        i = planner.build(a)
        key = (a.family or "-", a.length or "gold only", a.variant, a.distribution or "-")
        by.setdefault(key, []).append(i.input_tokens)
    table = Table(title=f"sweep {sid} (dry run: nothing is called)", title_justify="left")
    for c in ("family/question", "length", "prompt", "distribution", "arms", "input tokens min–max"):
        table.add_column(c)
    for (fam, length, v, dist), toks in by.items():
        table.add_row(fam, str(length), v, dist, str(len(toks)), f"{min(toks)}–{max(toks)}")
    console.print(table)
    todo = len([a for a in arms if a.arm_id not in done])
    answerable = len([a for a in arms if a.gold])
    click.echo(
        f"{len(arms)} arms ({len(done)} stored, {todo} to run): {todo} model calls of at most "
        f"{max(max(v) for v in by.values())} input + {spec.max_tokens} answer tokens (usable window {window_budget(cfg)}); "
        f"judge: {2 * DEFAULT_PAIRS} calibration calls, then up to {answerable * spec.judge_samples} judge calls if it passes."
    )


async def _execute(project, spec, name, cfg, judge_name, judge_cfg, concurrency, use_cache):
    from workbench.llm.providers import open_model_and_judge
    from workbench.progress import stage_progress
    from workbench.sweeps.runner import run_sweep

    async with open_model_and_judge(project, name, cfg, judge_name, judge_cfg, use_cache, concurrency) as (client, judge_client):
        with stage_progress(err_console, unit="calls") as progress:
            return await run_sweep(project, spec, client, judge_client, progress=progress, workers=concurrency)


def _print(project, meta) -> None:
    from workbench.report.sweeps import summary_markdown
    from workbench.sweeps.summary import summarize

    click.echo(summary_markdown(summarize(project, meta)))


@sweep.command("list")
@EXISTING_PROJECT_ARG
def list_(root):
    """The project's stored sweeps."""
    from workbench.sweeps.store import SweepStore

    project = _load(root)
    store = SweepStore(project)
    metas = store.list()
    if not metas:
        from workbench.project.suggest import command

        click.echo(f"no sweeps yet: run `{command('sweep volume', root)}` (add --dry-run to see the arms first)")
        return
    for m in metas:
        n = len(store.results(m.sweep_id))
        click.echo(f"{m.sweep_id}  {m.spec.kind:<12} model {m.spec.model}  {n}/{m.arms} arms  {m.wall_s:.0f} s")


@sweep.command("show")
@EXISTING_PROJECT_ARG
@click.argument("sweep_id", required=False)
def show(root, sweep_id):
    """A stored sweep's tables (default: the latest sweep of each kind)."""
    from workbench.report.sweeps import sweeps_markdown
    from workbench.sweeps.store import SweepStore

    project = _load(root)
    if sweep_id is None:
        text = sweeps_markdown(project)
        click.echo(text or "no sweeps yet")
        return
    meta = SweepStore(project).load_meta(sweep_id)
    if meta is None:
        from workbench.project.suggest import command

        raise click.ClickException(f"no sweep {sweep_id!r}: see `{command('sweep list', root)}`")
    _print(project, meta)
