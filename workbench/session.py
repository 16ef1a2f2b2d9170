"""The application layer: what the CLI, the TUI, the report and the tests do to a project.

Front ends call these functions and read the record types re-exported here; they do not reach
into the dozen core modules behind them (screens/ may import nothing else of the core: an
import-linter contract in pyproject.toml says so). Everything is headless and blocking: the TUI
calls it from thread workers, the CLI directly.

Public surface (see ``__all__``):
  open_session(root) -> (Session, stale reasons)     build(session, progress) -> summary
  evaluate_access(project, tiers, …) -> results     evaluate_all(session, progress) -> results
  use_table(project, tiers) -> UseTable | None       inspect(session, query_id, tier) -> QueryInspection
  known_results(session, tier, query_id)             estimate_prompts(session, tier, query, model)
  run_model_task(session, tier, query, model, task, on_update, progress)
  export_evidence(session, query_id, directory)      ensure_tiers / select_tiers / build_indexes
Long work reports through the one progress + cancel protocol (workbench.progress); user-causable
failures are WorkbenchError (workbench.errors).
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import msgspec

from workbench.errors import BadInput, ExternalError, WorkbenchError
from workbench.evaluate import SystemResult, evaluate
from workbench.evidence import ModelEvidence, evidence_dict, write_evidence
from workbench.indexing import build_indexes, index_status
from workbench.inspect import GOLD, HARD_NEGATIVE, NearMiss, QueryInspection, RankedRow, SystemRanking, inspect_stored
from workbench.ladder import StaleTiersError, ensure_tiers, load_tiers, select_tiers, write_ladder
from workbench.llm.report import UseRow, UseTable
from workbench.llm.report import use_table as _use_table
from workbench.names import TASKS, SystemName, TaskSpec, system_label, task_of
from workbench.progress import Cancelled, Progress, no_progress
from workbench.project import Project, load_project
from workbench.records import AccessSummary, Document, ModelConfig, Query, QueryAccess, Tier, TierSet
from workbench.retrievers import make_retrievers, preferred, retriever_names
from workbench.runs import RunStore
from workbench.worddiff import Span, WordDiff, salient_changes

if TYPE_CHECKING:
    from workbench.llm.records import TierRun
    from workbench.llm.store import LLMRunStore

__all__ = [
    # operations
    "open_session", "build", "evaluate_access", "evaluate_all", "use_table", "inspect", "known_results",
    "estimate_prompts", "run_model_task", "export_evidence", "evidence_from_run", "window_budget", "sweep_panels",
    "ensure_tiers", "select_tiers", "build_indexes", "index_status", "load_project",
    # names and registries
    "TASKS", "TaskSpec", "SystemName", "system_label", "task_of", "retriever_names", "preferred",
    # records a front end shows
    "Session", "PromptEstimate", "SystemResult", "AccessSummary", "QueryAccess", "UseRow", "UseTable",
    "ModelEvidence", "QueryInspection", "SystemRanking", "RankedRow", "NearMiss", "GOLD", "HARD_NEGATIVE",
    "WordDiff", "Span", "salient_changes", "Query", "Tier", "TierSet", "Document", "ModelConfig", "Project",
    # errors and progress
    "WorkbenchError", "BadInput", "ExternalError", "StaleTiersError", "Cancelled", "Progress", "no_progress",
]

INSPECTION_CACHE = 64  # inspections kept per session: switching tiers back and forth re-reads nothing


class PromptEstimate(msgspec.Struct, frozen=True):
    """One task's input for one query, counted before running: does it fit the model's window?"""

    task: str
    tokens: int | None  # None: cannot be counted (e.g. rag without a stored retriever run)
    budget: int
    fits: bool
    reason: str = ""  # why it does not fit or cannot be counted


@dataclass
class Session:
    """The open project and what the front end has derived from it so far."""

    root: Path
    project: Project
    tierset: TierSet | None = None
    results: list[SystemResult] = field(default_factory=list)
    # system -> tier -> query_id -> QueryAccess
    per_query: dict[str, dict[str, dict[str, QueryAccess]]] = field(default_factory=dict)
    use: UseTable | None = None
    # (query_id, tier) -> {system: ModelEvidence} produced or loaded in this session
    model_results: dict[tuple[str, str], dict[str, ModelEvidence]] = field(default_factory=dict)
    _inspections: OrderedDict[tuple, QueryInspection] = field(default_factory=OrderedDict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def tiers(self) -> list[Tier]:
        return list(self.tierset.tiers) if self.tierset else []

    def tier(self, name: str) -> Tier:
        return next(t for t in self.tiers if t.name == name)

    def tiers_for(self, query_id: str) -> list[Tier]:
        return [t for t in self.tiers if query_id in t.query_ids]

    @property
    def systems(self) -> list[str]:
        return list(self.per_query)

    @property
    def best_retriever(self) -> str:
        """The retriever that stands for access when one must (the most preferred one evaluated)."""
        return next(iter(preferred(self.systems)), preferred()[0])

    def set_results(self, results: list[SystemResult]) -> None:
        self.results = results
        per: dict[str, dict[str, dict[str, QueryAccess]]] = {}
        for r in results:
            per.setdefault(r.system, {})[r.tier] = {q.query_id: q for q in r.per_query}
        self.per_query = per

    def access(self, system: str, tier: str, query_id: str) -> QueryAccess | None:
        return self.per_query.get(system, {}).get(tier, {}).get(query_id)

    def figure(self, system: str, tier: str, query: Query) -> float | None:
        """The query's headline access figure: FR@K for multi-source, SR@K for single-source."""
        a = self.access(system, tier, query.query_id)
        if a is None:
            return None
        return a.fr_at_k if a.fr_at_k is not None else a.sr_at_k

    def breaks_at(self, system: str, query: Query) -> int | None:
        """Index (ladder order) of the first tier where the query's figure drops below 1."""
        for n, t in enumerate(self.tiers):
            f = self.figure(system, t.name, query)
            if f is not None and f < 1.0:
                return n
        return None

    def models(self) -> list[tuple[str, ModelConfig]]:
        from workbench.llm.providers import DEFAULT_MODEL

        configured = list(self.project.config.models.items())
        return configured or [(DEFAULT_MODEL, ModelConfig())]

    def model_config(self, name: str) -> ModelConfig:
        return dict(self.models())[name]

    def merge_results(self, query_id: str, tier: str, results: dict[str, ModelEvidence]) -> None:
        self.model_results.setdefault((query_id, tier), {}).update(results)


