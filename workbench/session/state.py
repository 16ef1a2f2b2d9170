"""The session's state (what the front end derived so far): open, build, evaluate, inspect."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from workbench.access.evaluate import SystemResult
from workbench.access.indexing import IndexKind, build_indexes, index_status
from workbench.access.ladder import StaleTiersError, load_tiers, write_ladder
from workbench.access.retrievers import make_retrievers, preferred
from workbench.access.runs import RunStore
from workbench.diagnosis.recommend import Recommendation
from workbench.diagnosis.live import LiveDiagnosis
from workbench.inspection.evidence import ModelEvidence
from workbench.inspection.rankings import QueryInspection, inspect_query
from workbench.llm.figures import UseTable
from workbench.llm.figures import use_table as _use_table
from workbench.progress import Progress, no_progress
from workbench.project.files import Project
from workbench.project.load import load_project
from workbench.project.visit import LabelVisit
from workbench.records import ModelConfig, Query, QueryAccess, Tier, TierSet
from workbench.project.settings import access_k

if TYPE_CHECKING:
    pass


INSPECTION_CACHE = 64  # inspections kept per session: switching tiers back and forth re-reads nothing


@dataclass
class Session:
    """The open project and what the front end has derived from it so far."""

    root: Path
    project: Project
    tierset: TierSet | None = None
    results: list[SystemResult] = field(default_factory=list)
    # system -> tier -> query_id -> QueryAccess
    per_query: dict[str, dict[str, dict[str, QueryAccess]]] = field(default_factory=dict)
    use: UseTable | None = None
    # (query_id, tier) -> {system: ModelEvidence} produced or loaded in this session
    model_results: dict[tuple[str, str], dict[str, ModelEvidence]] = field(default_factory=dict)
    # labelling undo stack: (version before, version made) per closed visit's version, newest last
    label_history: list[tuple[str, str]] = field(default_factory=list)
    visit: LabelVisit | None = None  # the inspector visit's labelling: its one open version
    _worked_on: str | None = None  # the version the last labelling change left (before the front end installs it)
    _label_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)  # one labelling change at a time
    _visit_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)  # held only while one is written
    diagnosis: LiveDiagnosis | None = None  # verdicts per query (diagnose); one query recomputed after a run
    chosen_verdict_system: str | None = None  # the user's choice (y); None: the diagnosis' default
    # (verdict system, its overall recommendations with command, judge, effect): load_recommendations
    recommended: tuple[str, list[Recommendation]] | None = None
    _inspections: OrderedDict[tuple, QueryInspection] = field(default_factory=OrderedDict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    # which queries each tier asks, a set per tier, for the tier set it was made from (asks)
    _members: tuple[TierSet | None, dict[str, frozenset[str]]] | None = field(default=None, repr=False)

    @property
    def k(self) -> int:
        """K of every access figure the front end shows ("SR@K", "top K"): the project's, from settings."""
        return access_k(self.project)

    @property
    def tiers(self) -> list[Tier]:
        return list(self.tierset.tiers) if self.tierset else []

    def tier(self, name: str) -> Tier:
        return next(t for t in self.tiers if t.name == name)

    def tiers_for(self, query_id: str) -> list[Tier]:
        return [t for t in self.tiers if self.asks(t, query_id)]

    def asks(self, tier: Tier, query_id: str) -> bool:
        """Is the query asked on this tier: a set per tier, made once per tier set (a list lookup per
        query and tier cost the query list seconds at 100,000 production queries)."""
        memo = self._members
        if memo is None or memo[0] is not self.tierset:
            memo = self._members = (self.tierset, {t.name: frozenset(t.query_ids) for t in self.tiers})
        return query_id in memo[1].get(tier.name, ())

    @property
    def systems(self) -> list[str]:
        return list(self.per_query)

    @property
    def best_retriever(self) -> str:
        """The retriever that stands for access when one must (the most preferred one evaluated)."""
        return next(iter(preferred(self.systems)), preferred()[0])

    def set_results(self, results: list[SystemResult]) -> None:
        self.results = results
        per: dict[str, dict[str, dict[str, QueryAccess]]] = {}
        for r in results:
            per.setdefault(r.system, {})[r.tier] = {q.query_id: q for q in r.per_query}
        self.per_query = per

    def access(self, system: str, tier: str, query_id: str) -> QueryAccess | None:
        return self.per_query.get(system, {}).get(tier, {}).get(query_id)

    def system_on(self, system: str, tier: str) -> str:
        """The system whose figures stand for ``system`` on ``tier``: itself once it has results
        there, else the most preferred one that has (while a build runs, hybrid exists on a few
        tiers only; the other tiers keep BM25's figures rather than going blank)."""
        if tier in self.per_query.get(system, {}):
            return system
        there = [name for name, tiers in self.per_query.items() if tier in tiers]
        return next(iter(preferred(there)), there[0] if there else system)

    def stand_ins(self, system: str) -> dict[str, str]:
        """Tier -> the system standing in for ``system`` there (only where one does)."""
        out = {}
        for t in self.tiers:
            other = self.system_on(system, t.name)
            if other != system and other in self.per_query:
                out[t.name] = other
        return out

    def figure(self, system: str, tier: str, query: Query) -> float | None:
        """The query's headline access figure: SR@K, the share of its gold documents in the top K
        (1 = all, FR@K = 1 too; between 0 and 1 = some, the half-circle; 0 = none). FR@K (0 or 1)
        would hide a multi-source query that found some of its gold."""
        a = self.access(self.system_on(system, tier), tier, query.query_id)
        if a is None:
            return None
        return a.sr_at_k

    def breaks_at(self, system: str, query: Query) -> int | None:
        """Index (ladder order) of the first tier where the query's figure drops below 1."""
        for n, t in enumerate(self.tiers):
            if not self.asks(t, query.query_id):
                continue  # another domain's tier: the query is not asked there
            f = self.figure(system, t.name, query)
            if f is not None and f < 1.0:
                return n
        return None

    def models(self) -> list[tuple[str, ModelConfig]]:
        from workbench.llm.providers import DEFAULT_MODEL

        configured = list(self.project.config.models.items())
        return configured or [(DEFAULT_MODEL, ModelConfig())]

    def model_config(self, name: str) -> ModelConfig:
        return dict(self.models())[name]

    def merge_results(self, query_id: str, tier: str, results: dict[str, ModelEvidence]) -> None:
        self.model_results.setdefault((query_id, tier), {}).update(results)


