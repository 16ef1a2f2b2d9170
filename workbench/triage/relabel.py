"""The triage loop's labelling changes (a mark, an undo, an edited answer, a query added from a
log), written as a query-set version (LabelChange): those of one inspector visit into the one
version the visit holds open (workbench.project.visit), and the figures and verdicts under
that version, recomputed from the stored rankings in the caller's worker thread (Relabelled). Labels change no ranking; when queries.jsonl itself changed, tiers and rankings
are brought up to date first (indexes depend on documents only, unchanged queries keep theirs)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from workbench.access.evaluate import SystemResult, evaluate
from workbench.access.indexing import build_indexes
from workbench.access.ladder import ensure_tiers
from workbench.access.retrievers import make_retrievers
from workbench.diagnosis.live import LiveDiagnosis
from workbench.errors import BadInput
from workbench.progress import Progress, no_progress
from workbench.project.files import Project
from workbench.project.load import load_project
from workbench.records import TierSet


class LabelChange(NamedTuple):
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

    new = visits.edit_answer(visit, root, query_id, answer, by)
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
    from workbench.triage.queries import add_query

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
    if change.rebuilt or tierset is None:
        original = load_project(root)
        tierset = ensure_tiers(original)
        build_indexes(original, list(tierset.tiers), progress=progress)
    project = load_project(root, change.version)
    tiers = list(tierset.tiers)
    results = evaluate(project, tiers, make_retrievers(project, None), k=10, progress=progress)
    # Verdicts follow the labels: recomputed here, in the worker, never on the front end's thread.
    diagnosis = LiveDiagnosis(project, tiers) if with_diagnosis else None
    return Relabelled(change.version, project, tierset, results, change.note, query_id, undo=change.undo, undone=change.undone,
                      diagnosis=diagnosis)
