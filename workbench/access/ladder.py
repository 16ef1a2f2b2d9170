"""The reference-corpus ladder (docs/METHOD.md §1): a fixed query set over a growing evidence pool.

  base:<d>      C_d       gold documents of domain d's queries, padded with same-domain documents
                          (that domain's hard negatives first, then the rest) up to the base budget
  mix:<d>:<S>   C_d^S     C_d ∪ Sample(∪_{d'≠d} C_d', S − |C_d|), without replacement
  shared        C^shared  Dedup(∪_d C_d)
  global:<S>    C^S       C^shared ∪ Sample(pool \\ C^shared, S − |C^shared|)
  full                    the whole pool

Budgets are tokens of the `[DocID=N]` serialisation counted with the project's tokenizer; a
tier of budget S holds at most S − prompt_overhead tokens so that it fits a window of S. Gold
documents are never dropped: if a domain's gold alone exceeds its budget the tier is just its gold.
Sampling uses one seeded permutation per (seed, tier family), so larger tiers contain smaller
ones and the same spec gives byte-identical tier files.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import msgspec

from workbench.errors import BadInput, WorkbenchError
from workbench.fsutil import atomic_write_bytes, set_aside, sha256_bytes
from workbench.project.files import Project, config_error
from workbench.project.load import appended_since, queries_seen
from workbench.records import LadderConfig, Query, Tier, TierKind, TierSet
from workbench.tokens import doc_tokens

TIERS_FILE = Path("tiers") / "tiers.json"


class StaleTiersError(WorkbenchError):
    title = "Tiers missing or stale"
    hint = "Build the ladder: `workbench ladder PROJECT` (Ctrl+B in the TUI)."


def spec_hash(config: LadderConfig, tokenizer: str) -> str:
    return sha256_bytes(msgspec.json.encode([config, tokenizer]))[:16]


def _permutation(ids: list[int], seed: int, family: str) -> list[int]:
    # String seeds hash deterministically in `random` (unlike hash()), independent of PYTHONHASHSEED.
    out = sorted(ids)
    random.Random(f"{seed}:{family}").shuffle(out)
    return out


@dataclass
class _Builder:
    project: Project
    tokens: dict[int, int]

    def total(self, ids) -> int:
        return sum(self.tokens[i] for i in ids)

    def fill(self, start: set[int], candidates: list[int], limit: int) -> set[int]:
        """Add candidates in order while they fit; skip one that does not, keep trying smaller ones."""
        members = set(start)
        used = self.total(members)
        for c in candidates:
            if c in members:
                continue
            if used + self.tokens[c] <= limit:
                members.add(c)
                used += self.tokens[c]
        return members

    def tier(self, name: str, kind: TierKind, budget: int, ids: set[int], query_ids: list[str], domain: str = "") -> Tier:
        docs = sorted(ids)
        return Tier(
            name=name,
            kind=kind,
            budget=budget,
            tokens=self.total(docs),
            doc_ids=docs,
            query_ids=query_ids,
            domains=sorted({self.project.documents[i].domain for i in docs}),
            domain=domain,
        )


def auto_global_budgets(shared_tokens: int, full_tokens: int) -> list[int]:
    """Doubling budgets between the shared tier and the full pool (skipping ones within 10% of full)."""
    budgets = []
    s = 1024
    while s <= shared_tokens:
        s *= 2
    while s < 0.9 * full_tokens:
        budgets.append(s)
        s *= 2
    return budgets


def build_ladder(project: Project) -> TierSet:
    cfg = project.config.ladder
    tokenizer = project.config.tokenizer
    b = _Builder(project, {i: doc_tokens(d, tokenizer) for i, d in project.documents.items()})
    overhead = cfg.prompt_overhead

    by_domain_queries: dict[str, list] = {}
    for q in project.queries:
        by_domain_queries.setdefault(q.domain, []).append(q)
    docs_by_domain: dict[str, list[int]] = {}
    for i, doc in project.documents.items():
        docs_by_domain.setdefault(doc.domain, []).append(i)
    # A domain with queries but no documents (an unlabelled query pasted from a log with a domain of
    # its own) has no base tier: its queries are evaluated on the shared, global and full tiers.
    domains = sorted(d for d in by_domain_queries if d in docs_by_domain or any(q.gold_doc_ids for q in by_domain_queries[d]))

    tiers: list[Tier] = []
    base: dict[str, set[int]] = {}
    for d in domains:
        qs = by_domain_queries[d]
        gold = {g for q in qs for g in q.gold_doc_ids}
        negatives = sorted({n for q in qs for n in q.hard_negative_ids if project.documents[n].domain == d} - gold)
        others = sorted(set(docs_by_domain.get(d, [])) - gold - set(negatives))
        candidates = _permutation(negatives, cfg.seed, f"base-hn:{d}") + _permutation(others, cfg.seed, f"base:{d}")
        base[d] = b.fill(gold, candidates, cfg.base_budget - overhead)
        tiers.append(b.tier(f"base:{d}", "base", cfg.base_budget, base[d], [q.query_id for q in qs], d))

    for size in sorted(cfg.mixing_budgets):
        for d in domains:
            other = sorted(set().union(*(base[o] for o in domains if o != d)) - base[d]) if len(domains) > 1 else []
            members = b.fill(base[d], _permutation(other, cfg.seed, f"mix:{d}"), size - overhead)
            tiers.append(b.tier(f"mix:{d}:{size}", "mix", size, members, [q.query_id for q in by_domain_queries[d]], d))

    all_queries = [q.query_id for q in project.queries]
    shared = set().union(*base.values()) if base else set()
    if len(domains) > 1:
        tiers.append(b.tier("shared", "shared", b.total(shared), shared, all_queries))

    full = set(project.documents)
    full_tokens = b.total(full)
    budgets = sorted(cfg.global_budgets) or auto_global_budgets(b.total(shared), full_tokens)
    rest = _permutation(sorted(full - shared), cfg.seed, "global")
    too_small = [s for s in cfg.global_budgets if s - overhead < b.total(shared)]
    if too_small:  # a global tier holds the shared one whole: it would exceed its budget
        raise config_error(project.root, "ladder.global_budgets",
                           f"{too_small} cannot hold the shared tier ({b.total(shared)} tokens + prompt_overhead "
                           f"{overhead}): each must be at least {b.total(shared) + overhead}")
    for size in budgets:
        if size - overhead >= full_tokens:
            continue  # the full tier covers it
        tiers.append(b.tier(f"global:{size}", "global", size, b.fill(shared, rest, size - overhead), all_queries))
    tiers.append(b.tier("full", "full", full_tokens, full, all_queries))
    return TierSet(spec_hash=spec_hash(cfg, tokenizer), corpus_hash=project.corpus_hash(), tiers=tiers)


def tiers_path(project: Project) -> Path:
    return project.state_dir / TIERS_FILE


def write_ladder(project: Project) -> TierSet:
    tierset = build_ladder(project)
    atomic_write_bytes(tiers_path(project), msgspec.json.encode(tierset))
    return tierset


def load_tiers(project: Project) -> TierSet:
    """The project's tiers; StaleTiersError if missing or built from another corpus/spec."""
    path = tiers_path(project)
    if not path.exists():
        raise StaleTiersError("no tiers yet: run `workbench ladder`")
    try:
        tierset = msgspec.json.decode(path.read_bytes(), type=TierSet)
    except msgspec.DecodeError as exc:  # truncated or foreign: derived state, so rebuild it
        set_aside(path, f"does not load ({exc})")
        raise StaleTiersError(f"{path} was damaged: run `workbench ladder`") from None
    if tierset.spec_hash != spec_hash(project.config.ladder, project.config.tokenizer):
        raise StaleTiersError("tiers were built from another ladder spec: run `workbench ladder`")
    if tierset.corpus_hash != project.corpus_hash():
        raise StaleTiersError("tiers were built from another version of the corpus: run `workbench ladder`")
    # set operations, not a lookup per DocID (the documents' IDs are known without parsing them)
    known = frozenset(project.documents.keys())
    unknown = sorted({i for t in tierset.tiers if not known.issuperset(t.doc_ids) for i in t.doc_ids if i not in known})
    if unknown:  # hashes match but the content does not: edited or damaged derived state
        set_aside(path, f"lists DocID(s) not in the corpus: {unknown[:5]}")
        raise StaleTiersError(f"{path} was damaged: run `workbench ladder`")
    return tierset


