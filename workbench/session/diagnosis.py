"""The live diagnosis a screen shows: the verdict system, recommendations and the fix they try, the report, the sharper views."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from workbench.diagnosis.verdicts import VerdictReader
from workbench.diagnosis.fix_commands import RunnableFix
from workbench.diagnosis.recommend import Recommendation, first_runnable, primary_recommendations
from workbench.diagnosis.live import LiveDiagnosis
from workbench.errors import WorkbenchError
from workbench.progress import Progress, no_progress
from workbench.project.files import Project
from workbench.session.state import Session

if TYPE_CHECKING:
    pass

# ---------------------------------------------------------------- diagnosis


def verdict_systems(session: Session) -> list[str]:
    """The systems the diagnosis has verdicts of (y cycles through them)."""
    return [spec.name for spec in session.diagnosis.qv.systems] if session.diagnosis else []


def verdict_system(session: Session) -> str | None:
    """The one system whose verdicts and figures every view shows: the user's choice (y) while the
    diagnosis has it, else the diagnosis' default (workbench/diagnosis decides it)."""
    d = session.diagnosis
    return None if d is None else _system_shown(d, session.chosen_verdict_system)


def _system_shown(diagnosis: LiveDiagnosis, chosen: str | None) -> str | None:
    return chosen if chosen in [spec.name for spec in diagnosis.qv.systems] else diagnosis.primary


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
    """Verdicts of every query from every stored result (blocking), kept on the session for the
    query list and the inspector: read_diagnosis, then install_diagnosis."""
    d = read_diagnosis(session)
    install_diagnosis(session, d)
    return d


def read_diagnosis(session: Session) -> LiveDiagnosis:
    """Verdicts of every query read afresh (blocking: a worker's call), not kept: a TUI worker posts
    it and the UI thread installs it, so no screen sees a diagnosis half re-read."""
    d = session.diagnosis
    return LiveDiagnosis(session.project, session.tiers) if d is None else d.reread()


def install_diagnosis(session: Session, diagnosis: LiveDiagnosis) -> bool:
    """Keep ``diagnosis`` on the session, unless it was read for a project a label change replaced
    since (that change installed its own), or derived (diagnosis_with) from a diagnosis another one
    replaced since (installing it would drop that one's news: derive it again); False then."""
    if diagnosis.project is not session.project:
        return False
    if diagnosis.base is not None and diagnosis.base is not session.diagnosis:
        return False
    diagnosis.base = None  # installed: the one it came from may go
    session.diagnosis = diagnosis
    return True


def diagnosis_with(session: Session, query_id: str) -> LiveDiagnosis | None:
    """A model result for this query was stored: the session's diagnosis with the query's verdicts
    read afresh (blocking: a worker's call), not installed (install_diagnosis); None while there is
    no diagnosis (the evaluation that makes one reads the result)."""
    d = session.diagnosis
    return None if d is None else d.with_query(query_id)


def load_recommendations(session: Session) -> list[Recommendation]:
    """The verdict system's recommendations, each access fix with its command, judge and measured
    effect, read afresh from the stored runs (blocking: a worker's call) and kept on the session."""
    if session.diagnosis is None:
        return []
    system, recs = read_recommendations(session)
    keep_recommendations(session, system, recs)
    return recs


def read_recommendations(session: Session, diagnosis: LiveDiagnosis | None = None) -> tuple[str, list[Recommendation]]:
    """The verdict system and its recommendations read afresh (blocking: a worker's call), not kept:
    a TUI worker posts them in its view record and the UI thread keeps them (keep_recommendations).
    ``diagnosis``: one read but not installed yet (read_diagnosis), else the session's."""
    diagnosis = diagnosis or session.diagnosis
    if diagnosis is None:
        return "", []
    system = _system_shown(diagnosis, session.chosen_verdict_system)
    qv = diagnosis.qv
    recs = primary_recommendations(session.project, qv, session.tiers, VerdictReader(session.project, qv.k), system) if system else []
    return system or "", recs


def keep_recommendations(session: Session, system: str, recs: list[Recommendation]) -> None:
    session.recommended = (system, recs)


def shown_recommendations(session: Session) -> list[Recommendation] | None:
    """The kept recommendations while they are the verdict system's; None: load_recommendations again."""
    if session.recommended is None or session.recommended[0] != (verdict_system(session) or ""):
        return None
    return session.recommended[1]


def first_runnable_fix(session: Session) -> RunnableFix | None:
    return first_runnable(shown_recommendations(session) or [])


def fix_pairs(session: Session, fix: RunnableFix) -> int:
    """(query, document) pairs a rerank fix scores at most: queries of its tiers × its depth."""
    return fix.pairs if fix.kind == "rerank" else 0


def fix_cost(session: Session, fix: RunnableFix) -> str:
    """What running the fix costs and how it stops and resumes, in a few words for the key's line."""
    if fix.kind == "tune":
        return ("fine-tunes the embedder on the training split, then embeds the tier with it; "
                "x cancels, t resumes: a finished training and embedded chunks are kept")
    return f"at most {fix_pairs(session, fix)} scored pairs, cached; x cancels, t resumes"


def run_fix(session: Session, fix: RunnableFix, progress: Progress = no_progress) -> list[Recommendation]:
    """Try a runnable fix on the tiers it is judged on (a rerank's score cache, a finished training
    and the tuned embedder's chunk vectors resume an interrupted one), then the recommendations
    read again, with its measured effect (blocking: a worker's call; not kept on the session: the
    front end that shows them keeps them, keep_recommendations)."""
    if not fix.runnable:
        raise WorkbenchError(f"{fix.system} does not run from here: {fix.note or fix.skipped or fix.command}")
    k = session.diagnosis.qv.k if session.diagnosis else None
    tiers = [t for t in session.tiers if t.name in fix.tiers]
    from workbench.session.fixes import rerank, tune  # the operations `workbench tune` / `rerank` run

    if fix.kind == "tune":
        progress(f"{fix.system} {', '.join(fix.tiers)}", 0, 1)
        tune(session.project, tiers, progress=progress)
        return read_recommendations(session)[1]

    # the stage reports once per query; a chat model's first query takes a while, so say it started
    progress(f"{fix.system} {', '.join(fix.tiers)}", 0, sum(len(session.project.tier_query_ids(t)) for t in tiers))
    rerank(session.project, tiers, [fix.system], k, progress)
    return read_recommendations(session)[1]


def export_report(session: Session, directory: Path, query_id: str | None = None,
                  formats: tuple[str, ...] = ("md", "html", "json")) -> list[Path]:
    """The diagnosis report of the whole project or of one query, named as `workbench report` names
    it (session/reports.py: a labelled version's report gets the version in its name)."""
    from workbench.report import export_reports
    from workbench.session.reports import report_stem

    if query_id is None:
        return export_reports(session.project, session.tiers, directory, stem=report_stem(session.project), formats=formats)
    return export_reports(session.project, session.tiers_for(query_id), directory, {query_id},
                          stem=report_stem(session.project, {query_id}), formats=formats)


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
