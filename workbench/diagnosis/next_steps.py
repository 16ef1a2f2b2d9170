"""The next step of a verdict that misses something: the one command (and the query inspector's
key) that would fill it, built by workbench.project.suggest.command (absolute project path, every part
quoted); never a run that cannot be made (a name that is no model, a task that does not fit the
window: then the tiers where it fits are named)."""

from __future__ import annotations

from typing import Protocol

from workbench.diagnosis.rules import Verdict
from workbench.diagnosis.systems import SystemSpec, production_name
from workbench.errors import WorkbenchError
from workbench.names import TASKS
from workbench.project.files import ORIGINAL_VERSION, Project
from workbench.records import Query, Tier
from workbench.project.suggest import command

class LoadedResults(Protocol):
    """What a next step reads of the diagnosis' loaded results (diagnosis.verdicts.VerdictReader)."""

    project: Project
    oracle_model: str

    def fits(self, model: str, task: str, tier: Tier) -> str: ...

    def fitting_tiers(self, model: str, task: str) -> list[str]: ...


def how_to_fill(c: LoadedResults, v: Verdict, spec: SystemSpec, tier: Tier, query: Query) -> tuple[str, str]:
    """The command and inspector key that fill what the verdict misses ("", "": nothing missing)."""
    if not v.missing:
        return "", ""
    root = c.project.root
    version = c.project.queries_version if c.project.queries_version != ORIGINAL_VERSION else None
    where = {"queries": query.query_id, "queries_version": version}
    if v.rule == "N5":
        name = production_name(spec.name)
        return (f"{command('import-run', root, 'RUN_FILE', name=name)} (production's ranking), or import-answers "
                f"with context_doc_ids"), ""
    if v.rule == "Q1" or v.missing.startswith("a decision on"):  # rerunning gives the same answer: decide it
        decider = (spec.oracle_model if spec.reader == "production" else spec.model) or c.oracle_model
        line, keys = run_line(c, decider, ["oracle"], tier, where, None)
        if line.startswith("workbench run"):  # a run that fits calibrates the judge and judges its answers
            return f"{line} (calibrates the judge), or give the query a canonical_answer / answer_aliases", keys
        return f"{line}; or give the query a canonical_answer / answer_aliases", ""
    if v.rule == "N1":
        if spec.reader == "qa" and spec.model:
            return run_line(c, spec.model, ["localize", "qa"], tier, where, None)
        return command("eval", root, retrievers=spec.access, tiers=tier.name), ""
    tasks = []
    if v.rule in ("A2", "N4"):
        tasks.append("oracle")
    if v.rule in ("N3", "N4") and spec.reader != "production":
        tasks.append("qa" if spec.reader == "qa" else "rag")  # access only: retrieve-then-read on its ranking
    model = spec.oracle_model if spec.reader == "production" else spec.model
    if not model:
        if spec.reader is None:  # access only: the oracle of the project's model confirms it
            model = c.oracle_model
        else:
            return "", ""
    return run_line(c, model, tasks, tier, where, spec.access if "rag" in tasks else None)


def run_line(c: LoadedResults, model: str, tasks: list[str], tier: Tier, where: dict[str, str | None],
             retriever: str | None) -> tuple[str, str]:
    """`workbench run` for these tasks where they fit; the tasks that do not fit named with the tiers where they do."""
    if not _is_model(c, model):
        return f"{model!r} is not a configured model: add [models.{model}] to workbench.toml", ""
    blocked = [(t, why) for t in tasks if (why := c.fits(model, t, tier))]
    if blocked:  # nothing of these runs here: the tier is too large for this model
        parts = []
        for t, why in blocked:
            there = c.fitting_tiers(model, t)
            parts.append(f"{why}; it fits on {_tier_list(there)}" if there else f"{why}; it fits on none of these tiers")
        return "; ".join(parts) + ": use a model with a larger window", ""
    keys = ", ".join(TASKS[t].key for t in tasks)
    return command("run", c.project.root, model=model, task=",".join(tasks), retriever=retriever, tiers=tier.name,
                   **where), keys


def _is_model(c: LoadedResults, model: str) -> bool:
    from workbench.llm.providers import resolve_model

    try:
        resolve_model(c.project, model)
    except WorkbenchError:
        return False
    return True


def _tier_list(names: list[str], most: int = 4) -> str:
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")
