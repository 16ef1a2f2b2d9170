"""What an import from production brought, as a front end shows it: `import-run` (the run's figures
per tier at the project's K), `import-answers` (the answers decided right / wrong / undecided, each
figure with its n) and `import-traces` (the ranking and its reranked list per tier). Each wraps the
import itself (workbench/session/imports.py, production.py) and computes the figures here, so no
front end decides an answer or scores a run on its own."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from workbench.project.files import Problem, Project
    from workbench.llm.records import TierRun
    from workbench.session.imports import ImportedFigures
    from workbench.session.production import TracesImport
    from workbench.triage.answers import ImportedAnswers
    from workbench.triage.runs import ImportReport


class RunImported(msgspec.Struct, frozen=True):
    """`import-run`: the import's report, and run:NAME's figures per tier at K."""

    report: ImportReport
    figures: list[ImportedFigures]
    k: int


def run_imported(root: Path, path: Path, name: str, fmt: str = "trec", tier: str | None = None,
                 ids: str = "auto") -> RunImported:
    """Import a production retriever's rankings as run:NAME, and score it on every tier."""
    from workbench.project.load import load_project
    from workbench.project.settings import access_k
    from workbench.session.imports import import_run

    project = load_project(root)
    report, figures = import_run(project, path, name, fmt, tier, ids)
    return RunImported(report, figures, access_k(project))


class AnswersSummary(msgspec.Struct, frozen=True):
    """The imported answers' figures, each with the n it stands on. ``n``: answers with a reference
    answer (the others are not decided); rates are None over no answer."""

    imported: int
    system: str
    tier: str
    n: int
    right: int
    wrong: int
    undecided: int
    decided_by_judge: bool  # the judge separates right from wrong (else the deterministic rule decides)
    exact: float | None
    contains: float | None
    refusals: int
    judge: str | None
    qa: float | None = None
    qa_scored: int = 0
    qa_judged: int = 0
    judge_failures: int = 0
    gold_in_context: int = 0  # answers whose context held every gold document
    gold_in_context_n: int = 0  # labelled answers with context_doc_ids


class AnswersImported(msgspec.Struct, frozen=True):
    """`import-answers`: the import (record, problems, use run) and its figures."""

    record: ImportedAnswers
    problems: list[Problem]
    run: TierRun
    summary: AnswersSummary


def answers_summary(project: Project, record: ImportedAnswers, run: TierRun) -> AnswersSummary:
    """Right / wrong / undecided by the one decision rule (workbench/correctness.py), with the
    judge only where its calibration says it separates them."""
    from workbench.correctness import decide
    from workbench.llm.calibration import load_calibration
    from workbench.llm.figures import qa_figures
    from workbench.triage.answers import gold_in_context

    cal = load_calibration(project, run.judge) if run.judge else None
    trusted = cal.separates if cal else None
    n = len(run.qa)
    decisions = [decide(project.query(r.query_id), r.answer, r.refusal, r.judge_median if r.judged else None, trusted, run.judge).decision
                 for r in run.qa]

    def rate(xs: list[bool]) -> float | None:
        return sum(xs) / len(xs) if xs else None

    judged: dict = {}
    if run.judge:
        f = qa_figures(run)
        failed = len({x.query_id for x in run.failures if x.stage == "judge"})
        judged = dict(qa=f["QA"], qa_scored=int(f["scored"] or 0), qa_judged=int(f["n"] or 0),
                      judge_failures=int(f["judge_failures"] or 0) + failed)
    read = [g for g in (gold_in_context(project, a) for a in record.answers) if g is not None]
    return AnswersSummary(
        imported=len(record.answers), system=record.system, tier=run.tier, n=n, right=decisions.count("right"),
        wrong=decisions.count("wrong"), undecided=decisions.count("undecided"), decided_by_judge=bool(trusted),
        exact=rate([bool(r.exact) for r in run.qa]), contains=rate([bool(r.contains) for r in run.qa]),
        refusals=sum(r.refusal for r in run.qa), judge=run.judge or None, **judged,
        gold_in_context=sum(a == b for a, b in read), gold_in_context_n=len(read),
    )


def answers_imported(root: Path, path: Path, name: str, judge: bool = True, judge_model: str | None = None,
                     judge_samples: int = 3) -> AnswersImported:
    """Import production answers as run:NAME:answers (judged unless ``judge`` is off) and decide them."""
    from workbench.session.production import import_answers

    done = import_answers(root, path, name, judge, judge_model, judge_samples)
    return AnswersImported(done.record, done.problems, done.run, answers_summary(done.project, done.record, done.run))


class TracesImported(msgspec.Struct, frozen=True):
    """`import-traces`: the import, and production's ranking (and its reranked list) per tier at K."""

    traces: TracesImport
    runs: list[str]  # the imported runs scored, without `run:`: NAME, and NAME>rerank when reranked
    figures: list[ImportedFigures]
    k: int


def traces_imported(root: Path, source: str, name: str, fmt: str = "auto", phoenix_project: str = "default",
                    query_id_key: str = "query_id", add_unknown_documents: bool = False, ids: str = "auto",
                    max_mb: int = 64, judge: bool = True, judge_model: str | None = None, judge_samples: int = 3,
                    doc_id_key: str | None = None, dry_run: bool = False) -> TracesImported:
    """Import production traces (one trace, one query), then score what they ranked."""
    from workbench.project.settings import access_k
    from workbench.session.imports import imported_figures
    from workbench.session.production import import_traces
    from workbench.triage.traces.importer import RERANK_SUFFIX

    t = import_traces(root, source, name, fmt, phoenix_project, query_id_key, add_unknown_documents, ids, max_mb,
                      judge, judge_model, judge_samples, doc_id_key=doc_id_key, dry_run=dry_run)
    r = t.imported
    if r.dry_run or r.run is None:
        return TracesImported(t, [], [], access_k(t.project))
    names = [name] + ([name + RERANK_SUFFIX] if r.reranked else [])
    return TracesImported(t, names, imported_figures(t.project, t.tiers, names), access_k(t.project))
