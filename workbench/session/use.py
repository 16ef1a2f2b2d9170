"""The use side a screen drives: prompt estimates, model runs (one query, a batch), judge calibration, evidence export."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

from workbench.access.retrievers import preferred
from workbench.access.runs import RunStore
from workbench.inspection.evidence import ModelEvidence, evidence_dict, write_evidence
from workbench.inspection.model_evidence import evidence_from_run, scratch_store, stored_evidence
from workbench.llm.tasks import PromptEstimate
from workbench.names import TASKS
from workbench.progress import Cancelled, Progress, no_progress, run_polled
from workbench.records import ModelConfig, Query, Tier
from workbench.session.state import Session, inspect
from workbench.session.diagnosis import export_report

if TYPE_CHECKING:
    from workbench.llm.records import TierRun

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
    from workbench.triage.answers import LEFT_OUT_BASIS, TASK, answers_left_out
    from workbench.triage.traces.store import with_trace

    results = stored_evidence(session.project, tier, query_id)
    if tier.kind == "full":  # production's answers to a query without a reference answer: in no use run
        for system, a in answers_left_out(session.project, query_id):
            results.setdefault(system, ModelEvidence(system=system, tier=tier.name, task=TASK, answer=a.answer,
                                                     doc_ids=list(a.context_doc_ids), decision="undecided", basis=LEFT_OUT_BASIS))
    return with_trace(session.project, query_id, results)


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
    on_note: Callable[[str], None] | None = None,
) -> ModelEvidence | None:
    """Run one task for one query on one tier (blocking; call from a thread worker).

    ``on_update`` sees every saved state (answers before judging); ``progress`` is polled while
    the model works, and raising Cancelled from it cancels the run (finished parts stay saved).
    ``on_note`` hears what the run found stale (a stored answer whose prompt an edit changed:
    `llm.counting.invalidation_note`, the line `workbench run` prints). The session is not touched:
    the caller keeps the answer (Session.merge_results) and reads the new verdicts (diagnosis_with)
    where its state has one owner (the TUI's UI thread)."""
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
    from workbench.llm.counting import invalidation_note

    note = invalidation_note(run)
    if note and on_note is not None:
        on_note(note)
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
    stops it (what finished stays stored). ``on_each`` hears each query's answer (what the session
    keeps: run_model_task touches no session state). Returns (ran, kept, skipped: cannot run)."""
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


