"""Sweeps, one operation per action: `plan_sweep` (the arms and what they will cost; nothing is
called), `run_sweep` (run, or continue, a sweep: finished arms are stored as they land), and the
stored ones: `list_sweeps`, `show_sweeps`. The CLI (`workbench sweep …`) parses and prints; the
TUI's Sweeps tab reads the same latest sweep of each kind (workbench.sweeps.summary.sweeps_dict).
The logic lives in workbench/sweeps/; what is here resolves a request against the project."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Literal

import msgspec

from workbench.errors import BadInput, WorkbenchError

if TYPE_CHECKING:
    from workbench.progress import Progress
    from workbench.project.files import Project
    from workbench.records import ModelConfig
    from workbench.sweeps.arms import Planner
    from workbench.sweeps.records import Arm, SweepSpec

SweepKind = Literal["volume", "depth", "distribution"]
VARIANTS = ("standard", "strict")


class SweepError(WorkbenchError):
    """A sweep that cannot run as asked: an option value (``option`` names it) or what the model,
    its server or the corpus cannot give. Exit status 1, or 2 for an option."""

    title = "The sweep cannot run"
    exit_code = 1

    def __init__(self, message: str, option: str | None = None) -> None:
        super().__init__(message)
        self.option = option
        if option is not None:
            self.exit_code = 2


class SweepRequest(msgspec.Struct, frozen=True, kw_only=True):
    """A sweep as the user asked for it. ``params`` are the kind's own (volume: families, repeats,
    cases; depth: depths, cases, variants; distribution: distributions, n_facts, n_absent,
    variants): only those given are part of the sweep's identity."""

    kind: SweepKind
    model: str | None = None
    judge: str | None = None
    judge_samples: int = 1
    lengths: list[int] | None = None  # default: scaled to the model's window
    max_tokens: int = 64
    seed: int | None = None  # default: the ladder seed
    concurrency: int | None = None
    use_cache: bool = True
    params: dict[str, Any] = {}


class PlanRow(msgspec.Struct, frozen=True):
    """The arms of one family / length / prompt / distribution, with their input tokens."""

    family: str
    length: str
    variant: str
    distribution: str
    arms: int
    min_tokens: int
    max_tokens: int


class SweepPlan(msgspec.Struct, frozen=True):
    """--dry-run: what the sweep would call, and what is stored already."""

    kind: Literal["plan"]
    sweep_id: str
    rows: list[PlanRow]
    arms: int
    stored: int
    to_run: int
    max_input_tokens: int
    answer_tokens: int
    window: int  # the model's usable window
    calibration_calls: int
    judge_calls: int  # at most, if the judge passes calibration


class SweepOpened(msgspec.Struct, frozen=True):
    """Told before the calls start: the sweep, its arms, what a previous run finished."""

    sweep_id: str
    arms: int
    done: int
    folder: str
    starts_local_server: bool


class SweepRun(msgspec.Struct, frozen=True):
    """A finished run (or a resumed one): its summary, and the calls that failed (rerun retries them)."""

    kind: Literal["run"]
    sweep_id: str
    summary_markdown: str
    failed_calls: int
    wall_s: float  # this run
    total_wall_s: float  # every session of this sweep


class StoredSweep(msgspec.Struct, frozen=True):
    sweep_id: str
    kind: SweepKind
    model: str
    done: int
    arms: int
    wall_s: float


class SweepList(msgspec.Struct, frozen=True):
    sweeps: list[StoredSweep]
    first_command: str  # what to run when there are none


class _Resolved(msgspec.Struct, frozen=True):
    project: Project
    spec: SweepSpec
    model: str
    cfg: ModelConfig
    judge: str
    judge_cfg: ModelConfig


