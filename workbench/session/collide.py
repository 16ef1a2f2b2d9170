"""Collision testing, one operation per command: `collide` (near-miss candidates mined from the
pool, or the answer-bearing unjudged documents, each verified by a model, written as a new
query-set version; finished verdicts are stored as they land, so an interrupted run resumes),
`collide_score` (a version against known labels) and `export_eval_set`. The CLI parses and prints."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

import msgspec

if TYPE_CHECKING:
    from workbench.collide.run import CollideSummary
    from workbench.collide.truth import TruthReport
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


class CollideScore(msgspec.Struct, frozen=True):
    """`collide-score`: the model-free mining recall of the true hard negatives at each depth (per
    source: dense, bm25, k from each), and the verdicts of a collide version against the truth
    (None when the original set is scored: it has no verdicts)."""

    recall_at: dict[str, dict[int, float | None]]
    report: TruthReport | None
    scored: str  # what the verdicts are: the version's name, or the newest unfinished run's


def collide_score(root: Path, queries_version: str, truth: Path, depths: list[int], *, partial: bool = False,
                  progress: Progress | None = None) -> CollideScore:
    """Score a collide version against known labels: mining recall apart from verification
    accuracy. Gold documents in ``truth`` that the project's queries lack count as hidden gold (the
    verifier should call them FALSE_NEGATIVE). ``partial``: the verdicts saved so far by the newest
    unfinished collide run. Mining recall is measured from the original labels, as collide started."""
    from workbench.access.indexing import build_indexes
    from workbench.access.ladder import ensure_tiers, select_tiers
    from workbench.collide.mining import MiningOptions, mine
    from workbench.collide.run import saved_verdicts
    from workbench.collide.truth import recall_at, score_against_truth
    from workbench.errors import BadInput
    from workbench.project.files import ProjectError, iter_jsonl
    from workbench.project.load import load_project
    from workbench.project.versions import ORIGINAL, LabelRecord, read_labels
    from workbench.records import Query

    project = load_project(root, queries_version)
    problems: list = []
    truth_queries = [q for _, q in iter_jsonl(truth, Query, problems)]
    if problems:
        raise ProjectError(problems)
    ours = {x.query_id for x in project.original_queries}
    truth_queries = [q for q in truth_queries if q.query_id in ours]  # the truth of this project's queries only
    hidden = {q.query_id: sorted(set(q.gold_doc_ids) - set(project.original_query(q.query_id).gold_doc_ids)) for q in truth_queries}
    labels: list[LabelRecord] | None
    scored = queries_version
    if partial:
        labels = saved_verdicts(project)
        scored = f"the newest collide run so far ({len(labels)} verdicts)"
    else:
        labels = read_labels(root, queries_version) if queries_version != ORIGINAL else None
    report = score_against_truth(labels, truth_queries, hidden) if labels is not None else None
    ks = sorted(set(depths))
    if not ks or ks[0] < 1:
        raise BadInput("--recall-at: give depths of at least 1")
    base = load_project(root)
    tier = select_tiers(ensure_tiers(base), "full")[0]  # the whole pool, indexed, as collide mines it
    build_indexes(base, [tier], progress=progress)
    dense = {m.query_id: [c.doc_id for c in m.candidates] for m in mine(base, tier, MiningOptions(candidates=max(ks), floor=-1.0))}
    bm25 = {m.query_id: [c.doc_id for c in m.candidates if c.source == "bm25"]
            for m in mine(base, tier, MiningOptions(candidates=0, floor=-1.0, bm25=max(ks)))}
    recall = {
        "dense": recall_at(dense, truth_queries, ks),
        "bm25": recall_at(bm25, truth_queries, ks),
        "dense+bm25": {k: recall_at({q: dense[q][:k] + bm25.get(q, [])[:k] for q in dense}, truth_queries, [2 * k])[2 * k]
                       for k in ks},
    }
    return CollideScore(recall, report, scored)


class EvalSetWritten(msgspec.Struct, frozen=True):
    """`export-eval-set`: rows written (queries × tiers) of which version, where."""

    rows: int
    queries_version: str
    path: str


def export_eval_set(root: Path, queries_version: str, tier_spec: str = "full", out: Path | None = None) -> EvalSetWritten:
    """eval_set.jsonl, one row per query and tier: {query, answer, gold_doc_ids, hard_negative_ids,
    tier, corpus_doc_ids}; default PROJECT/exports/eval_set-VERSION.jsonl."""
    from workbench.access.ladder import load_tiers, select_tiers
    from workbench.collide.export import write_eval_set
    from workbench.project.load import load_project

    project = load_project(root, queries_version)
    out = out or root / "exports" / f"eval_set-{queries_version}.jsonl"
    n = write_eval_set(project, select_tiers(load_tiers(project), tier_spec), out)
    return EvalSetWritten(n, queries_version, str(out))
