"""Imported production runs scored per tier at the project's K, for `import-run` and
`import-traces` (and any front end that shows what an import brought)."""

from __future__ import annotations

import msgspec

from pathlib import Path
from typing import TYPE_CHECKING

from workbench.project.files import Project
from workbench.records import AccessSummary, Tier
from workbench.project.settings import access_k

if TYPE_CHECKING:
    from workbench.triage.runs import ImportReport


class ImportedFigures(msgspec.Struct, frozen=True):
    tier: Tier
    summaries: list[AccessSummary | None]  # one per imported run asked for; None: that run has no ranking here


def imported_figures(project: Project, tiers: list[Tier], names: list[str]) -> list[ImportedFigures]:
    """Per tier where the first of ``names`` (imported runs, without `run:`) has a ranking: each
    run's access summary at `access_k(project)`."""
    from workbench.access.evaluate import score_run
    from workbench.access.runs import RunStore
    from workbench.triage.runs import load_imported, tier_run

    k = access_k(project)
    records, store = [load_imported(project, n) for n in names], RunStore(project)
    out = []
    for t in tiers:
        runs = [tier_run(project, rec, t, store) if rec else None for rec in records]
        if runs[0] is None:
            continue
        out.append(ImportedFigures(t, [score_run(project, run, k)[0] if run is not None else None for run in runs]))
    return out


def import_run(project: Project, path: Path, name: str, fmt: str = "trec", tier: str | None = None,
               ids: str = "auto") -> tuple["ImportReport", list[ImportedFigures]]:
    """`import-run`: the run stored as `run:NAME` (an unknown --tier fails before anything is
    written), and its figures per tier at the project's K."""
    from workbench.access.ladder import ensure_tiers, select_tiers
    from workbench.triage.runs import import_run as do_import

    tierset = ensure_tiers(project)
    if tier is not None:
        select_tiers(tierset, tier)  # unknown tier → readable error before anything is written
    report = do_import(project, path, name, fmt, tier, ids)  # type: ignore[arg-type]
    return report, imported_figures(project, list(tierset.tiers), [name])


def export_trec(root: Path, tier_spec: str, out: Path) -> list[Path]:
    """`export-trec`: qrels and every current stored run, production's runs (the ledger's view now) included."""
    from workbench.access.ladder import load_tiers, select_tiers
    from workbench.access.runs import RunStore
    from workbench.access.trec import export_trec as do_export
    from workbench.project.load import load_project
    from workbench.triage.runs import external_runs

    project = load_project(root)
    tiers = select_tiers(load_tiers(project), tier_spec)
    store = RunStore(project)
    for t in tiers:
        external_runs(project, t, store)  # stored as the ledger holds them now: no `eval` needed first
    return do_export(project, tiers, out)
