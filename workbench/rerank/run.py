"""Rerank systems over tiers: check every name first, then compute tier by tier.

Bad input (a malformed name, an unknown reranker, a base system that does not exist or has no run
on a selected tier, depth < K) fails before any score is computed or any run is stored.
"""

from __future__ import annotations

from workbench.access.evaluate import DEFAULT_DEPTH, retrieve_tier
from workbench.access.retrievers import RETRIEVERS, make_retrievers
from workbench.access.runs import RunStore, SystemRun
from workbench.names import SystemName
from workbench.progress import Progress
from workbench.project.files import Project
from workbench.records import Tier
from workbench.rerank.cache import ScoreCache
from workbench.rerank.errors import RerankError
from workbench.rerank.base import Scorer
from workbench.rerank.scorers import make_scorer, reranker_config
from workbench.rerank.stage import RerankStats, parse_reranked, rerank_tier
from workbench.rerank.systems import stored_runs


def _check_base(project: Project, tiers: list[Tier], name: SystemName, store: RunStore) -> None:
    base = SystemName.parse(name.base)
    if base.kind == "rerank":
        check_systems(project, tiers, [name.base], None, store)
        return
    if base.kind == "retriever" and base.name in RETRIEVERS:
        return
    for tier in tiers:
        have = {r.system for r in stored_runs(project, tier, store)}
        if name.base not in have:
            known = sorted(set(RETRIEVERS) | have)
            raise RerankError(f"reranker {name.name!r}: base system {name.base!r} has no run on tier {tier.name!r}; "
                              f"known there: {known}")


def check_systems(project: Project, tiers: list[Tier], systems: list[str], k: int | None, store: RunStore) -> list[SystemName]:
    names = [parse_reranked(s, k) for s in systems]
    for name in names:
        reranker_config(project, name.name)
        _check_base(project, tiers, name, store)
    return names


class Reranking:
    """One rerank job: scorers made once per reranker, one score cache, the base runs it made."""

    def __init__(self, project: Project, progress: Progress | None = None):
        self.project = project
        self.progress = progress
        self.store = RunStore(project)
        self.cache = ScoreCache.for_state_dir(project.state_dir)
        self.scorers: dict[str, Scorer] = {}
        self.retrievers = make_retrievers(project, [])
        self.stats = RerankStats()

    def scorer(self, reranker: str) -> Scorer:
        if reranker not in self.scorers:
            self.scorers[reranker] = scorer = make_scorer(self.project, reranker)
            if self.progress is not None:
                progress = self.progress
                scorer.poll = lambda done, total: progress(f"{reranker}: pairs of one query", done, total)
        return self.scorers[reranker]

    def base_run(self, tier: Tier, base: str, depth: int) -> SystemRun:
        name = SystemName.parse(base)
        if name.kind == "rerank":
            return self.run(tier, name)
        if name.kind == "retriever" and name.name in RETRIEVERS:
            if name.name not in self.retrievers:
                self.retrievers.update(make_retrievers(self.project, [name.name]))
            run, _ = retrieve_tier(self.retrievers[name.name], tier, self.project, max(DEFAULT_DEPTH, depth), self.store)
            return run
        for run in stored_runs(self.project, tier, self.store):
            if run.system == base:
                return run
        raise RerankError(f"base system {base!r} has no run on tier {tier.name!r}")

    def run(self, tier: Tier, name: SystemName) -> SystemRun:
        base = self.base_run(tier, name.base, name.depth)
        return rerank_tier(self.project, tier, name, base, self.scorer(name.name), self.cache, self.store,
                           self.stats, self.progress)

    def close(self) -> None:
        for s in self.scorers.values():
            s.close()
        self.cache.close()


def rerank(project: Project, tiers: list[Tier], systems: list[str], k: int | None = None,
           progress: Progress | None = None) -> RerankStats:
    """Every reranked system on every tier (stored; current runs reused)."""
    names = check_systems(project, tiers, systems, k, RunStore(project))  # before anything is opened or written
    job = Reranking(project, progress)
    try:
        for tier in tiers:
            for name in names:
                job.stats.runs.append(job.run(tier, name))
        return job.stats
    finally:
        job.close()
