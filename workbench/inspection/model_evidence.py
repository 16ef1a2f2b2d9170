"""What a model did for one query, in the provider-neutral shape the inspector and the evidence
export show (ModelEvidence): read from a stored or streaming TierRun, from every store that may
hold one (full-tier runs, the TUI's one-query runs, the loaded version's own)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import msgspec

from workbench.llm.answers import check_stored, judge_reason
from workbench.inspection.evidence import ModelEvidence
from workbench.names import TASKS
from workbench.project.files import Project
from workbench.records import Tier

if TYPE_CHECKING:
    from workbench.llm.records import TierRun
    from workbench.llm.store import LLMRunStore


def prompt_text(messages) -> str:
    """Stored chat messages as one text: each under its role, in the order sent."""
    return "\n\n".join(f"[{m.role}]\n{m.content}" for m in messages)


def evidence_from_run(run: "TierRun", query_id: str, project: Project | None = None) -> ModelEvidence | None:
    """The part of a stored/streamed TierRun that concerns one query, provider-neutral. With the
    project, a judged answer also carries its deterministic matches and the diagnosis' decision."""
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
                                       prompt=prompt_text(r.prompt), prompt_cut=r.prompt_cut, note=f"{r.out_of_tier} DocID(s) not in the tier" if r.out_of_tier else "")
    q = next((x for x in run.qa if x.query_id == query_id), None)
    if q is None:
        return None
    note = "" if q.judged else "judging…"
    if q.dropped_doc_ids:
        note = (note + " " if note else "") + f"{len(q.dropped_doc_ids)} padding document(s) cut to fit"
    ev = msgspec.structs.replace(
        base, answer=q.answer, judge_score=q.judge_median, judge_scores=list(q.judge_scores),
        judge_reason=judge_reason(q.judge_raw)[:300],
        doc_ids=list(q.context_doc_ids) if TASKS[run.task].context == "retrieved" else [], cached=q.cached, note=note,
        prompt=prompt_text(q.prompt), prompt_cut=q.prompt_cut)
    check = check_stored(project, run, query_id) if project is not None else None
    if check is None:
        return ev
    return msgspec.structs.replace(ev, judge_trusted=check.judge_trusted, exact=check.exact, contains=check.contains,
                                   f1=check.f1, correct=check.correct if check.decided else None, basis=check.basis,
                                   decision=check.decision, named=list(check.named))


def scratch_store(project: Project, query_id: str, on_save: Callable[["TierRun"], None] | None = None,
                  task: str | None = None) -> "LLMRunStore":
    """The store of one-query runs from the TUI, under .workbench/tui/<query>/ (under the version's
    folder when a query-set version is loaded): apart from the full-tier runs, and never published
    as the tier's localization run on the access side."""
    from workbench.llm.store import LLMRunStore, tui_root

    return LLMRunStore(project, root=tui_root(project, query_id, task), publish=False, on_save=on_save)


def stored_evidence(project: Project, tier: Tier, query_id: str) -> dict[str, ModelEvidence]:
    """Stored model results for this query on this tier, by system: per system the answer the
    verdicts use (workbench.llm.sources: the one precedence order, the first source with one wins)."""
    from workbench.llm.counting import Labels
    from workbench.llm.sources import model_sources

    labels = Labels(project)  # the verdicts' rule: a label-dependent answer counts only where its labels hold
    out: dict[str, ModelEvidence] = {}
    for src in model_sources(project, tier, query_id):
        if src.run.system in out or not labels.count(src, query_id):
            continue
        ev = evidence_from_run(src.run, query_id, project)
        if ev is not None:
            out[src.run.system] = ev
    return out
