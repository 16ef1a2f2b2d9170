"""Production's answers imported (`import-answers`): written as a use run, decided, judged unless
asked not to. The front end prints the figures (cli/triage.py: answers_summary)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from workbench.llm.records import TierRun
    from workbench.project.files import Problem, Project
    from workbench.triage.answers import ImportedAnswers


class AnswersImport(NamedTuple):
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
