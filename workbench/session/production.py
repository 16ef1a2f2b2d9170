"""Production's answers imported (`import-answers`): written as a use run, decided, judged unless
asked not to. The front end prints the figures (cli/triage.py: answers_summary)."""

from __future__ import annotations

import msgspec

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.llm.records import TierRun
    from workbench.project.files import Problem, Project
    from workbench.records import Tier
    from workbench.triage.answers import ImportedAnswers
    from workbench.triage.traces.importer import TraceImport
    from workbench.triage.traces.spans import Skipped, Span


class AnswersImport(msgspec.Struct, frozen=True):
    """The import's record (answers, unknown IDs), its problems, and the use run (judged or not)."""

    project: Project
    record: ImportedAnswers
    problems: list[Problem]
    run: TierRun


def import_answers(root: Path, file: Path, name: str, judge: bool = True, judge_model: str | None = None,
                   judge_samples: int = 3) -> AnswersImport:
    """The answers of ``file`` as run:NAME:answers on the full tier; judged with the project's judge
    (``judge_model`` None: workbench.toml's, else the embedded model) unless ``judge`` is off."""
    from workbench.access.ladder import ensure_tiers
    from workbench.project.load import load_project
    from workbench.triage.answers import current_run, full_tier
    from workbench.triage.answers import import_answers as do_import

    project = load_project(root)
    tier = full_tier(ensure_tiers(project).tiers)
    record, problems = do_import(project, file, name)
    if judge:
        import asyncio  # only when judging: the models' clients are heavy

        run = asyncio.run(judge_answers(project, record, tier, judge_model, judge_samples))
    else:
        run = current_run(project, record, tier, None)
    return AnswersImport(project, record, problems, run)


async def judge_answers(project, record, tier, judge_model, samples):
    from workbench.triage.answers import current_run
    from workbench.llm.providers import open_client, resolve_judge, resolve_model
    from workbench.llm.tasks import model_identity, judge_run  # the judge's identity keys its scores

    name, cfg = resolve_judge(project, resolve_model(project, None)[0], judge_model)
    run = current_run(project, record, tier, name, [model_identity(cfg), samples])
    if run.complete:
        return run
    async with open_client(project, name, cfg) as client:
        return await judge_run(project, run, client, samples)


class TracesImport(msgspec.Struct, frozen=True):
    """What `import-traces` (and the live receiver) brought: the import's record, the project as it
    is now, its tiers, and the production answers' use run (judged or not; None: no answer)."""

    project: Project
    imported: TraceImport
    tiers: list[Tier]
    answers: TierRun | None


def import_traces(root: Path, source: str, name: str, fmt: str = "auto", phoenix_project: str = "default",
                  query_id_key: str = "query_id", add_unknown_documents: bool = False, ids: str = "auto",
                  max_mb: int = 64, judge: bool = True, judge_model: str | None = None, judge_samples: int = 3,
                  spans: tuple[list[Span], list[Skipped], str] | None = None, doc_id_key: str | None = None,
                  dry_run: bool = False) -> TracesImport:
    """Production traces from ``source`` (a file or a Phoenix URL) — or ``spans`` already read
    (spans, skipped, format: the live receiver) — imported as run:NAME, run:NAME>rerank and
    run:NAME:answers; the answers judged unless ``judge`` is off. ``doc_id_key``: the document
    metadata key holding production's document id; ``dry_run``: read, match and resolve, write nothing."""
    from workbench.access.ladder import ensure_tiers
    from workbench.project.load import load_project
    from workbench.triage.answers import current_run, full_tier, load_answers
    from workbench.triage.traces import importer

    if spans is None:
        r = importer.import_traces(root, source, name, fmt, phoenix_project, query_id_key,  # type: ignore[arg-type]
                                   add_unknown_documents, ids, max_mb, doc_id_key, dry_run)  # type: ignore[arg-type]
    else:
        r = importer.import_spans(root, spans[0], spans[1], source, spans[2], name, query_id_key,
                                  add_unknown_documents, ids, doc_id_key=doc_id_key, dry_run=dry_run)  # type: ignore[arg-type]
    project = load_project(root)
    if dry_run:
        return TracesImport(project, r, [], None)
    tiers = list(ensure_tiers(project).tiers)
    record = load_answers(project, name) if r.answers else None
    run = None
    if record is not None:
        tier = full_tier(tiers)
        if judge:
            import asyncio  # only when judging: the models' clients are heavy

            run = asyncio.run(judge_answers(project, record, tier, judge_model, judge_samples))
        else:
            run = current_run(project, record, tier, None)
    return TracesImport(project, r, tiers, run)
