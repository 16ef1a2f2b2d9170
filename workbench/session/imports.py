"""Imported production runs scored per tier at the project's K, for `import-run` and
`import-traces` (and any front end that shows what an import brought)."""

from __future__ import annotations

from typing import NamedTuple

from workbench.project.files import Project
from workbench.records import AccessSummary, Tier
from workbench.settings import access_k


class ImportedFigures(NamedTuple):
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
