"""The TUI's facade: every operation a screen performs on a project, and the record types the
screens show. screens/ may import nothing else of the core (an import-linter contract in
pyproject.toml says so); the CLI calls the core packages directly, except `workbench demo`
without a terminal, which runs the same open → build → evaluate as the TUI.

Everything is headless and blocking: the TUI calls it from thread workers. Long work reports
through the one progress + cancel protocol (workbench/progress.py); user-causable failures are
WorkbenchError (workbench/errors.py). The logic lives in the packages; what is here is the
session's state (what the front end derived so far) and operations over it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from workbench.access.evaluate import SystemResult, evaluate
from workbench.access.indexing import IndexKind, build_indexes, index_status
from workbench.access.ladder import StaleTiersError, load_tiers, write_ladder
from workbench.access.retrievers import make_retrievers, preferred
from workbench.access.runs import RunStore
from workbench.diagnosis.collect import Collector, QueryVerdict
from workbench.diagnosis.fix_commands import RunnableFix
from workbench.diagnosis.recommend import Recommendation, first_runnable, primary_recommendations
from workbench.diagnosis.live import FILTER_WORDS, LiveDiagnosis
from workbench.diagnosis.rules import VERDICTS
from workbench.errors import WorkbenchError, os_error
from workbench.inspection.evidence import ModelEvidence, evidence_dict, write_evidence
from workbench.inspection.model_evidence import evidence_from_run, scratch_store, stored_evidence
from workbench.inspection.rankings import QueryInspection, SystemRanking, inspect_stored
from workbench.inspection.worddiff import Span, salient_changes, word_diff
from workbench.llm.figures import UseRow, UseTable
from workbench.llm.figures import use_table as _use_table
from workbench.llm.tasks import PromptEstimate
from workbench.names import TASKS, system_label
from workbench.progress import Cancelled, Progress, no_progress, run_polled
from workbench.project.files import Project
from workbench.project.labels import MARKS
from workbench.project.load import load_project
from workbench.project.versions import VersionInfo, list_versions
from workbench.project.visit import LabelVisit
from workbench.records import Document, ModelConfig, Query, QueryAccess, Tier, TierSet
from workbench.triage import relabel
from workbench.triage.queries import who
from workbench.triage.relabel import Relabelled

if TYPE_CHECKING:
    from workbench.llm.records import TierRun

__all__ = [
    # operations
    "open_session", "build", "evaluate_all", "use_table", "inspect", "known_results",
    "estimate_prompts", "why_not_run", "run_model_task", "run_batch", "calibrate_judge", "export_evidence", "window_budget", "sweep_panels",
    "label_document", "undo_label", "close_visit", "version_shown", "edit_reference_answer", "add_query_from_log", "apply_relabelled",
    "access_line", "index_status", "list_versions", "diagnose", "verdict_systems", "verdict_system",
    "choose_verdict_system", "figures_system", "diagnosis_after_run", "export_report", "query_sources", "insight_overview", "ranks_before",
    "load_recommendations", "shown_recommendations", "first_runnable_fix", "fix_pairs", "run_fix",
    # names and registries
    "TASKS", "MARKS", "VERDICTS", "FILTER_WORDS", "system_label", "preferred", "salient_changes", "word_diff",
    # records a front end shows
    "Session", "PromptEstimate", "SystemResult", "UseRow", "UseTable", "ModelEvidence", "QueryInspection",
    "SystemRanking", "Span", "Query", "Document", "VersionInfo", "LiveDiagnosis", "QueryVerdict", "Relabelled",
    "Recommendation", "RunnableFix",
    # errors and progress
    "WorkbenchError", "os_error", "Cancelled", "Progress",
]

INSPECTION_CACHE = 64  # inspections kept per session: switching tiers back and forth re-reads nothing


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
    # labelling undo stack: (version before, version made) per closed visit's version, newest last
    label_history: list[tuple[str, str]] = field(default_factory=list)
    visit: LabelVisit | None = None  # the inspector visit's labelling: its one open version
    _worked_on: str | None = None  # the version the last labelling change left (before the front end installs it)
    _label_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)  # one labelling change at a time
    _visit_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)  # held only while one is written
    diagnosis: LiveDiagnosis | None = None  # verdicts per query (diagnose); one query recomputed after a run
    chosen_verdict_system: str | None = None  # the user's choice (y); None: the diagnosis' default
    # (verdict system, its overall recommendations with command, judge, effect): load_recommendations
    recommended: tuple[str, list[Recommendation]] | None = None
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

    def system_on(self, system: str, tier: str) -> str:
        """The system whose figures stand for ``system`` on ``tier``: itself once it has results
        there, else the most preferred one that has (while a build runs, hybrid exists on a few
        tiers only; the other tiers keep BM25's figures rather than going blank)."""
        if tier in self.per_query.get(system, {}):
            return system
        there = [name for name, tiers in self.per_query.items() if tier in tiers]
        return next(iter(preferred(there)), there[0] if there else system)

    def stand_ins(self, system: str) -> dict[str, str]:
        """Tier -> the system standing in for ``system`` there (only where one does)."""
        out = {}
        for t in self.tiers:
            other = self.system_on(system, t.name)
            if other != system and other in self.per_query:
                out[t.name] = other
        return out

    def figure(self, system: str, tier: str, query: Query) -> float | None:
        """The query's headline access figure: SR@K, the share of its gold documents in the top K
        (1 = all, FR@K = 1 too; between 0 and 1 = some, the half-circle; 0 = none). FR@K (0 or 1)
        would hide a multi-source query that found some of its gold."""
        a = self.access(self.system_on(system, tier), tier, query.query_id)
        if a is None:
            return None
        return a.sr_at_k

    def breaks_at(self, system: str, query: Query) -> int | None:
        """Index (ladder order) of the first tier where the query's figure drops below 1."""
        for n, t in enumerate(self.tiers):
            if query.query_id not in t.query_ids:
                continue  # another domain's tier: the query is not asked there
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


def open_session(root: Path, queries_version: str | None = None) -> tuple[Session, list[str]]:
    """Load the project (with that query-set version's queries: tiers stay the original's, so
    choosing a version never makes them stale) and report what is missing or stale."""
    project = load_project(root, queries_version)
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


def build(session: Session, progress: Progress = no_progress,
          ready: Callable[[IndexKind, list[str]], None] | None = None) -> str:
    """Tiers (if stale) and every missing/stale index. Returns a one-line summary.

    ``ready(kind, tier names)`` is called as indexes become usable (every sparse one first, then
    dense tier by tier, smallest first), so a caller can evaluate what is there already."""
    try:
        session.tierset = load_tiers(session.project)
    except StaleTiersError:
        progress("ladder", 0, 1)
        session.tierset = write_ladder(session.project)
        progress("ladder", 1, 1)
    done = build_indexes(session.project, session.tiers, progress=progress, ready=ready)
    return f"built {len(done['built'])} index(es), {len(done['kept'])} already current"


def evaluate_all(session: Session, progress: Progress = no_progress) -> list[SystemResult]:
    """Every registered retriever whose indexes are built, and every stored model run, on every
    tier of the session, at the project's `[retrievers] k`. While a background build runs, dense
    systems join tier by tier."""
    p = session.project
    return evaluate(p, session.tiers, make_retrievers(p), k=p.config.retrievers.k, progress=progress, built_only=True)


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


def ranks_before(session: Session, query_id: str, tier_name: str, system: str) -> dict[int, int] | None:
    """For a reranked system: each document's rank under its base on this tier (``#16 → #3``); None otherwise."""
    from workbench.diagnosis.movement import ranks_before as before
    from workbench.inspection.rankings import stored_rankings

    hits = stored_rankings(session.project, session.tier(tier_name), query_id)
    return before({s: [h.doc_id for h in hs] for s, hs in hits.items()}, system)


# ---------------------------------------------------------------- use side


def _task_options(task: str, query_id: str, rag_retriever: str):
    from workbench.llm.tasks import TaskOptions

    # the inspector's runs keep the exact messages sent: d on the model tab shows them beside the reply
    return TaskOptions(task=task, query_ids=(query_id,),
                       retriever=rag_retriever if TASKS[task].context == "retrieved" else None, judge_samples=1,
                       keep_prompts=True)


def why_not_run(session: Session, query_id: str, tier: str, task: str) -> str | None:
    """Why a task cannot run for this query on this tier (None: it can): said, never a silent key."""
    q = session.project.query(query_id)
    if not tier:
        return f"{query_id} is on no tier yet (tiers hold the queries of their domain: give it a domain and gold)"
    spec = TASKS[task]
    if spec.context == "gold" and not q.gold_doc_ids:
        return f"{spec.label} reads the gold documents and {query_id} has none: mark one gold (G) first"
    if spec.context == "retrieved" and not RunStore(session.project).systems(session.tier(tier)):
        return f"{spec.label} reads a retriever's top documents: no stored ranking on {tier} yet"
    if spec.localizes and not q.gold_doc_ids:
        return f"{spec.label} is scored against gold documents and {query_id} has none: mark one gold (G) first"
    return None


def known_results(session: Session, tier: Tier, query_id: str) -> dict[str, ModelEvidence]:
    """Stored model results for this query on this tier: full-tier runs and earlier TUI runs
    (production's answer from a trace import with its exact prompt)."""
    from workbench.triage.traces.store import with_trace

    return with_trace(session.project, query_id, stored_evidence(session.project, tier, query_id))


def window_budget(cfg: ModelConfig) -> int:
    from workbench.llm.tasks import window_budget as budget

    return budget(cfg)


def estimate_prompts(session: Session, tier: Tier, query: Query, model: str) -> dict[str, PromptEstimate]:
    """Per task: the input size in the model's budgeting tokens before running, and whether it fits."""
    from workbench.llm.tasks import estimate_tasks

    rag = _rag_retriever(session, tier)
    return estimate_tasks(session.project, tier, session.model_config(model), query,
                          lambda task: _task_options(task, query.query_id, rag))


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
        ev = evidence_from_run(run, query.query_id, session.project)
        if ev is not None:
            on_update(ev)

    store = scratch_store(session.project, query.query_id, saved, task)
    opts = _task_options(task, query.query_id, _rag_retriever(session, tier))

    clients: list = []  # for the cancel hook: x aborts their requests and stops the server's generation

    async def go() -> "TierRun":
        async with open_client(session.project, model, cfg) as client:
            clients.append(client)
            if TASKS[task].localizes:
                return await run_tier(session.project, tier, model, client, opts, store=store, progress=relay)
            jname, jcfg = resolve_judge(session.project, model)
            async with open_client(session.project, jname, jcfg) as judge:
                clients.append(judge)
                return await run_tier(session.project, tier, model, client, opts, judge_client=judge, store=store,
                                      progress=relay)

    said: list[str] = []

    def cancel_requests() -> None:
        aborted = sum(c.cancel() for c in clients)
        if any(c.aborted for c in clients):
            said.append(f"{aborted} request(s) aborted; the local model server stopped generating (restarted)")
        elif aborted:
            said.append(f"{aborted} request(s) aborted (connection closed)")

    try:  # the one way to cancel: the callback raises Cancelled
        run = run_polled(go, lambda: progress(*last), on_cancel=cancel_requests)
    except Cancelled as exc:
        raise (Cancelled(f"{exc}: {said[0]}") if said else exc) from None
    diagnosis_after_run(session, query.query_id)
    return evidence_from_run(run, query.query_id, session.project)


def batch_tier(session: Session, query_id: str) -> Tier | None:
    """Where a batch runs a query: its smallest tier (ladder order: its domain's base), the one a
    model's window is likeliest to hold."""
    tiers = session.tiers_for(query_id)
    return tiers[0] if tiers else None


class _Counting:
    """A batch's progress for one query's run: its stages named, the bar counting queries."""

    def __init__(self, progress: Progress, prefix: str, done: int, total: int) -> None:
        self.progress, self.prefix, self.done, self.total = progress, prefix, done, total

    def __call__(self, stage: str, done: int, total: int) -> None:
        self.progress(f"{self.prefix}: {stage}", self.done, self.total)


def run_batch(session: Session, query_ids: list[str], model: str, task: str, progress: Progress = no_progress,
              on_each: Callable[[str, ModelEvidence | None], None] | None = None) -> tuple[int, int, int]:
    """Run one task on each query (on its batch_tier), one after another; resumable: a query that
    already has this task's stored answer there is skipped. Raising Cancelled from ``progress``
    stops it (what finished stays stored). Returns (ran, kept, skipped: cannot run)."""
    ran = kept = skipped = 0
    for n, qid in enumerate(query_ids):
        progress(f"{task} on {len(query_ids)} queries ({qid})", n, len(query_ids))
        tier = batch_tier(session, qid)
        if tier is None or why_not_run(session, qid, tier.name, task) is not None:
            skipped += 1
            continue
        if any(ev.task == task and ev.fits and ev.answer for ev in known_results(session, tier, qid).values()):
            kept += 1
            continue
        ev = run_model_task(session, tier, session.project.query(qid), model, task, lambda _e: None,
                            _Counting(progress, f"{qid} ({n + 1}/{len(query_ids)})", n, len(query_ids)))
        if ev is not None:
            session.merge_results(qid, tier.name, {ev.system: ev})
        ran += 1
        if on_each is not None:
            on_each(qid, ev)
    progress(f"{task} on {len(query_ids)} queries", len(query_ids), len(query_ids))
    return ran, kept, skipped


def calibrate_judge(session: Session, model: str, progress: Progress = no_progress) -> str:
    """Calibrate the judge of ``model``'s answers (right vs wrong reference answers), store it, and
    say what it found; until it separates them its scores never count."""
    from workbench.llm.calibration import calibrate_judge as calibrate
    from workbench.llm.calibration import save_calibration
    from workbench.llm.providers import open_client, resolve_judge

    jname, jcfg = resolve_judge(session.project, model)

    async def go():
        async with open_client(session.project, jname, jcfg) as judge:
            return await calibrate(judge, session.project.queries)

    cal = run_polled(go, lambda: progress(f"calibrating the judge {jname}", 0, 1))
    save_calibration(session.project, cal)
    return cal.verdict()


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
    written = list(write_evidence(directory, evidence_dict(session.project, query, inspections, models)))
    # and the diagnosis of this query alone, as the report gives it (self-contained HTML, Markdown)
    return written + export_report(session, directory, query_id, formats=("md", "html"))


# ---------------------------------------------------------------- production triage: labels, queries from a log


def _relabelled(session: Session, change: relabel.LabelChange, query_id: str, progress: Progress) -> Relabelled:
    return relabel.recompute(session.root, session.tierset, change, query_id, with_diagnosis=session.diagnosis is not None,
                             progress=progress)


def _in_visit(session: Session, write: Callable[[LabelVisit], relabel.LabelChange | None], query_id: str,
              progress: Progress) -> Relabelled | None:
    """One labelling change of the inspector visit (opened by its first change), written, then its
    figures recomputed; changes run one at a time, so a quick second key waits for the first."""
    with session._label_lock:
        with session._visit_lock:
            if session.visit is None:
                session.visit = LabelVisit(parent=session._worked_on or session.project.queries_version)
            change = write(session.visit)
            session._worked_on = session.visit.current
        return None if change is None else _relabelled(session, change, query_id, progress)


def label_document(session: Session, query_id: str, doc_id: int, mark: str, progress: Progress = no_progress) -> Relabelled | None:
    """Mark a document gold / hard_negative / not_relevant for a query, in the visit's one version
    (made by its first change, amended by the others; None: it already was that)."""
    return _in_visit(session, lambda v: relabel.mark_in_visit(session.root, v, query_id, doc_id, mark, who()),
                     query_id, progress)


def undo_label(session: Session, query_id: str, progress: Progress = no_progress) -> Relabelled | None:
    """Undo the visit's newest mark (out of its open version); with none, the newest closed visit's
    version: one more version, equal to the one before it. None: nothing to undo."""
    with session._visit_lock:
        in_visit = session.visit is not None and bool(session.visit.steps)
    if in_visit:
        return _in_visit(session, lambda v: relabel.undo_in_visit(session.root, v, who()), query_id, progress)
    if not session.label_history:
        return None
    target, undone = session.label_history[-1]
    return _relabelled(session, relabel.undo_change(session.project, target, undone, who()), query_id, progress)


def edit_reference_answer(session: Session, query_id: str, answer: str, progress: Progress = no_progress) -> Relabelled:
    change = _in_visit(session, lambda v: relabel.answer_in_visit(session.root, v, query_id, answer, who()),
                       query_id, progress)
    assert change is not None  # an answer edit always changes something
    return change


def close_visit(session: Session) -> str | None:
    """Leaving the inspector (or its query): the visit's version is closed, never amended again;
    its name (None: the visit changed nothing)."""
    with session._visit_lock:
        visit, session.visit = session.visit, None
        if visit is None or visit.name is None:
            return None
        session.label_history.append((visit.parent, visit.name))
        session._worked_on = visit.name
        return visit.name


def version_shown(session: Session) -> str:
    """The query-set version the views show, and whether a visit holds it open."""
    name = session.project.queries_version
    visit = session.visit
    return f"{name} (open)" if visit is not None and visit.name == name else name


def add_query_from_log(session: Session, text: str, answer: str = "", gold: list[str] | None = None,
                       progress: Progress = no_progress, domain: str | None = None) -> Relabelled:
    """A failing query pasted from a log: added, run through every retriever on every tier
    (``domain`` None: its gold documents' domain)."""
    query_id, change = relabel.add_logged_query(session.root, session.project.queries_version, text, answer, gold or [],
                                                who(), domain=domain)
    return _relabelled(session, change, query_id, progress)


def apply_relabelled(session: Session, r: Relabelled) -> None:
    """Install a change computed by a worker (call on the front end's thread)."""
    session.project, session.tierset = r.project, r.tierset
    session.set_results(r.results)
    if r.diagnosis is not None:
        session.diagnosis = r.diagnosis
    if r.undo is not None:
        session.label_history.append(r.undo)
    if r.undone and session.label_history:
        session.label_history.pop()
    with session._lock:
        session._inspections.clear()  # gold and hard negatives changed: every row's kind may have


def access_line(session: Session, query_id: str, tier: str) -> str:
    """The query's access on one tier, per system (what stands for its verdict until a use result
    exists): FR@10 for multi-source, SR@10 / R@1 otherwise; unlabelled queries say so."""
    q = session.project.query(query_id)
    if not q.is_labelled:
        return f"unlabelled: no access figures until a document is marked gold (queries {version_shown(session)})"
    parts = []
    for system in session.systems:
        a = session.access(system, tier, query_id)
        if a is None:
            continue
        found = sum(r is not None and r <= 10 for r in a.gold_ranks.values())
        parts.append(f"{system_label(system)} {found}/{a.n_gold}")
    return (f"gold in top 10 at {tier}: " + ", ".join(parts) if parts else f"no stored ranking at {tier} yet") + \
        f"  (queries {version_shown(session)})"


# ---------------------------------------------------------------- diagnosis


def verdict_systems(session: Session) -> list[str]:
    """The systems the diagnosis has verdicts of (y cycles through them)."""
    return [spec.name for spec in session.diagnosis.qv.systems] if session.diagnosis else []


def verdict_system(session: Session) -> str | None:
    """The one system whose verdicts and figures every view shows: the user's choice (y) while the
    diagnosis has it, else the diagnosis' default (workbench/diagnosis decides it)."""
    d = session.diagnosis
    if d is None:
        return None
    if session.chosen_verdict_system in verdict_systems(session):
        return session.chosen_verdict_system
    return d.primary


def choose_verdict_system(session: Session, name: str | None) -> None:
    session.chosen_verdict_system = name


def figures_system(session: Session) -> str:
    """The retriever whose access figures go with the verdict system: its access side (the
    ranking its verdicts read), else the best retriever evaluated."""
    name = verdict_system(session)
    spec = next((x for x in session.diagnosis.qv.systems if x.name == name), None) if session.diagnosis else None
    if spec is not None and spec.access in session.per_query:
        return spec.access
    return session.best_retriever


def diagnose(session: Session) -> LiveDiagnosis:
    """Verdicts of every query from every stored result (blocking): built on first use, re-read
    after ``ctrl+r`` or a tier run. Kept on the session for the query list and the inspector."""
    if session.diagnosis is None:
        session.diagnosis = LiveDiagnosis(session.project, session.tiers)
    else:
        session.diagnosis.refresh()
    return session.diagnosis


def diagnosis_after_run(session: Session, query_id: str) -> None:
    """A model result for this query was stored: recompute its verdicts (if the diagnosis is loaded)."""
    if session.diagnosis is not None:
        session.diagnosis.update_query(query_id)


def load_recommendations(session: Session) -> list[Recommendation]:
    """The verdict system's recommendations, each access fix with its command, judge and measured
    effect, read afresh from the stored runs (blocking: a worker's call) and kept on the session."""
    system = verdict_system(session)
    if session.diagnosis is None:
        return []
    qv = session.diagnosis.qv
    recs = primary_recommendations(session.project, qv, session.tiers, Collector(session.project, qv.k), system) if system else []
    session.recommended = (system or "", recs)
    return recs


def shown_recommendations(session: Session) -> list[Recommendation] | None:
    """The kept recommendations while they are the verdict system's; None: load_recommendations again."""
    if session.recommended is None or session.recommended[0] != (verdict_system(session) or ""):
        return None
    return session.recommended[1]


def first_runnable_fix(session: Session) -> RunnableFix | None:
    return first_runnable(shown_recommendations(session) or [])


def fix_pairs(session: Session, fix: RunnableFix) -> int:
    """(query, document) pairs a rerank fix scores at most: queries of its tiers × its depth."""
    depth = int(fix.system.rpartition("@")[2] or 0) if fix.kind == "rerank" else 0
    return depth * sum(len(session.project.tier_query_ids(t)) for t in session.tiers if t.name in fix.tiers)


def run_fix(session: Session, fix: RunnableFix, progress: Progress = no_progress) -> list[Recommendation]:
    """Try a runnable fix on the tiers it is judged on (the score cache resumes an interrupted one),
    then the recommendations again, with its measured effect."""
    from workbench.rerank.run import rerank

    if not fix.runnable:
        raise WorkbenchError(f"{fix.system} does not run from here: {fix.note or fix.command}")
    k = session.diagnosis.qv.k if session.diagnosis else None
    tiers = [t for t in session.tiers if t.name in fix.tiers]
    # the stage reports once per query; a chat model's first query takes a while, so say it started
    progress(f"{fix.system} {', '.join(fix.tiers)}", 0, sum(len(session.project.tier_query_ids(t)) for t in tiers))
    rerank(session.project, tiers, [fix.system], k, progress)
    return load_recommendations(session)


def export_report(session: Session, directory: Path, query_id: str | None = None,
                  formats: tuple[str, ...] = ("md", "html", "json")) -> list[Path]:
    """The diagnosis report of the whole project (diagnosis.*) or of one query (report-<query>.*)."""
    from workbench.fsutil import safe_name
    from workbench.report import export_reports

    if query_id is None:
        return export_reports(session.project, session.tiers, directory, formats=formats)
    return export_reports(session.project, session.tiers_for(query_id), directory, {query_id},
                          stem=f"report-{safe_name(query_id)}", formats=formats)


# ---------------------------------------------------------------- production traces


def query_sources(project: Project) -> dict[str, set[str]]:
    """query id → `run:NAME` (each imported run or trace import that ranked it) and `from:traces`:
    the query list's filter words (workbench/triage/traces/store.py)."""
    from workbench.triage.traces.store import cached_query_sources

    return cached_query_sources(project)


def insight_overview(session: Session) -> list[str]:
    """The overview's lines of the sharper diagnosis (workbench/insight/), from stored results: the
    effective corpus size per system (FR@K, else SR@K; and answers), and, when long-context runs
    exist, recall and correctness by the gold's depth. Reads every tier's runs: call it from a worker."""
    from workbench.insight.overview import overview_lines

    return overview_lines(session.project, session.tiers)
