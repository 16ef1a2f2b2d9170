"""Production triage from the inspector: labels in one visit, reference answers, queries from a log."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from workbench.names import system_label
from workbench.progress import Progress, no_progress
from workbench.project.visit import LabelVisit
from workbench.triage import relabel
from workbench.triage.queries import who
from workbench.triage.relabel import Relabelled
from workbench.session.state import Session

if TYPE_CHECKING:
    pass

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


def label_document(session: Session, query_id: str, doc_id: int, mark: str, progress: Progress = no_progress,
                   judged: bool = False) -> Relabelled | None:
    """Mark a document gold / hard_negative / not_relevant for a query, in the visit's one version
    (made by its first change, amended by the others; None: it already was that). ``judged`` (the
    unjudged stepper): not relevant is recorded even where it changes no list, as a judgement."""
    return _in_visit(session, lambda v: relabel.mark_in_visit(session.root, v, query_id, doc_id, mark, who(), judged=judged),
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