def open_session(root: Path) -> tuple[Session, list[str]]:
    """Load the project and report what is missing or stale (nothing is built here)."""
    project = load_project(root)
    session = Session(root=Path(root), project=project)
    stale: list[str] = []
    try:
        session.tierset = load_tiers(project)
    except StaleTiersError as exc:
        stale.append(str(exc).split(":")[0])
        return session, stale
    bad = [f"{kind} index of {t.name} is {s}" for t in session.tiers for kind, s in index_status(project, t).items() if s != "ok"]
    if bad:
        stale.append(bad[0] + (f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""))
    return session, stale


def build(session: Session, progress: Progress = no_progress) -> str:
    """Tiers (if stale) and every missing/stale index. Returns a one-line summary."""
    try:
        session.tierset = load_tiers(session.project)
    except StaleTiersError:
        progress("ladder", 0, 1)
        session.tierset = write_ladder(session.project)
        progress("ladder", 1, 1)
    done = build_indexes(session.project, session.tiers, progress=progress)
    return f"built {len(done['built'])} index(es), {len(done['kept'])} already current"


def evaluate_access(
    project: Project, tiers: list[Tier], retrievers: list[str] | None = None, k: int = 10,
    include_models: bool = True, progress: Progress | None = None,
) -> list[SystemResult]:
    """Access figures per tier × system: the named retrievers (default: all registered) and,
    with include_models, the stored model localization runs. Indexes must be built."""
    return evaluate(project, tiers, make_retrievers(project, retrievers), k=k, include_models=include_models,
                    progress=progress)


