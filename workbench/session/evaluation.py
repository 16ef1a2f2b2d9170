"""Evaluation, one operation for both front ends: `eval` and the TUI's evaluation score the same
systems the same way (K from workbench.project.settings.access_k, the stored runs that count from
workbench.rerank.systems.stored_runs), so their figures cannot drift. Imports are lazy: a repeat
`eval` loads no index engine (tests/cli/test_startup_imports.py)."""

from __future__ import annotations

import msgspec

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.access.evaluate import SystemResult
    from workbench.access.retrievers import Retriever
    from workbench.insight.effective_size import EffectiveSize
    from workbench.llm.figures import UseTable
    from workbench.progress import Progress
    from workbench.project.files import Project
    from workbench.records import Tier


def evaluate_systems(project: Project, tiers: list[Tier], retrievers: dict[str, Retriever], *, k: int | None = None,
                     include_models: bool = True, built_only: bool = False,
                     progress: Progress | None = None) -> list[SystemResult]:
    """Access figures per tier × system: the retrievers given plus every stored run that counts,
    at ``k`` (None: the project's K)."""
    from workbench.access.evaluate import evaluate
    from workbench.rerank.systems import stored_runs
    from workbench.project.settings import access_k

    return evaluate(project, tiers, retrievers, k=k or access_k(project), include_models=include_models,
                    progress=progress, built_only=built_only, stored=stored_runs)


class Evaluation(msgspec.Struct, frozen=True):
    """What `eval` prints: the figures, their K, the use side (None: --no-models or no model run)."""

    project: Project
    tiers: list[Tier]
    results: list[SystemResult]
    k: int
    use: UseTable | None