def open_session(root: Path, queries_version: str | None = None) -> tuple[Session, list[str]]:
    """Load the project (with that query-set version's queries: tiers stay the original's, so
    choosing a version never makes them stale) and report what is missing or stale."""
    project = load_project(root, queries_version)
    session = Session(root=Path(root), project=project)
    stale: list[str] = []
    try:
        session.tierset = load_tiers(project)
    except StaleTiersError as exc:
        stale.append(str(exc).split(":")[0])
        return session, stale
    bad = [f"{kind} index of {t.name} is {s}" for t in session.tiers for kind, s in index_status(project, t).items() if s != "ok"]
    if bad:
        stale.append(bad[0] + (f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""))
    return session, stale


def build(session: Session, progress: Progress = no_progress,
          ready: Callable[[IndexKind, list[str]], None] | None = None) -> str:
    """Tiers (if stale) and every missing/stale index. Returns a one-line summary.

    ``ready(kind, tier names)`` is called as indexes become usable (every sparse one first, then
    dense tier by tier, smallest first), so a caller can evaluate what is there already. A front
    end that keeps the session on one thread calls the two steps itself (ladder_of, then
    build_indexes_of) and installs the tier set between them."""
    session.tierset = ladder_of(session.project, progress)
    return build_indexes_of(session.project, session.tiers, progress, ready)


def ladder_of(project: Project, progress: Progress = no_progress) -> TierSet:
    """The project's tier set: the stored one while current, else the ladder written afresh (blocking)."""
    try:
        return load_tiers(project)
    except StaleTiersError:
        progress("ladder", 0, 1)
        tierset = write_ladder(project)
        progress("ladder", 1, 1)
        return tierset


def build_indexes_of(project: Project, tiers: list[Tier], progress: Progress = no_progress,
                     ready: Callable[[IndexKind, list[str]], None] | None = None) -> str:
    """Every missing or stale index of these tiers (blocking); the one-line summary."""
    done = build_indexes(project, tiers, progress=progress, ready=ready)
    return f"built {len(done['built'])} index(es), {len(done['kept'])} already current"


def evaluate_all(session: Session, progress: Progress = no_progress) -> list[SystemResult]:
    """Every registered retriever whose indexes are built, and every stored model run, on every
    tier of the session, at the project's `[retrievers] k`. While a background build runs, dense
    systems join tier by tier."""
    from workbench.session.evaluation import evaluate_systems  # the one evaluation `eval` runs too

    p = session.project
    return evaluate_systems(p, session.tiers, make_retrievers(p), k=session.k, progress=progress, built_only=True)


def use_table(project: Project, tiers: list[Tier]) -> UseTable | None:
    """Use-side rows (QA, oracle, rag per tier × model system) from stored runs, and a verdict
    on each judge behind them; None when no model has run on these tiers."""
    return _use_table(project, tiers)


def inspect(session: Session, query_id: str, tier_name: str) -> QueryInspection:
    """One query on one tier (rankings, gold ranks, near misses with their word diffs).

    Cached per (query, tier, stored runs of the tier): a new or rewritten run misses."""
    tier, query = session.tier(tier_name), session.project.query(query_id)
    store = RunStore(session.project)
    key = (query_id, tier_name, store.fingerprint(tier_name))
    with session._lock:
        hit = session._inspections.get(key)
        if hit is not None:
            session._inspections.move_to_end(key)
            return hit
    # one query's span of each stored run of this tier, not whole files (workbench/access/runs.py)
    ins = inspect_query(session.project, tier, query, store.query_rankings(tier, query_id))
    with session._lock:
        session._inspections[key] = ins
        while len(session._inspections) > INSPECTION_CACHE:
            session._inspections.popitem(last=False)
    return ins


def ranks_before(session: Session, query_id: str, tier_name: str, system: str) -> dict[int, int] | None:
    """For a reranked system: each document's rank under its base on this tier (``#16 → #3``); None otherwise."""
    from workbench.inspection.movement import ranks_before as before

    hits = RunStore(session.project).query_rankings(session.tier(tier_name), query_id)
    return before({s: [h.doc_id for h in hs] for s, hs in hits.items()}, system)