class _Built:
    """The tier set this process last loaded or wrote for a project, and the queries it covers."""

    __slots__ = ("tierset", "seen", "documents_hash")

    def __init__(self, tierset: TierSet, project: Project) -> None:
        self.tierset, self.seen, self.documents_hash = tierset, queries_seen(project.queries), project.documents_hash()

    def appended(self, project: Project) -> list[Query] | None:
        """The queries added at the end since, or None (another corpus, or the queries changed otherwise)."""
        if self.documents_hash != project.documents_hash():
            return None
        return appended_since(self.seen, project.queries)


_BUILT: dict[str, _Built] = {}


def extend_ladder(tierset: TierSet, project: Project, new: list[Query]) -> TierSet | None:
    """The ladder with ``new`` (appended) queries added to the tiers build_ladder would put them on,
    without rebuilding it — or None when one of them changes what a tier holds (it has gold or
    negatives, or opens a domain with documents but no base tier yet). Production's queries, added
    unlabelled by every trace batch of a live collection, so cost their own ids, not the corpus."""
    by_name = {t.name for t in tierset.tiers}
    document_domains = set(project.domains)
    per_domain: dict[str, list[str]] = {}
    everyone: list[str] = []
    for q in new:
        if q.gold_doc_ids or q.hard_negative_ids:
            return None
        if f"base:{q.domain}" in by_name:
            per_domain.setdefault(q.domain, []).append(q.query_id)
        elif q.domain in document_domains:
            return None
        everyone.append(q.query_id)
    tiers = []
    for t in tierset.tiers:
        extra = everyone if t.kind in ("shared", "global", "full") else per_domain.get(t.domain, [])
        tiers.append(msgspec.structs.replace(t, query_ids=t.query_ids + extra) if extra else t)
    return TierSet(spec_hash=tierset.spec_hash, corpus_hash=project.corpus_hash(), tiers=tiers)


