"""The TUI's facade: every operation a screen performs on a project, and the record types the
screens show. screens/ may import nothing else of the core (an import-linter contract in
pyproject.toml says so); the CLI calls the core packages directly, except `workbench demo`
without a terminal, which runs the same open → build → evaluate as the TUI.

Everything is headless and blocking: the TUI calls it from thread workers. Long work reports
through the one progress + cancel protocol (workbench/progress.py); user-causable failures are
WorkbenchError (workbench/errors.py). The logic lives in the packages; what is here is the
session's state (what the front end derived so far) and operations over it, one module per part:
state (open, build, evaluate, inspect), use (model runs, batches, calibration, evidence export),
labelling (the inspector visit's labels, queries from a log), diagnosis (verdict system,
recommendations and their fixes, the report, the sharper views), unjudged (the documents nobody
judged, for labelling). Screens import this package only.
"""

from __future__ import annotations

from workbench.access.evaluate import SystemResult
from workbench.access.indexing import index_status
from workbench.access.retrievers import preferred
from workbench.diagnosis.collect import QueryVerdict
from workbench.diagnosis.fix_commands import RunnableFix
from workbench.diagnosis.live import FILTER_WORDS, UNJUDGED_WORD, LiveDiagnosis
from workbench.diagnosis.recommend import Recommendation
from workbench.diagnosis.rules import VERDICTS
from workbench.errors import WorkbenchError, os_error
from workbench.insight.unjudged import StepperDoc
from workbench.inspection.evidence import ModelEvidence
from workbench.inspection.rankings import QueryInspection, SystemRanking
from workbench.inspection.worddiff import Span, salient_changes, word_diff
from workbench.llm.figures import UseRow, UseTable
from workbench.llm.tasks import PromptEstimate
from workbench.names import TASKS, system_label
from workbench.progress import Cancelled, Progress
from workbench.project.labels import MARKS
from workbench.project.versions import VersionInfo, list_versions
from workbench.records import Document, Query
from workbench.session.diagnosis import choose_verdict_system, diagnose, diagnosis_after_run, export_report, figures_system, first_runnable_fix, fix_cost, fix_pairs, insight_overview, load_recommendations, query_sources, run_fix, shown_recommendations, verdict_system, verdict_systems
from workbench.session.labelling import Relabelled, access_line, add_query_from_log, apply_relabelled, close_visit, edit_reference_answer, label_document, undo_label, version_shown
from workbench.session.state import Session, build, evaluate_all, inspect, open_session, ranks_before, use_table
from workbench.session.unjudged import has_answer_bearing_unjudged, unjudged_documents
from workbench.session.use import calibrate_judge, estimate_prompts, export_evidence, known_results, run_batch, run_model_task, sweep_panels, why_not_run, window_budget

__all__ = [
    # operations
    "open_session", "build", "evaluate_all", "use_table", "inspect", "known_results",
    "estimate_prompts", "why_not_run", "run_model_task", "run_batch", "calibrate_judge", "export_evidence", "window_budget", "sweep_panels",
    "label_document", "undo_label", "close_visit", "version_shown", "edit_reference_answer", "add_query_from_log", "apply_relabelled",
    "access_line", "index_status", "list_versions", "diagnose", "verdict_systems", "verdict_system",
    "choose_verdict_system", "figures_system", "diagnosis_after_run", "export_report", "query_sources", "insight_overview", "ranks_before",
    "load_recommendations", "shown_recommendations", "first_runnable_fix", "fix_cost", "fix_pairs", "run_fix",
    "unjudged_documents", "has_answer_bearing_unjudged",
    # names and registries
    "TASKS", "MARKS", "VERDICTS", "FILTER_WORDS", "UNJUDGED_WORD", "system_label", "preferred", "salient_changes", "word_diff",
    # records a front end shows
    "Session", "PromptEstimate", "SystemResult", "UseRow", "UseTable", "ModelEvidence", "QueryInspection",
    "SystemRanking", "Span", "Query", "Document", "VersionInfo", "LiveDiagnosis", "QueryVerdict", "Relabelled",
    "Recommendation", "RunnableFix", "StepperDoc",
    # errors and progress
    "WorkbenchError", "os_error", "Cancelled", "Progress",
]