def split_systems(names: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(retrievers, reranked systems, tuned systems) of ``--retrievers``; a name that is none of
    them is left with the retrievers, whose registry reports it (exit 2)."""
    from workbench.names import RERANK_MARK, TUNED_SUFFIX

    reranked = [n for n in names if RERANK_MARK in n]
    tuned = [n for n in names if n.endswith(TUNED_SUFFIX) and n not in reranked]
    return [n for n in names if n not in reranked and n not in tuned], reranked, tuned


def staged_runs(project, tiers, reranked: list[str], tuned: list[str], k: int, progress) -> list:
    """The runs of the reranked and tuned systems asked for by name: current stored ones reused,
    the rest computed by their stage (the rerank's score cache, the tuned embedder's index)."""
    runs = []
    if reranked:  # the stages import the index engines and the models' clients: only when asked for
        from workbench.rerank.run import rerank

        runs += list(rerank(project, tiers, reranked, k, progress).runs)
    if tuned:
        from workbench.access.evaluate import DEFAULT_DEPTH
        from workbench.tune.retrieval import rank_held_out

        runs += [r for r in rank_held_out(project, tiers, max(DEFAULT_DEPTH, k), progress) if r.system in tuned]
    return runs


def check_tuned(project, tuned: list[str]) -> None:
    """Exit 2 for a tuned name that is not one, or when `workbench tune` has not run."""
    from workbench.errors import BadInput
    from workbench.tune.retrieval import TUNED_SYSTEMS, tuned_model

    unknown = [n for n in tuned if n not in TUNED_SYSTEMS]
    if unknown:
        raise BadInput(f"unknown tuned system(s) {unknown}; known: {list(TUNED_SYSTEMS)} (made by `workbench tune`)",
                       title="Unknown retriever")
    if tuned:
        tuned_model(project)


def index_kinds(retrievers: list[str], reranked: list[str], tuned: list[str]) -> tuple[str, ...]:
    """The index kinds these systems read: a reranked system its base's, a tuned one bm25's (its
    own dense index is built by the tuned retriever)."""
    from workbench.access.retrievers import RETRIEVERS
    from workbench.names import SystemName

    bases = []
    for n in reranked:
        name = SystemName.parse(n)
        while name.kind == "rerank":
            name = SystemName.parse(name.base)
        bases.append(str(name))
    kinds = set().union(*(RETRIEVERS[n].index_kinds for n in retrievers + bases if n in RETRIEVERS))
    return tuple(sorted(kinds | ({"sparse"} if tuned else set())))


class EvalPlan(msgspec.Struct, frozen=True):
    """`eval`'s systems checked (unknown names exit 2 before anything runs) and the index kinds they
    read: the front end builds those (with its own progress bars), then calls `run_eval`."""

    project: Project
    tiers: list[Tier]
    k: int
    retrievers: dict[str, Retriever]
    reranked: list[str]
    tuned: list[str]
    kinds: tuple[str, ...]


def plan_eval(root: Path, names: list[str], tier_spec: str = "all", k: int | None = None,
              queries_version: str = "original") -> EvalPlan:
    """The project, tiers and systems of an `eval`; K None: the project's."""
    from workbench.access.ladder import ensure_tiers, select_tiers
    from workbench.access.retrievers import RETRIEVERS, make_retrievers
    from workbench.project.load import load_project
    from workbench.project.settings import access_k

    project = load_project(root, queries_version)
    k = k or access_k(project)
    tierset = ensure_tiers(project)
    from workbench.triage.answers import restore_answer_runs

    restore_answer_runs(project, tierset.tiers)  # production's answers never vanish with a damaged run file
    tiers = select_tiers(tierset, tier_spec)
    plain, reranked, tuned = split_systems(names)
    made = make_retrievers(project, plain)  # unknown names: exit 2 before anything runs
    if reranked:
        from workbench.access.runs import RunStore
        from workbench.rerank.run import check_systems

        check_systems(project, tiers, reranked, k, RunStore(project))  # unknown reranker or base: exit 2, named
    check_tuned(project, tuned)
    return EvalPlan(project, tiers, k, made, reranked, tuned,
                    index_kinds([n for n in plain if n in RETRIEVERS], reranked, tuned))


def run_eval(plan: EvalPlan, *, include_models: bool = True, progress: Progress | None = None) -> Evaluation:
    """The plan's figures: the staged systems' runs (reranked, tuned) scored beside the evaluation
    of the retrievers and the stored runs that count; the use side unless include_models is off."""
    project, tiers, k = plan.project, plan.tiers, plan.k
    staged = staged_runs(project, tiers, plan.reranked, plan.tuned, k, progress)
    results = evaluate_systems(project, tiers, plan.retrievers, k=k, include_models=include_models, progress=progress)
    if staged:
        from workbench.access.evaluate import SystemResult, score_run, unlabelled_count

        by_tier = {t.name: t for t in tiers}
        asked = []
        for run in staged:
            summary, per_query = score_run(project, run, k)
            asked.append(SystemResult(run.system, run.tier, summary, per_query, True, unlabelled_count(project, by_tier[run.tier])))
        have = {(r.system, r.tier) for r in asked}
        results = [r for r in results if (r.system, r.tier) not in have] + asked
    use = None
    if include_models:
        from workbench.llm.figures import use_table

        use = use_table(project, tiers)
    return Evaluation(project, tiers, results, k, use)


class EvalReport(msgspec.Struct, frozen=True):
    """What `eval` prints: the evaluation, and either its stable JSON document (``--json``) or the
    tables' companions (the effective corpus sizes, the tuned systems' split caption)."""

    evaluation: Evaluation
    document: dict | None  # `eval --json` (workbench.access.evaluate.results_json); None for the tables
    effective_sizes: list[EffectiveSize]
    tuned_caption: str  # "" when no tuned system is among the results


def eval_report(plan: EvalPlan, *, include_models: bool = True, progress: Progress | None = None,
                as_json: bool = False) -> EvalReport:
    """The plan's evaluation (run_eval) with what the front end shows beside it."""
    done = run_eval(plan, include_models=include_models, progress=progress)
    if as_json:  # the JSON document only: a repeat `eval --json` loads no heavy library
        from workbench.access.evaluate import results_json

        return EvalReport(done, results_json(done.results, done.k, done.use, done.project.queries_version), [], "")
    from workbench.diagnosis.verdicts import VerdictReader
    from workbench.session.diagnosing import shown_effective_sizes

    sizes = shown_effective_sizes(done.project, done.tiers, VerdictReader(done.project, done.k))
    return EvalReport(done, None, sizes, tuned_caption(done.project, [r.system for r in done.results]))


def tuned_caption(project: Project, systems: list[str]) -> str:
    """Beside every figure of a tuned system: its split and seeds (held-out queries only); "" without one."""
    from workbench.names import TUNED_SUFFIX
    from workbench.tune.train import load_record

    record = load_record(project) if any(s.endswith(TUNED_SUFFIX) for s in systems) else None
    return f"*{TUNED_SUFFIX}: {record.split.caption()}" if record is not None else ""
