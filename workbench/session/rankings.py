"""What the read commands (diagnose, compare, stealers, unjudged, report) need before they read:
the built-in retrievers' rankings. Rankings need no model, so a missing one is computed (through
the one evaluate path, only where its indexes are built); where none can be, the error names the
`workbench index` command to run."""

from __future__ import annotations

from workbench.errors import WorkbenchError
from workbench.progress import Progress
from workbench.project.files import Project
from workbench.records import Tier
from workbench.project.settings import access_k
from workbench.project.suggest import command


class NotIndexed(WorkbenchError):
    """A read command found no ranking of a built-in retriever and no built index to compute one."""

    title = "Not indexed"
    exit_code = 2


def missing_rankings(project: Project, tiers: list[Tier], systems: list[str] | None = None) -> dict[str, list[str]]:
    """tier name → the built-in retrievers (of ``systems``, default all) with no current stored ranking there."""
    from workbench.access.retrievers import RETRIEVERS
    from workbench.access.runs import RunStore

    wanted = [s for s in (systems if systems is not None else list(RETRIEVERS)) if s in RETRIEVERS]
    store = RunStore(project)
    out: dict[str, list[str]] = {}
    for tier in tiers:
        have = {run.system for run in store.runs(tier)}
        if missing := [s for s in wanted if s not in have]:
            out[tier.name] = missing
    return out


def ensure_rankings(project: Project, tiers: list[Tier], progress: Progress | None = None,
                    systems: list[str] | None = None) -> list[str]:
    """Compute the missing rankings of the built-in retrievers (``systems``: only those asked for,
    all of them required) whose indexes are built; returns "system tier" of each one computed.

    Raises NotIndexed, naming the `workbench index` command, when a tier is left with no ranking
    of any built-in retriever, or a retriever asked for by name cannot be computed."""
    missing = missing_rankings(project, tiers, systems)
    if not missing:
        return []
    from workbench.access.evaluate import evaluate
    from workbench.access.indexing import index_status
    from workbench.access.retrievers import RETRIEVERS, make_retrievers

    by_name = {t.name: t for t in tiers}
    computed: list[str] = []
    unbuilt: dict[str, list[str]] = {}  # tier → retrievers left without a ranking
    for tier_name, names in missing.items():
        tier = by_name[tier_name]
        built = {kind for kind, state in index_status(project, tier).items() if state == "ok"}
        can = [n for n in names if RETRIEVERS[n].index_kinds <= built]
        if can:
            results = evaluate(project, [tier], make_retrievers(project, can), k=access_k(project),
                               include_models=False, progress=progress, built_only=True)
            computed += [f"{r.system} {r.tier}" for r in results]
        if left := [n for n in names if n not in can]:
            unbuilt[tier_name] = left
    still = missing_rankings(project, tiers, systems)
    if systems is not None:
        blocking = {t: names for t, names in unbuilt.items() if names}
    else:  # all retrievers: one ranking per tier is enough to read
        blocking = {t: names for t, names in still.items() if len(names) == len(RETRIEVERS)}
    if blocking:
        tier_names = list(blocking)
        shown = ", ".join(tier_names[:3]) + (f" (and {len(tier_names) - 3} more)" if len(tier_names) > 3 else "")
        retrievers = sorted({n for names in blocking.values() for n in names})
        raise NotIndexed(
            f"no stored ranking of {', '.join(retrievers)} on {shown}, and its index is not built",
            hint=f"build the indexes first: {command('index', project.root)}")
    return computed