def evaluate_all(session: Session, progress: Progress = no_progress) -> list[SystemResult]:
    """Every registered retriever and stored model run on every tier of the session."""
    return evaluate_access(session.project, session.tiers, progress=progress)


def use_table(project: Project, tiers: list[Tier]) -> UseTable | None:
    """Use-side rows (QA, oracle, rag per tier × model system) from stored runs, and a verdict
    on each judge behind them; None when no model has run on these tiers."""
    return _use_table(project, tiers)


def inspect(session: Session, query_id: str, tier_name: str) -> QueryInspection:
    """One query on one tier (rankings, gold ranks, near misses with their word diffs).

    Cached per (query, tier, stored runs of the tier): a new or rewritten run misses."""
    tier, query = session.tier(tier_name), session.project.query(query_id)
    store = RunStore(session.project)
    key = (query_id, tier_name, store.fingerprint(tier_name))
    with session._lock:
        hit = session._inspections.get(key)
        if hit is not None:
            session._inspections.move_to_end(key)
            return hit
    ins = inspect_stored(session.project, tier, query, store=store)
    with session._lock:
        session._inspections[key] = ins
        while len(session._inspections) > INSPECTION_CACHE:
            session._inspections.popitem(last=False)
    return ins


# ---------------------------------------------------------------- use side


def evidence_from_run(run: "TierRun", query_id: str) -> ModelEvidence | None:
    """The part of a stored/streamed TierRun that concerns one query, provider-neutral."""
    base = ModelEvidence(system=run.system, tier=run.tier, task=run.task, fits=run.fits,
                         prompt_tokens=run.input_tokens, budget_tokens=run.budget_tokens)
    if not run.fits:
        return msgspec.structs.replace(base, note=run.reason)
    for f in run.failures:
        if f.query_id == query_id:
            return msgspec.structs.replace(base, note=f"{f.stage} failed: {f.error}")
    if TASKS[run.task].localizes:
        r = next((x for x in run.localize if x.query_id == query_id), None)
        if r is None:
            return None
        return msgspec.structs.replace(base, answer=r.output, doc_ids=list(r.doc_ids), cached=r.cached,
                                       note=f"{r.out_of_tier} DocID(s) not in the tier" if r.out_of_tier else "")
    q = next((x for x in run.qa if x.query_id == query_id), None)
    if q is None:
        return None
    reason = " ".join(q.judge_raw[0].split())[:300] if q.judge_raw else ""
    note = "" if q.judged else "judging…"
    if q.dropped_doc_ids:
        note = (note + " " if note else "") + f"{len(q.dropped_doc_ids)} padding document(s) cut to fit"
    return msgspec.structs.replace(
        base, answer=q.answer, judge_score=q.judge_median, judge_scores=list(q.judge_scores), judge_reason=reason,
        doc_ids=list(q.context_doc_ids) if TASKS[run.task].context == "retrieved" else [], cached=q.cached, note=note)


def _scratch_store(project: Project, query_id: str, on_save: Callable[["TierRun"], None] | None = None) -> "LLMRunStore":
    """The store of one-query runs from the TUI, under .workbench/tui/<query>/: apart from the
    full-tier runs, and never published as the tier's localization run on the access side."""
    from workbench.fsutil import safe_name
    from workbench.llm.store import LLMRunStore

    return LLMRunStore(project, root=project.state_dir / "tui" / safe_name(query_id), publish=False, on_save=on_save)


def _task_options(task: str, query_id: str, rag_retriever: str):
    from workbench.llm.tasks import TaskOptions

    return TaskOptions(task=task, query_ids=(query_id,),
                       retriever=rag_retriever if TASKS[task].context == "retrieved" else None, judge_samples=1)


def known_results(session: Session, tier: Tier, query_id: str) -> dict[str, ModelEvidence]:
    """Stored model results for this query on this tier: full-tier runs and earlier TUI runs."""
    from workbench.llm.store import LLMRunStore

    out: dict[str, ModelEvidence] = {}
    for store in (LLMRunStore(session.project), _scratch_store(session.project, query_id)):
        for run in store.runs(tier):
            ev = evidence_from_run(run, query_id)
            if ev is not None:
                out[run.system] = ev
    return out


