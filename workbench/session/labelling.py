"""Labelling, one package: the triage loop's changes from the inspector (a mark, an undo, an
edited answer, a query added from a log), written as a query-set version (LabelChange: the
writing itself is workbench.project.labels / workbench.project.visit), then the figures and
verdicts under that version recomputed from the stored rankings in the caller's worker thread
(Relabelled). Labels change no ranking; when queries.jsonl itself changed, tiers and rankings are
brought up to date first (indexes depend on documents only, unchanged queries keep theirs)."""

from __future__ import annotations

import msgspec

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from workbench.access.evaluate import SystemResult
from workbench.diagnosis.live import LiveDiagnosis
from workbench.errors import BadInput
from workbench.names import system_label
from workbench.progress import Progress, no_progress
from workbench.project.files import Project
from workbench.project.visit import LabelVisit
from workbench.records import Tier, TierSet
from workbench.session.state import Session
from workbench.project.settings import access_k
from workbench.triage.queries import edit_original_answer, who

# ---------------------------------------------------------------- the change written, its figures recomputed


class LabelChange(msgspec.Struct, frozen=True):
    """One labelling change, written: the version to work on from now on and what to say about it."""

    version: str
    note: str  # what was saved: version, change, who and when
    rebuilt: bool = False  # queries.jsonl itself changed: tiers and rankings are brought up to date
    undo: tuple[str, str] | None = None  # (version before, version made): pushed on the undo stack
    undone: bool = False  # consumed the newest undo entry


def _note(info) -> str:
    return f"{info.name}: {info.description} — {info.made_by}, {info.created}"


def _visit_note(root: Path, visit, what: str) -> str:
    from workbench.project.versions import version_info

    if visit.name is None:
        return f"{what}: back to {visit.parent} (the visit's version is removed: nothing left in it)"
    info = version_info(root, visit.name)
    n = len(visit.steps) + len(visit.kept)
    return f"{what} — {visit.name} (open: {n} change{'s' * (n != 1)} this visit), {info.made_by}, {info.created}"


def mark_in_visit(root: Path, visit, query_id: str, doc_id: int, mark: str, by: str, judged: bool = False) -> LabelChange | None:
    """A mark written into the visit's version (None: the document already had it; ``judged``:
    see workbench/project/visit.py's mark)."""
    from workbench.project import visit as visits
    from workbench.project.labels import MARKS

    if mark not in MARKS:
        raise BadInput(f"unknown mark {mark!r}; known: {list(MARKS)}")
    name = visits.mark(visit, root, query_id, doc_id, mark, by, judged=judged)
    return None if name is None else LabelChange(name, _visit_note(root, visit, f"{query_id}: document {doc_id} marked {mark}"))


def undo_in_visit(root: Path, visit, by: str) -> LabelChange | None:
    """The visit's newest mark taken back (None: nothing to undo in this visit)."""
    from workbench.project import visit as visits

    step = visit.steps[-1] if visit.steps else None
    name = visits.undo(visit, root, by)
    if name is None or step is None:
        return None
    return LabelChange(name, _visit_note(root, visit, f"undone: {step.query_id}: document {step.doc_id} {step.before} again"))


def answer_in_visit(root: Path, visit, query_id: str, answer: str, by: str) -> LabelChange:
    from workbench.project import visit as visits

    new = visits.edit_answer(visit, root, query_id, answer, by, edit_original_answer)
    return LabelChange(new, f"{query_id}: reference answer saved (queries.jsonl; version {new})", rebuilt=True)


def undo_change(project: Project, target: str, undone: str, by: str) -> LabelChange:
    """Undo a labelling change: one more version, equal to the one before it."""
    from workbench.project.labels import undo

    info = undo(project, target, undone, by)
    return LabelChange(info.name, _note(info), undone=True)


def add_logged_query(root: Path, version: str, text: str, answer: str, gold: list[str], by: str,
                     domain: str | None = None) -> tuple[str, LabelChange]:
    """A failing query pasted from a log, added (and carried into the version worked on): its id and
    the change. ``domain`` None: the gold documents' domain."""
    from workbench.project.labels import carry_query

    from workbench.session.queries import add_query  # the one add `add-query` runs too

    q = add_query(root, text, answer, gold, domain=domain)
    new = carry_query(root, version, q.query_id, by)
    state = "unlabelled" if not q.is_labelled else f"{len(q.gold_doc_ids)} gold"
    return q.query_id, LabelChange(new, f"added {q.query_id} ({state})", rebuilt=True)


@dataclass
class Relabelled:
    """A labelling change computed in a worker (written, figures recomputed); the front end installs
    it on its own thread."""

    version: str  # the query-set version worked on from now on
    project: Project
    tierset: TierSet
    results: list[SystemResult]
    note: str  # what was saved: version, change, who and when
    query_id: str
    undo: tuple[str, str] | None = None  # pushed on the undo stack
    undone: bool = False  # consumed the newest undo entry
    diagnosis: LiveDiagnosis | None = None  # verdicts under the new labels (when the caller had them)


