"""The TUI's facade: every operation a screen performs on a project, and the record types the
screens show. screens/ may import nothing else of the core (an import-linter contract in
pyproject.toml says so), and the CLI's commands call the same operations (the read commands'
selection and rankings, the report's file name, the imported runs' figures) rather than wiring
the packages themselves.

Everything is headless and blocking: the TUI calls it from thread workers. Long work reports
through the one progress + cancel protocol (workbench/progress.py); user-causable failures are
WorkbenchError (workbench/errors.py). The logic lives in the packages; what is here is the
session's state (what the front end derived so far) and operations over it, one module per part:
state (open, build, evaluate, inspect), use (model runs, batches, calibration, evidence export),
labelling (the inspector visit's labels, queries from a log), diagnosis (verdict system,
recommendations and their fixes, the report, the sharper views), unjudged (the documents nobody
judged, for labelling), warm (what is loaded ahead so a key's first use does not stop the UI).
Screens import this package only.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.session.reading import compared, diagnosis_report, stolen, unjudged_rows, verdicts
    from workbench.session.diagnosing import shown_system
    from workbench.session.explain import explain_on, explained
    from workbench.inspection.explain import Explanation
    from workbench.inspection.rankings import lost_gold
    from workbench.access.evaluate import SystemResult
    from workbench.access.indexing import index_status
    from workbench.access.retrievers import preferred
    from workbench.diagnosis.verdicts import QueryVerdict
    from workbench.diagnosis.fix_commands import RunnableFix
    from workbench.diagnosis.live import FILTER_WORDS, UNJUDGED_WORD, LiveDiagnosis
    from workbench.diagnosis.recommend import Recommendation
    from workbench.diagnosis.rules import VERDICTS
    from workbench.diagnosis.funnel import STAGE_LABELS, STAGES, Funnel
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
    from workbench.project.versions import VersionInfo, last_changed, list_versions
    from workbench.diagnosis.filters import FLAGS
    from workbench.records import Document, Query, TierSet
    from workbench.session.diagnosis import keep_recommendations, read_recommendations
    from workbench.diagnosis.recommend import first_runnable
    from workbench.session.diagnosis import choose_verdict_system, diagnose, diagnosis_with, install_diagnosis, read_diagnosis, export_report, figures_system, first_runnable_fix, fix_cost, fix_pairs, insight_overview, load_recommendations, query_sources, run_fix, shown_recommendations, verdict_system, verdict_systems
    from workbench.session.labelling import Relabelled, access_line, add_query_from_log, apply_relabelled, close_visit, edit_reference_answer, label_document, undo_label, version_shown
    from workbench.session.state import Session, build, build_indexes_of, ladder_of, evaluate_all, inspect, open_session, ranks_before, use_table
    from workbench.session.unjudged import has_answer_bearing_unjudged, unjudged_documents
    from workbench.session.query_list import LIST_SORTS, ListSort, QueryListView, QueryRow, read_query_list
    from workbench.session.overview import ModelLine, OverviewView, TierLine, overview_view
    from workbench.session.use import calibrate_judge, estimate_prompts, export_evidence, known_results, run_batch, run_model_task, sweep_panels, why_not_run, window_budget
    from workbench.diagnosis.filters import Filter, FilterFacts, filter_problems, parse_filter, query_matches
    from workbench.project.settings import MIN_DECIDED, reading_given
    from workbench.session.rankings import ensure_rankings, missing_rankings, NotIndexed
    from workbench.session.selection import select, Selection
    from workbench.session.reports import report_stem, report_path
    from workbench.session.imports import import_run, imported_figures, ImportedFigures
    from workbench.session.evaluation import evaluate_systems, plan_eval, run_eval, EvalPlan, Evaluation
    from workbench.session.queries import add_query, rank_added, RankedQuery
    from workbench.session.runs import plan_run, run_models, RunPlan, ModelRuns
    from workbench.session.fixes import tune, rerank, Tuned, Reranked
    from workbench.session.collide import collide, Collided
    from workbench.session.follow import production_feedback, production_stamp, production_arrivals, reload_production, install_reload, Reloaded
    from workbench.session.follow import project_stamp, changes_said
    from workbench.session.warm import warm_up
    from workbench.session.production import production_since, since_ns, ProductionWindow
    from workbench.session.production import import_answers, import_traces, judge_answers, AnswersImport, TracesImport
    from workbench.session.collect import start_collect, collected_feedback, LiveCollect
    from workbench.session.gold import doc_id_resolver, resolve_doc_ids, DocIdResolver
    from workbench.session.diagnosing import diagnosis_view
    from workbench.session.diagnosing import DiagnosisView
    from workbench.session.reading import stealers_view
    from workbench.session.reading import unjudged_view
    from workbench.session.reading import positions_view
    from workbench.session.reading import StealersView
    from workbench.session.reading import UnjudgedView
    from workbench.session.reading import PositionsView
    from workbench.session.evaluation import eval_report
    from workbench.session.evaluation import EvalReport
    from workbench.session.fixes import fix_selection
    from workbench.session.runs import run_summary
    from workbench.session.runs import RunSummary
    from workbench.session.runs import serve_model
    from workbench.session.explain import named_doc_ids
    from workbench.session.exports import trec_export
    from workbench.session.exports import TrecExport
    from workbench.names import split_level
    from workbench.inspection.movement import movement_line
    from workbench.access.retrievers import retriever_names
    from workbench.tune.train import TuneOptions
    from workbench.insight.effective_size import EffectiveSize
    from workbench.inspection.explain import DocExplain
    from workbench.session.sweeps import plan_sweep, run_sweep, list_sweeps, show_sweeps, SweepRequest, SweepPlan, PlanRow, SweepRun, SweepOpened, SweepList, StoredSweep, SweepError
    from workbench.session.collide import collide_score, export_eval_set, CollideScore, EvalSetWritten
    from workbench.session.projects import init_project, import_into_project, build_ladder, tier_table, index_tiers, index_project, query_sets, check_project, demo_project, TierTable, TierRow, IndexesBuilt, QuerySet
    from workbench.session.imported import run_imported, answers_imported, traces_imported, answers_summary, RunImported, AnswersImported, AnswersSummary, TracesImported
    from workbench.session.labelling import export_labels, LabelsExported
    from workbench.session.queries import add_and_rank, top_ranks, AddedQuery, TopRanks
    from workbench.session.options import set_lock_timeout, atomic_write_bytes, LOCK_TIMEOUT_ENV, DEFAULT_LOCK_TIMEOUT_S
    from workbench.project.suggest import command
    from workbench.access.indexing import stage_unit
    from workbench.project.files import ProjectError


_HOME = {
    'verdicts': 'workbench.session.reading',
    'shown_system': 'workbench.session.diagnosing',
    'compared': 'workbench.session.reading',
    'stolen': 'workbench.session.reading',
    'unjudged_rows': 'workbench.session.reading',
    'diagnosis_report': 'workbench.session.reading',
    'SystemResult': 'workbench.access.evaluate',
    'index_status': 'workbench.access.indexing',
    'preferred': 'workbench.access.retrievers',
    'QueryVerdict': 'workbench.diagnosis.verdicts',
    'RunnableFix': 'workbench.diagnosis.fix_commands',
    'FILTER_WORDS': 'workbench.diagnosis.live',
    'UNJUDGED_WORD': 'workbench.diagnosis.live',
    'LiveDiagnosis': 'workbench.diagnosis.live',
    'Recommendation': 'workbench.diagnosis.recommend',
    'VERDICTS': 'workbench.diagnosis.rules',
    'explain_on': 'workbench.session.explain',
    'explained': 'workbench.session.explain',
    'Explanation': 'workbench.inspection.explain',
    'lost_gold': 'workbench.inspection.rankings',
    'STAGES': 'workbench.diagnosis.funnel',
    'STAGE_LABELS': 'workbench.diagnosis.funnel',
    'Funnel': 'workbench.diagnosis.funnel',
    'WorkbenchError': 'workbench.errors',
    'os_error': 'workbench.errors',
    'StepperDoc': 'workbench.insight.unjudged',
    'ModelEvidence': 'workbench.inspection.evidence',
    'QueryInspection': 'workbench.inspection.rankings',
    'SystemRanking': 'workbench.inspection.rankings',
    'Span': 'workbench.inspection.worddiff',
    'salient_changes': 'workbench.inspection.worddiff',
    'word_diff': 'workbench.inspection.worddiff',
    'UseRow': 'workbench.llm.figures',
    'UseTable': 'workbench.llm.figures',
    'PromptEstimate': 'workbench.llm.tasks',
    'TASKS': 'workbench.names',
    'system_label': 'workbench.names',
    'Cancelled': 'workbench.progress',
    'Progress': 'workbench.progress',
    'MARKS': 'workbench.project.labels',
    'VersionInfo': 'workbench.project.versions',
    'list_versions': 'workbench.project.versions',
    'last_changed': 'workbench.project.versions',
    'FLAGS': 'workbench.diagnosis.filters',  # the filter's one-word flags (multi, fail, …): the palette lists them
    'Document': 'workbench.records',
    'Query': 'workbench.records',
    'TierSet': 'workbench.records',
    'ladder_of': 'workbench.session.state',
    'build_indexes_of': 'workbench.session.state',
    'choose_verdict_system': 'workbench.session.diagnosis',
    'diagnose': 'workbench.session.diagnosis',
    'read_diagnosis': 'workbench.session.diagnosis',
    'install_diagnosis': 'workbench.session.diagnosis',
    'diagnosis_with': 'workbench.session.diagnosis',
    'export_report': 'workbench.session.diagnosis',
    'figures_system': 'workbench.session.diagnosis',
    'first_runnable_fix': 'workbench.session.diagnosis',
    'fix_cost': 'workbench.session.diagnosis',
    'fix_pairs': 'workbench.session.diagnosis',
    'insight_overview': 'workbench.session.diagnosis',
    'load_recommendations': 'workbench.session.diagnosis',
    'read_recommendations': 'workbench.session.diagnosis',
    'keep_recommendations': 'workbench.session.diagnosis',
    'first_runnable': 'workbench.diagnosis.recommend',
    'query_sources': 'workbench.session.diagnosis',
    'run_fix': 'workbench.session.diagnosis',
    'shown_recommendations': 'workbench.session.diagnosis',
    'verdict_system': 'workbench.session.diagnosis',
    'verdict_systems': 'workbench.session.diagnosis',
    'access_line': 'workbench.session.labelling',
    'add_query_from_log': 'workbench.session.labelling',
    'apply_relabelled': 'workbench.session.labelling',
    'close_visit': 'workbench.session.labelling',
    'edit_reference_answer': 'workbench.session.labelling',
    'label_document': 'workbench.session.labelling',
    'undo_label': 'workbench.session.labelling',
    'version_shown': 'workbench.session.labelling',
    'Session': 'workbench.session.state',
    'build': 'workbench.session.state',
    'evaluate_all': 'workbench.session.state',
    'inspect': 'workbench.session.state',
    'open_session': 'workbench.session.state',
    'ranks_before': 'workbench.session.state',
    'use_table': 'workbench.session.state',
    'has_answer_bearing_unjudged': 'workbench.session.unjudged',
    'LIST_SORTS': 'workbench.session.query_list',
    'ListSort': 'workbench.session.query_list',
    'QueryListView': 'workbench.session.query_list',
    'QueryRow': 'workbench.session.query_list',
    'read_query_list': 'workbench.session.query_list',
    'ModelLine': 'workbench.session.overview',
    'OverviewView': 'workbench.session.overview',
    'TierLine': 'workbench.session.overview',
    'overview_view': 'workbench.session.overview',
    'unjudged_documents': 'workbench.session.unjudged',
    'calibrate_judge': 'workbench.session.use',
    'estimate_prompts': 'workbench.session.use',
    'export_evidence': 'workbench.session.use',
    'known_results': 'workbench.session.use',
    'run_batch': 'workbench.session.use',
    'run_model_task': 'workbench.session.use',
    'sweep_panels': 'workbench.session.use',
    'why_not_run': 'workbench.session.use',
    'window_budget': 'workbench.session.use',
    'Relabelled': 'workbench.session.labelling',
    'ensure_rankings': 'workbench.session.rankings',
    'missing_rankings': 'workbench.session.rankings',
    'NotIndexed': 'workbench.session.rankings',
    'select': 'workbench.session.selection',
    'Selection': 'workbench.session.selection',
    'report_stem': 'workbench.session.reports',
    'report_path': 'workbench.session.reports',
    'imported_figures': 'workbench.session.imports',
    'import_run': 'workbench.session.imports',
    'ImportedFigures': 'workbench.session.imports',
    'Filter': 'workbench.diagnosis.filters',
    'FilterFacts': 'workbench.diagnosis.filters',
    'filter_problems': 'workbench.diagnosis.filters',
    'parse_filter': 'workbench.diagnosis.filters',
    'query_matches': 'workbench.diagnosis.filters',
    'MIN_DECIDED': 'workbench.project.settings',
    'evaluate_systems': 'workbench.session.evaluation',
    'plan_eval': 'workbench.session.evaluation',
    'run_eval': 'workbench.session.evaluation',
    'EvalPlan': 'workbench.session.evaluation',
    'Evaluation': 'workbench.session.evaluation',
    'add_query': 'workbench.session.queries',
    'rank_added': 'workbench.session.queries',
    'RankedQuery': 'workbench.session.queries',
    'import_answers': 'workbench.session.production',
    'judge_answers': 'workbench.session.production',
    'AnswersImport': 'workbench.session.production',
    'import_traces': 'workbench.session.production',
    'production_since': 'workbench.session.production',
    'since_ns': 'workbench.session.production',
    'ProductionWindow': 'workbench.session.production',
    'TracesImport': 'workbench.session.production',
    'start_collect': 'workbench.session.collect',
    'collected_feedback': 'workbench.session.collect',
    'LiveCollect': 'workbench.session.collect',
    'reading_given': 'workbench.project.settings',
    'plan_run': 'workbench.session.runs',
    'run_models': 'workbench.session.runs',
    'RunPlan': 'workbench.session.runs',
    'ModelRuns': 'workbench.session.runs',
    'tune': 'workbench.session.fixes',
    'rerank': 'workbench.session.fixes',
    'Tuned': 'workbench.session.fixes',
    'Reranked': 'workbench.session.fixes',
    'collide': 'workbench.session.collide',
    'Collided': 'workbench.session.collide',
    'production_stamp': 'workbench.session.follow',
    'production_feedback': 'workbench.session.follow',
    'production_arrivals': 'workbench.session.follow',
    'reload_production': 'workbench.session.follow',
    'install_reload': 'workbench.session.follow',
    'Reloaded': 'workbench.session.follow',
    'project_stamp': 'workbench.session.follow',
    'changes_said': 'workbench.session.follow',
    'warm_up': 'workbench.session.warm',
    'doc_id_resolver': 'workbench.session.gold',
    'resolve_doc_ids': 'workbench.session.gold',
    'DocIdResolver': 'workbench.session.gold',
    'diagnosis_view': 'workbench.session.diagnosing',
    'DiagnosisView': 'workbench.session.diagnosing',
    'stealers_view': 'workbench.session.reading',
    'unjudged_view': 'workbench.session.reading',
    'positions_view': 'workbench.session.reading',
    'StealersView': 'workbench.session.reading',
    'UnjudgedView': 'workbench.session.reading',
    'PositionsView': 'workbench.session.reading',
    'eval_report': 'workbench.session.evaluation',
    'EvalReport': 'workbench.session.evaluation',
    'fix_selection': 'workbench.session.fixes',
    'run_summary': 'workbench.session.runs',
    'RunSummary': 'workbench.session.runs',
    'serve_model': 'workbench.session.runs',
    'named_doc_ids': 'workbench.session.explain',
    'trec_export': 'workbench.session.exports',
    'TrecExport': 'workbench.session.exports',
    'split_level': 'workbench.names',
    'movement_line': 'workbench.inspection.movement',
    'retriever_names': 'workbench.access.retrievers',
    'TuneOptions': 'workbench.tune.train',
    'EffectiveSize': 'workbench.insight.effective_size',
    'DocExplain': 'workbench.inspection.explain',
    # the CLI's remaining commands (issue 41, C2): sweeps, collide-score, the project's and production's imports
    'plan_sweep': 'workbench.session.sweeps',
    'run_sweep': 'workbench.session.sweeps',
    'list_sweeps': 'workbench.session.sweeps',
    'show_sweeps': 'workbench.session.sweeps',
    'SweepRequest': 'workbench.session.sweeps',
    'SweepPlan': 'workbench.session.sweeps',
    'PlanRow': 'workbench.session.sweeps',
    'SweepRun': 'workbench.session.sweeps',
    'SweepOpened': 'workbench.session.sweeps',
    'SweepList': 'workbench.session.sweeps',
    'StoredSweep': 'workbench.session.sweeps',
    'SweepError': 'workbench.session.sweeps',
    'collide_score': 'workbench.session.collide',
    'export_eval_set': 'workbench.session.collide',
    'CollideScore': 'workbench.session.collide',
    'EvalSetWritten': 'workbench.session.collide',
    'init_project': 'workbench.session.projects',
    'import_into_project': 'workbench.session.projects',
    'build_ladder': 'workbench.session.projects',
    'tier_table': 'workbench.session.projects',
    'index_tiers': 'workbench.session.projects',
    'index_project': 'workbench.session.projects',
    'query_sets': 'workbench.session.projects',
    'check_project': 'workbench.session.projects',
    'demo_project': 'workbench.session.projects',
    'TierTable': 'workbench.session.projects',
    'TierRow': 'workbench.session.projects',
    'IndexesBuilt': 'workbench.session.projects',
    'QuerySet': 'workbench.session.projects',
    'run_imported': 'workbench.session.imported',
    'answers_imported': 'workbench.session.imported',
    'traces_imported': 'workbench.session.imported',
    'answers_summary': 'workbench.session.imported',
    'RunImported': 'workbench.session.imported',
    'AnswersImported': 'workbench.session.imported',
    'AnswersSummary': 'workbench.session.imported',
    'TracesImported': 'workbench.session.imported',
    'export_labels': 'workbench.session.labelling',
    'LabelsExported': 'workbench.session.labelling',
    'add_and_rank': 'workbench.session.queries',
    'top_ranks': 'workbench.session.queries',
    'AddedQuery': 'workbench.session.queries',
    'TopRanks': 'workbench.session.queries',
    'set_lock_timeout': 'workbench.session.options',
    'atomic_write_bytes': 'workbench.session.options',
    'LOCK_TIMEOUT_ENV': 'workbench.session.options',
    'DEFAULT_LOCK_TIMEOUT_S': 'workbench.session.options',
    'command': 'workbench.project.suggest',
    'stage_unit': 'workbench.access.indexing',
    'ProjectError': 'workbench.project.files',
}

__all__ = [
    # operations
    "open_session", "build", "ladder_of", "build_indexes_of", "evaluate_all", "use_table", "inspect", "known_results",
    "estimate_prompts", "why_not_run", "run_model_task", "run_batch", "calibrate_judge", "export_evidence", "window_budget", "sweep_panels",
    "label_document", "undo_label", "close_visit", "version_shown", "edit_reference_answer", "add_query_from_log", "apply_relabelled",
    "access_line", "index_status", "list_versions", "last_changed", "diagnose", "verdict_systems", "verdict_system",
    "choose_verdict_system", "figures_system", "diagnosis_with", "read_diagnosis", "install_diagnosis", "export_report", "query_sources", "insight_overview", "ranks_before",
    "load_recommendations", "shown_recommendations", "first_runnable_fix", "fix_cost", "fix_pairs", "run_fix",
    "read_recommendations", "keep_recommendations", "first_runnable",
    "unjudged_documents", "has_answer_bearing_unjudged", "read_query_list", "overview_view",
    "select", "verdicts", "shown_system", "compared", "stolen", "unjudged_rows", "diagnosis_report", "ensure_rankings", "missing_rankings", "report_stem", "report_path", "imported_figures", "import_run",
    "evaluate_systems", "plan_eval", "run_eval", "add_query", "rank_added", "import_answers", "import_traces", "judge_answers", "production_since", "since_ns",
    "parse_filter", "filter_problems", "query_matches", "reading_given", "plan_run", "run_models", "tune", "rerank", "collide", "production_stamp", "production_feedback", "production_arrivals", "reload_production", "install_reload",
    "start_collect", "collected_feedback",
    "doc_id_resolver", "resolve_doc_ids", "DocIdResolver",
    "project_stamp", "changes_said", "warm_up",
    "diagnosis_view", "stealers_view", "unjudged_view", "positions_view", "eval_report", "fix_selection", "run_summary", "serve_model",
    "named_doc_ids", "trec_export", "split_level", "movement_line", "retriever_names",
    # names and registries
    "TASKS", "MARKS", "VERDICTS", "explain_on", "explained", "Explanation", "lost_gold", "STAGES", "STAGE_LABELS", "Funnel", "FILTER_WORDS", "FLAGS", "MIN_DECIDED", "UNJUDGED_WORD", "system_label", "preferred", "salient_changes", "word_diff",
    # records a front end shows
    "Session", "PromptEstimate", "SystemResult", "UseRow", "UseTable", "ModelEvidence", "QueryInspection",
    "SystemRanking", "Span", "Query", "Document", "TierSet", "VersionInfo", "LiveDiagnosis", "QueryVerdict", "Relabelled",
    "Recommendation", "RunnableFix", "StepperDoc", "Selection", "ImportedFigures", "Filter", "FilterFacts",
    "EvalPlan", "Evaluation", "RankedQuery", "AnswersImport", "TracesImport", "RunPlan", "ModelRuns", "Tuned", "Reranked", "Collided", "Reloaded",
    "LiveCollect", "ProductionWindow",
    "QueryListView", "QueryRow", "ListSort", "LIST_SORTS", "OverviewView", "TierLine", "ModelLine",
    "DiagnosisView", "StealersView", "UnjudgedView", "PositionsView", "EvalReport", "RunSummary", "TrecExport", "TuneOptions", "EffectiveSize", "DocExplain",
    # the CLI's remaining commands (C2)
    "plan_sweep", "run_sweep", "list_sweeps", "show_sweeps", "SweepRequest", "SweepPlan", "PlanRow", "SweepRun", "SweepOpened", "SweepList", "StoredSweep", "SweepError", "collide_score", "export_eval_set", "CollideScore", "EvalSetWritten", "init_project", "import_into_project", "build_ladder", "tier_table", "index_tiers", "index_project", "query_sets", "check_project", "demo_project", "TierTable", "TierRow", "IndexesBuilt", "QuerySet", "run_imported", "answers_imported", "traces_imported", "answers_summary", "RunImported", "AnswersImported", "AnswersSummary", "TracesImported", "export_labels", "LabelsExported", "add_and_rank", "top_ranks", "AddedQuery", "TopRanks", "set_lock_timeout", "atomic_write_bytes", "LOCK_TIMEOUT_ENV", "DEFAULT_LOCK_TIMEOUT_S", "command", "stage_unit", "ProjectError",
    # errors and progress
    "WorkbenchError", "NotIndexed", "os_error", "Cancelled", "Progress",
]


def __getattr__(name: str) -> object:
    """A public name imported when first used: a command that needs one operation (`eval`, `report`)
    does not load every part the TUI uses (tests/cli/test_startup_imports.py)."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # once: the next lookup is a plain module attribute
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