def ensure_tiers(project: Project) -> TierSet:
    """The project's tiers: as stored, extended by the unlabelled queries appended since this process
    last read them (extend_ladder), or rebuilt."""
    key = str(project.root)
    built = _BUILT.get(key)
    if built is not None and built.tierset.spec_hash == spec_hash(project.config.ladder, project.config.tokenizer):
        new = built.appended(project)
        if new is not None and not new and built.tierset.corpus_hash == project.corpus_hash():
            return built.tierset
        extended = extend_ladder(built.tierset, project, new) if new else None
        if extended is not None:
            atomic_write_bytes(tiers_path(project), msgspec.json.encode(extended))
            _BUILT[key] = _Built(extended, project)
            return extended
    try:
        tierset = load_tiers(project)
    except StaleTiersError:
        tierset = write_ladder(project)
    _BUILT[key] = _Built(tierset, project)
    return tierset


def select_tiers(tierset: TierSet, spec: str) -> list[Tier]:
    """`all`, or a comma list of tier names / kinds (`base`, `global`, …)."""
    if spec in ("", "all"):
        return list(tierset.tiers)
    wanted = [s.strip() for s in spec.split(",") if s.strip()]
    names = {t.name for t in tierset.tiers}
    kinds = {t.kind for t in tierset.tiers}
    unknown = [w for w in wanted if w not in names and w not in kinds]
    if unknown:
        raise BadInput(f"unknown tier(s) {unknown}; known: {sorted(names)} or kinds {sorted(kinds)}")
    return [t for t in tierset.tiers if t.name in wanted or t.kind in wanted]