def _checked_params(kind: str, params: dict[str, Any]) -> dict[str, Any]:
    """The kind's own options, normalised; a bad value raises SweepError naming its option."""
    from workbench.sweeps.arms import family_name
    from workbench.sweeps.distributions import DISTRIBUTIONS

    out = dict(params)
    if "families" in out:
        try:
            out["families"] = list(dict.fromkeys(family_name(f) for f in out["families"]))
        except ValueError as exc:
            raise SweepError(str(exc), option="--families") from None
    if "distributions" in out:
        names = list(DISTRIBUTIONS) if out["distributions"] == ["all"] else list(out["distributions"])
        bad = [n for n in names if n not in DISTRIBUTIONS]
        if bad or not names:
            raise SweepError(f"unknown distribution(s) {bad}; known: {list(DISTRIBUTIONS)}", option="--distributions")
        out["distributions"] = names
    if "variants" in out:
        variants = list(dict.fromkeys(out["variants"]))
        bad = [v for v in variants if v not in VARIANTS]
        if bad or not variants:
            raise SweepError(f"unknown prompt variant(s) {bad}; known: {', '.join(VARIANTS)}", option="--variants")
        out["variants"] = variants
    return out


def _resolve(root: Path, request: SweepRequest) -> _Resolved:
    from workbench.llm.providers import ModelNotFound, resolve_judge, resolve_model
    from workbench.project.load import load_project
    from workbench.sweeps.arms import check_lengths, default_lengths
    from workbench.sweeps.runner import make_spec

    params = _checked_params(request.kind, request.params)
    if request.kind == "distribution" and request.lengths and len(request.lengths) != 1:
        raise SweepError("Protocol B runs at one length (the full window)", option="--lengths")
    project = load_project(root)
    try:
        name, cfg = resolve_model(project, request.model)
        judge_name, judge_cfg = resolve_judge(project, name, request.judge)
    except ModelNotFound as exc:
        raise SweepError(str(exc)) from None
    lengths = request.lengths or default_lengths(cfg, request.max_tokens, request.kind)
    try:
        check_lengths(lengths, cfg, request.max_tokens)
    except ValueError as exc:
        raise SweepError(str(exc), option="--lengths") from None
    seed = project.config.ladder.seed if request.seed is None else request.seed
    spec = make_spec(project, request.kind, name, cfg, judge_name, judge_cfg, seed=seed, max_tokens=request.max_tokens,
                     lengths=lengths, judge_samples=request.judge_samples, **params)
    return _Resolved(project, spec, name, cfg, judge_name, judge_cfg)


def _no_arms(request: SweepRequest) -> BadInput:
    return BadInput(f"no arms: the project has no queries of the kinds this sweep needs ({request.params.get('families', '')})",
                    hint="add queries of those families (or pick others with --families), then rerun")


def _padding(exc: Exception) -> SweepError:
    return SweepError(f"{exc}: use shorter --lengths")


def plan_sweep(root: Path, request: SweepRequest) -> SweepPlan:
    """The arms, their token counts and the calls a run would make; nothing is called or written."""
    from workbench.llm.calibration import DEFAULT_PAIRS
    from workbench.llm.tasks import window_budget
    from workbench.sweeps.arms import Planner
    from workbench.sweeps.haystack import NotEnoughPadding
    from workbench.sweeps.store import SweepStore, sweep_id

    r = _resolve(root, request)
    try:
        planner = Planner(r.project, r.spec, r.cfg)
        arms = planner.arms()
    except NotEnoughPadding as exc:
        raise _padding(exc) from None
    if not arms:
        raise _no_arms(request)
    sid = sweep_id(r.spec)
    done = set(SweepStore(r.project).results(sid))
    by: dict[tuple, list[int]] = {}
    try:
        for a in arms:
            key = (a.family or "-", str(a.length or "gold only"), a.variant, a.distribution or "-")
            by.setdefault(key, []).append(planner.build(a).input_tokens)
    except NotEnoughPadding as exc:  # found while building an arm's input
        raise _padding(exc) from None
    rows = [PlanRow(fam, length, v, dist, len(toks), min(toks), max(toks)) for (fam, length, v, dist), toks in by.items()]
    todo = len([a for a in arms if a.arm_id not in done])
    return SweepPlan(
        kind="plan", sweep_id=sid, rows=rows, arms=len(arms), stored=len(done), to_run=todo,
        max_input_tokens=max(row.max_tokens for row in rows), answer_tokens=r.spec.max_tokens, window=window_budget(r.cfg),
        calibration_calls=2 * DEFAULT_PAIRS, judge_calls=len([a for a in arms if a.gold]) * r.spec.judge_samples,
    )


