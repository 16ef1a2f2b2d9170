"""`collide`: collision testing, one operation — near-miss candidates mined from the pool (or the
answer-bearing unjudged documents), each verified by a model, written as a new query-set version.
The CLI parses and prints; finished verdicts are stored as they land, so an interrupted run resumes."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

import msgspec

if TYPE_CHECKING:
    from workbench.collide.run import CollideSummary
    from workbench.progress import Progress
    from workbench.project.files import Project
    from workbench.records import Tier


class Collided(msgspec.Struct, frozen=True):
    """The run's summary, the project it started from, and the tier mining searched (the pool)."""

    project: Project
    tier: Tier
    summary: CollideSummary


def collide(root: Path, queries_version: str = "original", *, candidates: int = 5, floor: float = 0.3,
            margin: float | None = None, pool: int = 0, seed: int = 13, bm25: int = 0, model: str | None = None,
            concurrency: int | None = None, parse_retries: int = 2, policy: Literal["any", "majority"] = "any",
            keep_unsuitable: bool = False, start: Literal["mined", "unjudged"] = "mined", name: str | None = None,
            use_cache: bool = True, progress: Progress | None = None) -> Collided:
    """Mine (or take the unjudged), verify, write the version (blocking). KeyboardInterrupt passes
    through: finished verdicts are stored, a rerun resumes."""
    import asyncio

    from workbench.access.indexing import build_indexes
    from workbench.access.ladder import ensure_tiers, select_tiers
    from workbench.collide.mining import MiningOptions
    from workbench.collide.run import CollideSettings, run_collide
    from workbench.llm.providers import endpoint, open_client, resolve_model
    from workbench.llm.tasks import model_identity
    from workbench.project.load import load_project

    project = load_project(root, queries_version)
    model_name, cfg = resolve_model(project, model)
    tier = select_tiers(ensure_tiers(project), "full")[0]  # mining searches the whole pool, indexed
    build_indexes(project, [tier], progress=progress)
    settings = CollideSettings(
        mining=MiningOptions(candidates=candidates, floor=floor, margin=margin, pool=pool, seed=seed, bm25=bm25, tier=tier.name,
                             start=start),
        model=model_name, model_identity=[endpoint(cfg)[1], *model_identity(cfg)], parse_retries=parse_retries,
        conflict_policy=policy, keep_unsuitable=keep_unsuitable,
    )

    async def go() -> CollideSummary:
        async with open_client(project, model_name, cfg, use_cache=use_cache, concurrency=concurrency) as client:
            return await run_collide(project, tier, client, settings, name=name, progress=progress)

    return Collided(project, tier, asyncio.run(go()))
