"""The access fixes a user tries — `tune` (the embedder fine-tuned on hard negatives) and `rerank`
(a reranker over a system's top documents) — one operation each, called by `workbench tune` /
`workbench rerank` and by the Diagnosis tab's try-a-fix (session/diagnosis.run_fix) alike."""

from __future__ import annotations

import msgspec

from pathlib import Path
from typing import TYPE_CHECKING

from workbench.stats import DEFAULT_SEED

if TYPE_CHECKING:
    from workbench.access.evaluate import SystemResult
    from workbench.diagnosis.compare import Comparison
    from workbench.progress import Progress
    from workbench.project.files import Project
    from workbench.records import Tier
    from workbench.rerank.stage import RerankStats
    from workbench.session.selection import Selection
    from workbench.tune.train import TuneOptions, TuneRecord


class Tuned(msgspec.Struct, frozen=True):
    """The tuned model used (trained now or kept), and each tuned system against its base on the
    held-out queries only."""

    record: TuneRecord
    trained: bool
    comparisons: list[tuple[str, str, Comparison]]  # (tuned, base, comparison)


class Reranked(msgspec.Struct, frozen=True):
    """The reranked runs stored (and their bases beside them), scored at ``k``."""

    stats: RerankStats
    results: list[SystemResult]
    k: int


def tune(project: Project, tiers: list[Tier], options: TuneOptions | None = None, retrain: bool = False,
         seed: int = DEFAULT_SEED, progress: Progress | None = None) -> Tuned:
    """Fine-tune (or reuse the training kept for these settings), rank the held-out queries as
    dense@tuned / hybrid@tuned, and compare each with its base on them."""
    from workbench.diagnosis.compare import compare
    from workbench.names import untuned
    from workbench.tune.retrieval import TUNED_SYSTEMS
    from workbench.tune.run import tune_project
    from workbench.tune.train import TuneOptions

    record, trained = tune_project(project, tiers, options or TuneOptions(), retrain, progress)
    held = set(record.split.held_out)
    comparisons = [(tuned, base, compare(project, tiers, base, tuned, held, seed=seed))
                   for tuned, base in ((t, untuned(t) or t) for t in TUNED_SYSTEMS)]
    return Tuned(record, trained, comparisons)


def rerank(project: Project, tiers: list[Tier], systems: list[str], k: int | None = None,
           progress: Progress | None = None) -> Reranked:
    """Every reranked system (BASE>rerank:NAME@DEPTH) on every tier, stored (current runs reused;
    scores cached), and scored with its base at ``k`` (None: the project's K)."""
    from workbench.access.evaluate import SystemResult, score_run, unlabelled_count
    from workbench.access.runs import RunStore
    from workbench.names import SystemName
    from workbench.project.settings import access_k
    from workbench.rerank.run import rerank as do_rerank

    k = k or access_k(project)
    stats = do_rerank(project, tiers, systems, k, progress)
    store, by_tier = RunStore(project), {t.name: t for t in tiers}
    results = []
    for run in stats.runs:
        base = store.load(SystemName.parse(run.system).base, run.tier)
        for r in ([base] if base is not None else []) + [run]:
            summary, per_query = score_run(project, r, k)
            results.append(SystemResult(r.system, r.tier, summary, per_query, True, unlabelled_count(project, by_tier[r.tier])))
    return Reranked(stats, results, k)


def fix_selection(root: Path, tier_spec: str = "all") -> Selection:
    """The project and the tiers a fix runs on (`tune`, `rerank`): the ladder made first if it is not."""
    from workbench.access.ladder import ensure_tiers, select_tiers
    from workbench.project.load import load_project
    from workbench.session.selection import Selection

    project = load_project(root)
    return Selection(project, select_tiers(ensure_tiers(project), tier_spec), None)
