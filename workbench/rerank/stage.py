"""The rerank stage on one tier: the top ``depth`` of a base system's run, re-scored and re-sorted.

The reranked run is a SystemRun named ``<base>>rerank:<NAME>@<depth>`` in the same run store as
every other ranking, so every reader of rankings (metrics, compare, diagnosis, report, TREC
export, the TUI) takes it as it is. Below ``depth`` the base ranking follows unchanged, so a gold
document the stage never saw keeps its deep rank. Its key hashes the scorer's identity, the base
run's key and the depth: a rebuilt index, a new base run or another model makes it stale.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from workbench.access.runs import RunStore, SystemRun, run_key, tier_hash
from workbench.errors import ExternalError, WorkbenchError
from workbench.names import SystemName
from workbench.progress import Progress
from workbench.project.files import Project
from workbench.records import Hit, RankedList, Tier
from workbench.rerank.cache import ScoreCache, document_text, text_hash
from workbench.rerank.errors import RerankEndpointError, RerankError
from workbench.rerank.base import Scorer
from workbench.rerank.scorers import make_scorer, reranker_config

RERANK_VERSION = 1  # bump when the stage's ordering changes for the same scores


def parse_reranked(system: str, k: int | None = None) -> SystemName:
    """The parsed name of a reranked system; RerankError (exit 2) for a malformed one or depth < K."""
    name = SystemName.parse(system)
    if name.kind != "rerank":
        raise RerankError(f"{system!r} is not a reranked system: write <base>>rerank:<reranker>@<depth>, "
                          "e.g. hybrid>rerank:ce@50")
    if name.depth < 1:
        raise RerankError(f"reranker {name.name!r}: depth must be at least 1 in {system!r}")
    if k is not None and name.depth < k:
        raise RerankError(f"reranker {name.name!r}: depth {name.depth} is below K={k} in {system!r}: the top K "
                          "would hold documents the reranker never saw", hint=f"rerank at least the top {k}")
    return name


def rerank_key(identity: str, base: SystemRun, depth: int) -> str:
    return run_key("rerank", RERANK_VERSION, identity, base.system, base.key, depth)


@dataclass
class RerankStats:
    scored: int = 0  # pairs the scorer was asked for
    cached: int = 0  # pairs answered by the score cache
    reused_runs: int = 0  # tiers whose stored reranked run was current
    runs: list[SystemRun] = field(default_factory=list)


def scored_by(scorer: Scorer, query: str, texts: list[str]) -> list[float]:
    """``scorer``'s scores; any failure of its endpoint or model names the reranker (which of the
    project's rerankers failed), whatever layer raised it."""
    name = getattr(scorer, "name", "")
    try:
        return scorer.score(query, texts)
    except (RerankError, RerankEndpointError):
        raise  # already said which reranker
    except ExternalError as exc:
        raise RerankEndpointError(f"reranker {name!r}: {exc}", hint=exc.hint or None) from None
    except WorkbenchError as exc:
        raise RerankError(f"reranker {name!r}: {exc}", hint=exc.hint or None) from None


def rerank_hits(query: str, hits: list[Hit], depth: int, project: Project, scorer: Scorer, cache: ScoreCache,
                stats: RerankStats) -> list[Hit]:
    """The top ``depth`` unique known documents re-sorted by score (ties keep the base order), then
    the rest of the base ranking. DocIDs not in the corpus (a model's guess) go below the scored ones."""
    seen: set[int] = set()
    top: list[int] = []
    rest: list[Hit] = []
    for h in hits:
        if h.doc_id in seen:
            continue
        seen.add(h.doc_id)
        if len(top) < depth:
            top.append(h.doc_id)
        else:
            rest.append(h)
    known = [d for d in top if d in project.documents]
    texts = [document_text(project.documents[d]) for d in known]
    hashes = [text_hash(t) for t in texts]
    qh = text_hash(query)
    scores = cache.get_many(scorer.identity, qh, hashes)
    stats.cached += sum(h in scores for h in hashes)
    missing = sorted({i for i, h in enumerate(hashes) if h not in scores}, key=lambda i: hashes[i])
    missing = list({hashes[i]: i for i in missing}.values())  # a document twice in the corpus: score it once
    if missing:
        fresh = scored_by(scorer, query, [texts[i] for i in missing])
        new = {hashes[i]: s for i, s in zip(missing, fresh)}
        cache.put_many(scorer.identity, qh, new)
        scores.update(new)
        stats.scored += len(missing)
    scored = sorted(((d, scores[h]) for d, h in zip(known, hashes)), key=lambda ds: -ds[1])  # stable: ties keep base order
    below = [d for d in top if d not in project.documents] + [h.doc_id for h in rest]
    # Below the reranked top, scores are placeholders that keep the order: TREC tools sort by score.
    floor = math.floor(min((s for _, s in scored), default=0.0)) - 1.0
    return [Hit(d, s) for d, s in scored] + [Hit(d, floor - i) for i, d in enumerate(below)]


def rerank_tier(project: Project, tier: Tier, system: SystemName, base: SystemRun, scorer: Scorer,
                cache: ScoreCache, store: RunStore, stats: RerankStats, progress: Progress | None = None) -> SystemRun:
    """The reranked run of ``base`` on ``tier``: from the store if current, else computed and saved
    (only whole: a cancelled run leaves its scores in the cache and no run file)."""
    key = rerank_key(scorer.identity, base, system.depth)
    name = str(system)
    cached = store.load_if_current(name, tier, key)
    if cached is not None:
        stats.reused_runs += 1
        return cached
    rankings = []
    total = len(base.rankings)
    originals = {q.query_id for q in project.original_queries}
    for n, r in enumerate(base.rankings, 1):
        if r.query_id not in originals:  # an imported run's query the project does not have
            rankings.append(r)
            continue
        query = project.original_query(r.query_id).query
        rankings.append(RankedList(r.query_id, rerank_hits(query, list(r.hits), system.depth, project, scorer, cache, stats)))
        if progress:
            progress(f"{name} {tier.name}", n, total)
    run = SystemRun(name, tier.name, tier_hash(project, tier), key, base.k, rankings, base.texts, base.docs_hash)
    store.save(run)
    return run


def current_key(project: Project, tier: Tier, run: SystemRun, store: RunStore, identities: dict[str, str | None]) -> bool:
    """Whether a stored reranked run still matches its reranker's config and its base's stored run."""
    name = SystemName.parse(run.system)
    if name.name not in identities:
        try:
            reranker_config(project, name.name)
            identities[name.name] = _identity(project, name.name)
        except RerankError:
            identities[name.name] = None
    identity = identities[name.name]
    base = store.load(name.base, tier.name)
    if identity is None or base is None or (base.docs_hash, base.tier_hash if not base.docs_hash else "") != (run.docs_hash, run.tier_hash if not run.docs_hash else ""):
        return False
    if SystemName.parse(name.base).kind == "rerank" and not current_key(project, tier, base, store, identities):
        return False
    return run.key == rerank_key(identity, base, name.depth)


def _identity(project: Project, reranker: str) -> str | None:
    try:
        scorer = make_scorer(project, reranker)
    except WorkbenchError:  # its model or endpoint is gone from the config: its runs are stale
        return None
    scorer.close()
    return scorer.identity


def reranked_runs(project: Project, tier: Tier, store: RunStore) -> list[SystemRun]:
    """Stored reranked runs of this tier that are current (stale ones are left for a rerun to replace)."""
    identities: dict[str, str | None] = {}
    return [run for run in store.runs(tier)
            if SystemName.parse(run.system).kind == "rerank" and current_key(project, tier, run, store, identities)]