def recompute(root: Path, tierset: TierSet | None, change: LabelChange, query_id: str, *, with_diagnosis: bool,
              progress: Progress = no_progress) -> Relabelled:
    """Figures (and, with_diagnosis, verdicts) of the change's version on the original's tiers; when
    queries.jsonl changed (rebuilt) or there are no tiers yet, tiers and indexes are made current first."""
    from workbench.session.queries import rank_queries  # the one ranking step add-query runs too

    project, tierset, results = rank_queries(root, change.version, None if change.rebuilt else tierset, progress)
    tiers = list(tierset.tiers)
    # Verdicts follow the labels: recomputed here, in the worker, never on the front end's thread.
    diagnosis = LiveDiagnosis(project, tiers) if with_diagnosis else None
    return Relabelled(change.version, project, tierset, results, change.note, query_id, undo=change.undo, undone=change.undone,
                      diagnosis=diagnosis)


# ---------------------------------------------------------------- production triage: labels, queries from a log


def _relabelled(session: Session, change: LabelChange, query_id: str, progress: Progress) -> Relabelled:
    before = session.project
    r = recompute(session.root, session.tierset, change, query_id, with_diagnosis=session.diagnosis is not None,
                  progress=progress)
    left = answers_left_behind(before, r.project, list(r.tierset.tiers), query_id)
    return r if not left else replace(r, note=f"{r.note}\n{left}")


def answers_left_behind(before: Project, after: Project, tiers: list[Tier], query_id: str) -> str:
    """What a label really invalidated, said (never silent): the query's stored answers that read
    its labels (oracle, rag, near-miss: the gold or hard negatives in the prompt) and counted
    before the change but not after it. "" when none."""
    from workbench.inspection.model_evidence import stored_evidence
    from workbench.llm.store import LABEL_DEPENDENT_TASKS

    lost: dict[str, int] = {}
    for t in tiers:
        if query_id not in t.query_ids:
            continue
        had = {s for s, ev in stored_evidence(before, t, query_id).items() if ev.task in LABEL_DEPENDENT_TASKS}
        for system in had - set(stored_evidence(after, t, query_id)) if had else ():
            lost[system] = lost.get(system, 0) + 1
    if not lost:
        return ""
    shown = ", ".join(f"{system_label(s)} on {n} tier{'s' if n != 1 else ''}" for s, n in sorted(lost.items()))
    return f"{query_id}: the answer of {shown} read the labels before this change and no longer counts: run it again (o: the oracle)"


def _in_visit(session: Session, write: Callable[[LabelVisit], LabelChange | None], query_id: str,
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


def label_document(session: Session, query_id: str, doc_id: int, mark: str, progress: Progress = no_progress,
                   judged: bool = False) -> Relabelled | None:
    """Mark a document gold / hard_negative / not_relevant for a query, in the visit's one version
    (made by its first change, amended by the others; None: it already was that). ``judged`` (the
    unjudged stepper): not relevant is recorded even where it changes no list, as a judgement."""
    return _in_visit(session, lambda v: mark_in_visit(session.root, v, query_id, doc_id, mark, who(), judged=judged),
                     query_id, progress)


def undo_label(session: Session, query_id: str, progress: Progress = no_progress) -> Relabelled | None:
    """Undo the visit's newest mark (out of its open version); with none, the newest closed visit's
    version: one more version, equal to the one before it. None: nothing to undo."""
    with session._visit_lock:
        in_visit = session.visit is not None and bool(session.visit.steps)
    if in_visit:
        return _in_visit(session, lambda v: undo_in_visit(session.root, v, who()), query_id, progress)
    if not session.label_history:
        return None
    target, undone = session.label_history[-1]
    return _relabelled(session, undo_change(session.project, target, undone, who()), query_id, progress)


def edit_reference_answer(session: Session, query_id: str, answer: str, progress: Progress = no_progress) -> Relabelled:
    change = _in_visit(session, lambda v: answer_in_visit(session.root, v, query_id, answer, who()),
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
    query_id, change = add_logged_query(session.root, session.project.queries_version, text, answer, gold or [],
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
    exists): the gold found in the project's top K, per system; unlabelled queries say so."""
    q = session.project.query(query_id)
    if not q.is_labelled:
        return f"unlabelled: no access figures until a document is marked gold (queries {version_shown(session)})"
    k = access_k(session.project)
    parts = []
    for system in session.systems:
        a = session.access(system, tier, query_id)
        if a is None:
            continue
        found = sum(r is not None and r <= k for r in a.gold_ranks.values())
        parts.append(f"{system_label(system)} {found}/{a.n_gold}")
    return (f"gold in top {k} at {tier}: " + ", ".join(parts) if parts else f"no stored ranking at {tier} yet") + \
        f"  (queries {version_shown(session)})"




# ---------------------------------------------------------------- the labels exported


class LabelsExported(msgspec.Struct, frozen=True):
    """`export-labels`: the files written and the query-set version they hold."""

    paths: list[str]
    version: str


def export_labels(root: Path, out: Path, version: str | None = None) -> LabelsExported:
    """A query set's labels (default: the newest version) as BEIR qrels (out/qrels/test.tsv) and
    as the project's queries JSONL (out/queries.jsonl)."""
    from workbench.project.labels import export_labels as write

    written, name = write(root, out, version)
    return LabelsExported([str(p) for p in written], name)
