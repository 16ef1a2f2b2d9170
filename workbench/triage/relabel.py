"""After a labelling change (a mark, an undo, an edited answer, an added query): the figures and
verdicts under the new query-set version, recomputed from the stored rankings in the caller's
worker thread. Labels change no ranking; when queries.jsonl itself changed, tiers and rankings
are brought up to date first (indexes depend on documents only, unchanged queries keep theirs)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from workbench.access.evaluate import SystemResult, evaluate
from workbench.access.indexing import build_indexes
from workbench.access.ladder import ensure_tiers
from workbench.access.retrievers import make_retrievers
from workbench.diagnosis.live import LiveDiagnosis
from workbench.progress import Progress, no_progress
from workbench.project.files import Project
from workbench.project.load import load_project
from workbench.records import TierSet


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


def recompute(root: Path, tierset: TierSet | None, version: str, note: str, query_id: str, *, with_diagnosis: bool,
              rebuilt: bool = False, progress: Progress = no_progress, undo: tuple[str, str] | None = None,
              undone: bool = False) -> Relabelled:
    """Figures (and, with_diagnosis, verdicts) of ``version`` on the original's tiers; with
    ``rebuilt`` (queries.jsonl changed) or no tiers yet, tiers and indexes are made current first."""
    if rebuilt or tierset is None:
        original = load_project(root)
        tierset = ensure_tiers(original)
        build_indexes(original, list(tierset.tiers), progress=progress)
    project = load_project(root, version)
    tiers = list(tierset.tiers)
    results = evaluate(project, tiers, make_retrievers(project, None), k=10, progress=progress)
    # Verdicts follow the labels: recomputed here, in the worker, never on the front end's thread.
    diagnosis = LiveDiagnosis(project, tiers) if with_diagnosis else None
    return Relabelled(version, project, tierset, results, note, query_id, undo=undo, undone=undone, diagnosis=diagnosis)