def run_sweep(root: Path, request: SweepRequest, *, progress: Progress | None = None,
              opened: Callable[[SweepOpened], None] | None = None) -> SweepRun:
    """Run the sweep's missing arms, then the judge (blocking). ``opened`` is told what is stored
    before the calls start. KeyboardInterrupt passes through: finished arms are stored, a rerun
    of the same request continues."""
    import asyncio

    from workbench.llm import server
    from workbench.llm.providers import open_model_and_judge
    from workbench.llm.server import LocalServerError
    from workbench.sweeps.haystack import NotEnoughPadding
    from workbench.sweeps.runner import open_sweep, run_sweep as run_arms
    from workbench.sweeps.store import SweepStore

    r = _resolve(root, request)
    store = SweepStore(r.project)
    arms: list[Arm]
    planner: Planner
    try:
        meta, arms, planner = open_sweep(r.project, r.spec, r.cfg, store)
    except NotEnoughPadding as exc:
        raise _padding(exc) from None
    if not arms:
        raise _no_arms(request)
    local = not r.cfg.base_url or not r.judge_cfg.base_url
    if opened is not None:
        opened(SweepOpened(meta.sweep_id, len(arms), len(store.results(meta.sweep_id)), str(store.dir(meta.sweep_id)), local))
    if local:
        try:
            server.default_server()
        except LocalServerError as exc:
            raise SweepError(str(exc)) from None
    started = time.perf_counter()

    async def go():
        async with open_model_and_judge(r.project, r.model, r.cfg, r.judge, r.judge_cfg, request.use_cache,
                                        request.concurrency) as (client, judge_client):
            return await run_arms(r.project, r.spec, client, judge_client, progress=progress, workers=request.concurrency)

    try:
        meta, failed = asyncio.run(go())
    except NotEnoughPadding as exc:
        raise _padding(exc) from None
    return SweepRun(kind="run", sweep_id=meta.sweep_id, summary_markdown=_summary_markdown(r.project, meta), failed_calls=failed,
                    wall_s=time.perf_counter() - started, total_wall_s=meta.wall_s)


def _summary_markdown(project: Project, meta) -> str:
    from workbench.report.sweeps import summary_markdown
    from workbench.sweeps.summary import summarize

    return summary_markdown(summarize(project, meta))


def list_sweeps(root: Path) -> SweepList:
    """The project's stored sweeps, each with how many of its arms are done."""
    from workbench.project.load import load_project
    from workbench.project.suggest import command
    from workbench.sweeps.store import SweepStore

    store = SweepStore(load_project(root))
    sweeps = [StoredSweep(m.sweep_id, m.spec.kind, m.spec.model, len(store.results(m.sweep_id)), m.arms, m.wall_s)
              for m in store.list()]
    return SweepList(sweeps, command("sweep volume", root))


def show_sweeps(root: Path, sweep_id: str | None = None) -> str:
    """A stored sweep's summary as Markdown; without an id, the latest sweep of each kind (what the
    TUI's Sweeps tab charts), "" when there is none. An unknown id is a SweepError."""
    from workbench.project.load import load_project
    from workbench.project.suggest import command
    from workbench.report.sweeps import markdown_section
    from workbench.sweeps import summary
    from workbench.sweeps.store import SweepStore

    project = load_project(root)
    if sweep_id is None:
        return markdown_section(summary.sweeps_dict(project))
    meta = SweepStore(project).load_meta(sweep_id)
    if meta is None:
        raise SweepError(f"no sweep {sweep_id!r}: see `{command('sweep list', root)}`")
    return _summary_markdown(project, meta)
