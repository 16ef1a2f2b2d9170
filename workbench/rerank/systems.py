"""Which stored ranking runs of a tier count, in one place: what `eval` scores beside the
retrievers and what a rerank stage may take as its base. Model localization runs, imported
production runs (`run:<name>`), the tuned embedder's runs (`dense@tuned`, `hybrid@tuned`:
held-out queries only, made by `workbench tune`) and current reranked runs
(`<base>>rerank:<name>@<depth>`, made by `workbench rerank`). It lives at the rerank level, the
lowest that may see every kind (triage, tune and rerank's own)."""

from __future__ import annotations

from workbench.access.evaluate import model_runs
from workbench.access.runs import RunStore, SystemRun
from workbench.names import TUNED_SUFFIX, SystemName
from workbench.project.files import Project
from workbench.records import Tier
from workbench.triage.runs import external_runs


def stored_runs(project: Project, tier: Tier, store: RunStore) -> list[SystemRun]:
    """Every stored run of the tier beside the retrievers' (access.evaluate.StoredRuns)."""
    runs = model_runs(project, tier, store) + external_runs(project, tier, store)
    # the tuned and reranked stages (their models' code) are imported only where they left runs
    systems = {run.system for run in store.runs(tier)}
    if any(s.endswith(TUNED_SUFFIX) for s in systems):
        from workbench.tune.retrieval import tuned_runs

        runs += tuned_runs(project, tier, store)
    if any(SystemName.parse(s).kind == "rerank" for s in systems):
        from workbench.rerank.stage import reranked_runs

        runs += reranked_runs(project, tier, store)
    return runs
