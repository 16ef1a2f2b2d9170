"""The open project and everything derived from it, plus the blocking operations workers run.

Nothing here touches a widget: every function runs in a worker thread and reports through the
callbacks it is given. (No Textual import: these are plain functions over the core's API.)
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from workbench.evaluate import SystemResult, evaluate
from workbench.evidence import ModelEvidence
from workbench.indexing import build_indexes, index_status
from workbench.ladder import StaleTiersError, load_tiers, write_ladder
from workbench.project import Project, load_project
from workbench.records import ModelConfig, Query, QueryAccess, Tier, TierSet

RETRIEVERS = ["bm25", "dense", "hybrid"]
MODEL_TASKS = ("localize", "qa", "oracle", "rag")
TASK_LABELS = {"localize": "localization", "qa": "QA (full tier)", "oracle": "oracle QA (gold only)", "rag": "retrieve-then-read"}


class Cancelled(Exception):
    """The user cancelled a long task (raised from a progress callback)."""


@dataclass
class Session:
    root: Path
    project: Project
    tierset: TierSet | None = None
    results: list[SystemResult] = field(default_factory=list)
    # system -> tier -> query_id -> QueryAccess
    per_query: dict[str, dict[str, dict[str, QueryAccess]]] = field(default_factory=dict)
    use: dict = field(default_factory=dict)
    # (query_id, tier) -> {system: ModelEvidence} produced or loaded in this session
    model_results: dict[tuple[str, str], dict[str, ModelEvidence]] = field(default_factory=dict)

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


Progress = Callable[[str, int, int], None]


def build_all(session: Session, progress: Progress) -> str:
    """Tiers (if stale) and every missing/stale index."""
    try:
        session.tierset = load_tiers(session.project)
    except StaleTiersError:
        progress("ladder", 0, 1)
        session.tierset = write_ladder(session.project)
        progress("ladder", 1, 1)
    done = build_indexes(session.project, session.tiers, progress=progress)
    return f"built {len(done['built'])} index(es), {len(done['kept'])} already current"


def evaluate_all(session: Session, progress: Progress, retrievers=None) -> list[SystemResult]:
    from workbench.retrievers import make_retrievers

    systems = retrievers if retrievers is not None else make_retrievers(session.project, RETRIEVERS)
    return evaluate(session.project, session.tiers, systems, progress=progress)


# ---------------------------------------------------------------- use side


def use_table(project: Project, tiers: list[Tier]) -> dict:
    """{tier: {system: {"QA": …, "n": …, "fits": bool, …}}} from stored model runs."""
    from workbench.llm.report import use_rows

    return use_rows(project, tiers) or {}


def evidence_from_run(run, query_id: str) -> ModelEvidence | None:
    """The part of a stored/streamed TierRun that concerns one query, provider-neutral."""
    base = dict(system=run.system, tier=run.tier, task=run.task, fits=run.fits,
                prompt_tokens=run.input_tokens, budget_tokens=run.budget_tokens)
    if not run.fits:
        return ModelEvidence(**base, note=run.reason)
    for f in run.failures:
        if f.query_id == query_id:
            return ModelEvidence(**base, note=f"{f.stage} failed: {f.error}")
    if run.task == "localize":
        r = next((x for x in run.localize if x.query_id == query_id), None)
        if r is None:
            return None
        return ModelEvidence(**base, answer=r.output, doc_ids=list(r.doc_ids), cached=r.cached,
                             note=f"{r.out_of_tier} DocID(s) not in the tier" if r.out_of_tier else "")
    r = next((x for x in run.qa if x.query_id == query_id), None)
    if r is None:
        return None
    reason = ""
    if r.judge_raw:
        reason = " ".join(r.judge_raw[0].split())[:300]
    note = "" if r.judged else "judging…"
    if r.dropped_doc_ids:
        note = (note + " " if note else "") + f"{len(r.dropped_doc_ids)} padding document(s) cut to fit"
    return ModelEvidence(**base, answer=r.answer, judge_score=r.judge_median, judge_scores=list(r.judge_scores),
                         judge_reason=reason, doc_ids=list(r.context_doc_ids) if run.task == "rag" else [],
                         cached=r.cached, note=note)


def _scratch_store(project: Project, query_id: str, on_save: Callable | None = None):
    """The store of one-query runs from the TUI, under .workbench/tui/<query>/: apart from the
    full-tier runs, and never published as the tier's localization run on the access side."""
    from workbench.fsutil import safe_name
    from workbench.llm.store import LLMRunStore

    return LLMRunStore(project, root=project.state_dir / "tui" / safe_name(query_id), publish=False, on_save=on_save)


def task_options(task: str, query_id: str, rag_retriever: str = "hybrid"):
    from workbench.llm.tasks import TaskOptions

    return TaskOptions(task=task, query_ids=(query_id,), retriever=rag_retriever if task == "rag" else None,
                       judge_samples=1)


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


def estimate_prompts(session: Session, tier: Tier, query: Query, model: str, cfg: ModelConfig) -> dict[str, dict]:
    """Per task: the input size in the model's budgeting tokens before running, and whether it fits."""
    from workbench.llm.tasks import estimate_input, window_budget

    out = {}
    for task in MODEL_TASKS:
        try:
            opts = task_options(task, query.query_id, rag_retriever(session, tier))
            worst, reason = estimate_input(session.project, tier, cfg, opts, [query])
            out[task] = {"tokens": worst, "budget": window_budget(cfg), "fits": not reason, "reason": reason}
        except Exception as exc:  # a missing retriever run for rag, say
            out[task] = {"tokens": None, "budget": window_budget(cfg), "fits": False, "reason": str(exc)}
    return out


def rag_retriever(session: Session, tier: Tier) -> str:
    from workbench.runs import RunStore

    systems = RunStore(session.project).systems(tier)
    return next((r for r in ("hybrid", "dense", "bm25") if r in systems), "hybrid")


def run_model_task(
    session: Session, tier: Tier, query: Query, model: str, cfg: ModelConfig, task: str,
    on_update: Callable[[ModelEvidence], None], is_cancelled: Callable[[], bool],
) -> ModelEvidence | None:
    """Run one task for one query on one tier (blocking; call from a thread worker)."""
    from workbench.llm.providers import open_client, resolve_judge
    from workbench.llm.tasks import run_tier

    def saved(run) -> None:
        ev = evidence_from_run(run, query.query_id)
        if ev is not None:
            on_update(ev)

    store = _scratch_store(session.project, query.query_id, saved)
    opts = task_options(task, query.query_id, rag_retriever(session, tier))

    async def go():
        async with open_client(session.project, model, cfg) as client:
            if task == "localize":
                return await run_tier(session.project, tier, model, client, opts, store=store)
            jname, jcfg = resolve_judge(session.project, model)
            async with open_client(session.project, jname, jcfg) as judge:
                return await run_tier(session.project, tier, model, client, opts, judge_client=judge, store=store)

    async def guarded():
        task_ = asyncio.ensure_future(go())
        while not task_.done():
            if is_cancelled():
                task_.cancel()
            await asyncio.wait({task_}, timeout=0.1)
        if task_.cancelled():
            raise Cancelled("model run cancelled")
        return task_.result()

    run = asyncio.run(guarded())
    return evidence_from_run(run, query.query_id)