def window_budget(cfg: ModelConfig) -> int:
    from workbench.llm.tasks import window_budget as budget

    return budget(cfg)


def estimate_prompts(session: Session, tier: Tier, query: Query, model: str) -> dict[str, PromptEstimate]:
    """Per task: the input size in the model's budgeting tokens before running, and whether it fits."""
    from workbench.llm.tasks import estimate_input

    cfg = session.model_config(model)
    budget = window_budget(cfg)
    out = {}
    for task in TASKS:
        try:
            opts = _task_options(task, query.query_id, _rag_retriever(session, tier))
            worst, reason = estimate_input(session.project, tier, cfg, opts, [query])
            out[task] = PromptEstimate(task, worst, budget, not reason, reason)
        except WorkbenchError as exc:  # no stored retriever run for rag, say
            out[task] = PromptEstimate(task, None, budget, False, str(exc))
    return out


def _rag_retriever(session: Session, tier: Tier) -> str:
    """The most preferred retriever with a stored run on this tier (rag reads its top documents)."""
    return next(iter(preferred(RunStore(session.project).systems(tier))), preferred()[0])


def run_model_task(
    session: Session, tier: Tier, query: Query, model: str, task: str,
    on_update: Callable[[ModelEvidence], None], progress: Progress = no_progress,
) -> ModelEvidence | None:
    """Run one task for one query on one tier (blocking; call from a thread worker).

    ``on_update`` sees every saved state (answers before judging); ``progress`` is polled while
    the model works, and raising Cancelled from it cancels the run (finished parts stay saved)."""
    from workbench.llm.providers import open_client, resolve_judge
    from workbench.llm.tasks import run_tier

    cfg = session.model_config(model)
    last: list = [f"{model}: {task} on {tier.name} (starting the model server if needed)", 0, 0]

    def relay(stage: str, done: int, total: int) -> None:
        last[:] = [f"{model}: {stage}", done, total]
        progress(*last)

    def saved(run: "TierRun") -> None:
        ev = evidence_from_run(run, query.query_id)
        if ev is not None:
            on_update(ev)

    store = _scratch_store(session.project, query.query_id, saved)
    opts = _task_options(task, query.query_id, _rag_retriever(session, tier))

    async def go() -> "TierRun":
        async with open_client(session.project, model, cfg) as client:
            if TASKS[task].localizes:
                return await run_tier(session.project, tier, model, client, opts, store=store, progress=relay)
            jname, jcfg = resolve_judge(session.project, model)
            async with open_client(session.project, jname, jcfg) as judge:
                return await run_tier(session.project, tier, model, client, opts, judge_client=judge, store=store,
                                      progress=relay)

    async def guarded() -> "TierRun":
        job = asyncio.ensure_future(go())
        while not job.done():
            try:
                progress(*last)  # the one way to cancel: the callback raises Cancelled
            except Cancelled:
                job.cancel()
                await asyncio.wait({job})
                raise
            await asyncio.wait({job}, timeout=0.1)
        return job.result()

    run = asyncio.run(guarded())
    return evidence_from_run(run, query.query_id)


def sweep_panels(session: Session) -> list:
    """The latest stored sweep of each kind as terminal charts (Rich renderables); [] when none.

    Reads files and resamples for intervals: call it from a worker."""
    from workbench.sweeps.charts import sweep_panels as panels

    return panels(session.project)


def export_evidence(session: Session, query_id: str, directory: Path) -> list[Path]:
    """Write evidence-<query>.md and .json (every tier of the query, model results of this
    session) into directory; returns the paths."""
    query = session.project.query(query_id)
    tiers = session.tiers_for(query_id)
    inspections = [inspect(session, query_id, t.name) for t in tiers]
    models = [ev for t in tiers for ev in session.model_results.get((query_id, t.name), {}).values()]
    directory.mkdir(parents=True, exist_ok=True)
    return list(write_evidence(directory, evidence_dict(session.project, query, inspections, models)))
