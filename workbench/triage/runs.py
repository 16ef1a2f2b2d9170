"""A production retriever's own rankings, imported as a system `run:<name>` (TREC run or JSONL).

Each query's ranked DocIDs (after mapping the file's IDs through the project's ID map) are added to
the production ledger (triage/ledger.py) beside what traces and other imports said; the ImportedRun
is the ledger's view of run:<name> (per query, the latest ranking from any source). Per tier, it is
materialised as a SystemRun in the run store (so `eval`, `export-trec`, the inspector and the TUI
treat it like bm25), restricted to the tier's documents: documents outside the tier are removed
and the rest keep their order. That is what the production retriever would rank if its index held
only the tier, assuming its scores do not depend on the rest of the collection (exact for dense
similarity; for BM25-like scores the collection statistics would differ). A run imported for one
tier (`--tier`) is used on that tier only: how `export-trec` output round-trips exactly. Only the
queries production served are in it: the rest are "not served", never scored as empty rankings.

IDs not in the corpus (and query IDs not in the project) are reported by file and line and counted
in the record; they can never be gold, so scoring drops them like any out-of-tier document.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import msgspec

from workbench.errors import BadInput
from workbench.fsutil import safe_name, sha256_bytes
from workbench.project.files import Problem, Project, ProjectError, number_problem, text_lines
from workbench.records import Hit, RankedList, Tier
from workbench.access.runs import RunStore, SystemRun, run_key, tier_docs_hash, tier_hash
from workbench.triage.ledger import ALL_TIERS
from workbench.project.labels import source_id_map  # noqa: F401 (its home is project/; importers reach it here)

IMPORTS_DIR = Path("imports") / "runs"
SYSTEM_PREFIX = "run:"
RunFormat = Literal["trec", "jsonl"]
IdSpace = Literal["auto", "source", "docid"]


class RawRanked(msgspec.Struct, frozen=True):
    """One query's ranking as read from the file, before ID mapping."""

    query_id: str
    ids: list[str]
    scores: list[float]
    lines: list[int]  # the file line of each ID (JSONL: the query's line for all)


class ImportedRun(msgspec.Struct, frozen=True):
    name: str
    format: RunFormat
    id_space: Literal["source", "docid"]
    imported_at: float
    # tier name (or "*" = every tier, restricted) → source file, its hash, its rankings
    sources: dict[str, str]
    hashes: dict[str, str]
    rankings: dict[str, list[RankedList]]
    unknown_doc_ids: int = 0
    unknown_query_ids: int = 0
    order: dict[str, dict[str, int]] = {}  # part → query → its ledger row (on a tier, the latest of its parts wins)
    depths: dict[str, dict[str, int]] = {}  # part → query → the depth its ranking was truncated at
    unknown: dict[str, list[str]] = {}  # part → queries whose ranking is unknown (unresolved documents)

    @property
    def system(self) -> str:
        return SYSTEM_PREFIX + self.name


class ImportReport(msgspec.Struct, frozen=True):
    name: str
    tier: str
    id_space: str
    queries: int
    hits: int
    unknown_doc_ids: int
    unknown_query_ids: int
    queries_without_ranking: int  # project queries run:NAME has no ranking for: not served, left out of its figures
    problems: list[Problem]
    changes: list[str] = []  # queries whose ranking came from another source before (ledger.Change lines)
    kept: int = 0  # rankings the ledger held already (not added twice)


# ------------------------------------------------------------------ reading


def read_trec_run(path: Path, problems: list[Problem]) -> list[RawRanked]:
    """`qid Q0 docid rank score tag` lines. Order within a query: score descending, then the rank
    column, then file order (what trec_eval does, with ties kept as written)."""
    rows: dict[str, list[tuple[float, int, int, str]]] = {}
    name = str(path)
    for lineno, line in text_lines(path, problems):  # a BOM is no content; non-UTF-8 is reported by line
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 6:
            problems.append(Problem(name, lineno, None, f"expected 6 columns (qid Q0 docid rank score tag), found {len(parts)}"))
            continue
        qid, _, doc, rank, score = parts[:5]
        try:
            r, s = int(rank), float(score)
        except ValueError:
            problems.append(Problem(name, lineno, "rank/score", f"not a number: {rank!r} / {score!r}"))
            continue
        if why := number_problem(s):
            problems.append(Problem(name, lineno, "score", why))
            continue
        rows.setdefault(qid, []).append((-s, r, lineno, doc))
    out = []
    for qid, items in rows.items():
        items.sort()
        out.append(RawRanked(qid, [d for *_, d in items], [-s for s, *_ in items], [ln for _, _, ln, _ in items]))
    return out


class _JsonlLine(msgspec.Struct):
    query_id: str | int
    ranked: list[str | int]
    scores: list[float] | None = None


def read_jsonl_run(path: Path, problems: list[Problem]) -> list[RawRanked]:
    """`{query_id, ranked: [ids], scores?: [numbers]}` per line; ranked is in rank order."""
    from workbench.project.files import iter_jsonl

    out: dict[str, RawRanked] = {}
    for lineno, row in iter_jsonl(path, _JsonlLine, problems):
        ids = [str(i) for i in row.ranked]
        if row.scores is not None and len(row.scores) != len(ids):
            problems.append(Problem(str(path), lineno, "scores", f"{len(row.scores)} scores for {len(ids)} ranked IDs"))
            continue
        if str(row.query_id) in out:
            problems.append(Problem(str(path), lineno, "query_id", f"repeated query {str(row.query_id)!r}"))
            continue
        scores = list(row.scores) if row.scores is not None else [float(len(ids) - i) for i in range(len(ids))]
        out[str(row.query_id)] = RawRanked(str(row.query_id), ids, scores, [lineno] * len(ids))
    return list(out.values())


# ------------------------------------------------------------------ ID mapping


def docid_map(project: Project) -> dict[str, int]:
    return {str(i): i for i in project.documents}


def choose_id_space(raw: list[RawRanked], project: Project, wanted: IdSpace) -> tuple[str, dict[str, int]]:
    """auto: the space (source ids or DocIDs) in which more of the file's IDs resolve; ties → source."""
    spaces = {"source": source_id_map(project), "docid": docid_map(project)}
    if wanted != "auto":
        return wanted, spaces[wanted]
    ids = [i for r in raw for i in r.ids]
    src = sum(i in spaces["source"] for i in ids)
    doc = sum(i in spaces["docid"] for i in ids)
    space = "source" if src >= doc else "docid"
    return space, spaces[space]


def map_rankings(
    raw: list[RawRanked], project: Project, mapping: dict[str, int], file: str, problems: list[Problem]
) -> tuple[list[RankedList], int, int]:
    """Rankings in DocIDs; every unknown doc or query ID becomes a Problem (file:line). Returns
    (rankings, unknown doc IDs, unknown query IDs)."""
    known_queries = {q.query_id for q in project.queries}
    out, unknown_docs, unknown_queries = [], 0, 0
    for r in raw:
        if r.query_id not in known_queries:
            unknown_queries += 1
            problems.append(Problem(file, r.lines[0] if r.lines else None, "query_id", f"query {r.query_id!r} is not in the project"))
            continue
        hits = []
        for doc, score, line in zip(r.ids, r.scores, r.lines):
            if doc in mapping:
                hits.append(Hit(mapping[doc], score))
            else:
                unknown_docs += 1
                problems.append(Problem(file, line, "doc_id", f"document {doc!r} (query {r.query_id!r}) is not in the corpus"))
        out.append(RankedList(r.query_id, hits))
    return out, unknown_docs, unknown_queries


# ------------------------------------------------------------------ the ledger's view


def imports_dir(project: Project) -> Path:
    """Where import records were kept before the ledger (read once into it: ledger.migrate)."""
    return project.state_dir / IMPORTS_DIR


RERANK_SUFFIX = ">rerank"  # run:NAME>rerank: the reranked lists of run:NAME's traces


def record_of(project: Project, name: str) -> ImportedRun | None:
    """run:NAME's rankings (or, for NAME>rerank, its traces' reranked lists) as the ledger's view
    holds them now, or None when it holds none."""
    from workbench.triage import ledger

    base, rerank = (name[: -len(RERANK_SUFFIX)], True) if name.endswith(RERANK_SUFFIX) else (name, False)
    v = ledger.view(project, base)
    slot = "reranked" if rerank else "ranking"
    parts = v.parts(slot)  # type: ignore[arg-type]
    if not parts:
        return None
    rankings: dict[str, list[RankedList]] = {}
    order: dict[str, dict[str, int]] = {}
    depths: dict[str, dict[str, int]] = {}
    unknown: dict[str, list[str]] = {}
    sources: dict[str, str] = {}
    hashes: dict[str, str] = {}
    newest = 0.0
    for part in parts:
        rows = sorted(v.slot(slot, part).values(), key=lambda r: r.id)  # type: ignore[arg-type]
        got = [(r, r.entry.reranked if rerank else r.entry.ranking) for r in rows]
        rankings[part] = [RankedList(r.entry.query_id, list(hits)) for r, hits in got if hits is not None and not (r.entry.unresolved and not rerank)]
        unknown[part] = [] if rerank else [r.entry.query_id for r in rows if r.entry.unresolved]
        order[part] = {r.entry.query_id: r.id for r in rows}
        depths[part] = {} if rerank else {r.entry.query_id: r.entry.depth for r in rows if r.entry.depth is not None}
        sources[part] = rows[-1].source
        newest = max(newest, rows[-1].added_at)
        hashes[part] = sha256_bytes(msgspec.json.encode([rankings[part], depths[part], unknown[part]]))[:16]
    doors = {r.door for part in parts for r in v.slot(slot, part).values()}  # type: ignore[arg-type]
    info = v.latest_info("import-run")
    from_file = doors == {"import-run"} and info is not None
    return ImportedRun(
        name=name, format=info.format if from_file and info else "jsonl",  # type: ignore[arg-type]
        id_space=info.id_space if from_file and info else "source",  # type: ignore[arg-type]
        imported_at=newest, sources=sources, hashes=hashes, rankings=rankings,
        unknown_doc_ids=info.unknown_doc_ids if info and not rerank else 0,
        unknown_query_ids=info.unknown_query_ids if info and not rerank else 0,
        order=order, depths=depths, unknown=unknown)


def load_imported(project: Project, name: str) -> ImportedRun | None:
    """The run as the ledger holds it now, or None when there is none."""
    return record_of(project, name)


def imported_runs(project: Project) -> list[ImportedRun]:
    """Every production run the ledger holds: run:NAME and, where traces had a reranker, run:NAME>rerank."""
    from workbench.triage import ledger

    out = []
    for name in ledger.names(project):
        for n in (name, name + RERANK_SUFFIX):
            record = record_of(project, n)
            if record is not None:
                out.append(record)
    return out


def check_name(name: str) -> None:
    if not name or safe_name(name) != name:
        raise BadInput(f"run name {name!r}: use letters, digits, '.', '_' or '-'")


def import_run(
    project: Project, path: Path, name: str, fmt: RunFormat = "trec", tier: str | None = None, ids: IdSpace = "auto"
) -> ImportReport:
    """Read, map and add a production run to the ledger: each query's ranking becomes run:NAME's
    (on ``tier`` only, or every tier), replacing what an earlier source said for it (reported).
    Malformed lines fail the import (nothing written); unknown IDs are reported and counted."""
    from workbench.triage import ledger

    check_name(name)
    problems: list[Problem] = []
    raw = read_trec_run(path, problems) if fmt == "trec" else read_jsonl_run(path, problems)
    if problems:
        raise ProjectError(problems)
    space, mapping = choose_id_space(raw, project, ids)
    unknown: list[Problem] = []
    rankings, n_docs, n_queries = map_rankings(raw, project, mapping, str(path), unknown)
    part = tier or ALL_TIERS
    rows = [ledger.NewRow("import-run", str(path), ledger.Entry(r.query_id, ranking=r.hits), part) for r in rankings]
    info = ledger.ImportInfo(fmt, space, n_docs, n_queries)
    added = ledger.add(project, name, rows, [("import-run", str(path), part, info)])
    served = set(served_queries(project, SYSTEM_PREFIX + name))
    return ImportReport(
        name=name, tier=part, id_space=space, queries=len(rankings), hits=sum(len(r.hits) for r in rankings),
        unknown_doc_ids=n_docs, unknown_query_ids=n_queries,
        queries_without_ranking=sum(q.query_id not in served for q in project.queries), problems=unknown,
        changes=[c.line() for c in added.changes], kept=added.kept,
    )


def served_queries(project: Project, system: str) -> list[str]:
    """The queries production served under ``system`` (run:NAME, run:NAME>rerank): those it has a
    ranking for, known or not (a ranking that could not be resolved was served, unknown). Every
    other query is "not served": never scored, never a failure."""
    record = load_imported(project, system.removeprefix(SYSTEM_PREFIX))
    if record is None:
        return []
    got = {q for part in record.order.values() for q in part}
    return [q.query_id for q in project.queries if q.query_id in got]


# ------------------------------------------------------------------ per tier


def restrict(hits: list[Hit], members: set[int]) -> list[Hit]:
    return [h for h in hits if h.doc_id in members]


def tier_run(project: Project, record: ImportedRun, tier: Tier, store: RunStore) -> SystemRun | None:
    """The imported run on one tier (stored in the run store when it changed), or None if it has no
    part for it. It holds the queries production served only (a query it never ranked is not
    served, not an empty ranking); a ranking that is unknown (unresolved documents) is left out and
    named in ``unknown``; a truncated one keeps its depth (``depths``: nothing is claimed past it)."""
    parts = [p for p in (tier.name, ALL_TIERS) if p in record.order]
    if not parts:
        return None
    latest: dict[str, tuple[int, list[Hit] | None, int | None]] = {}
    for p in parts:
        hits_of = {r.query_id: r.hits for r in record.rankings.get(p, [])}
        for qid, rid in record.order[p].items():
            if qid not in latest or latest[qid][0] < rid:  # a tier's own import and every tier's: the latest
                latest[qid] = (rid, hits_of.get(qid), record.depths.get(p, {}).get(qid))
    members = set(tier.doc_ids)
    rankings, depths, unknown = [], {}, []
    for q in tier.query_ids:
        if q not in latest:
            continue  # not served
        _, hits, depth = latest[q]
        if hits is None:
            unknown.append(q)
            continue
        kept = restrict(hits, members)
        rankings.append(RankedList(q, kept))
        if depth is not None:
            depths[q] = len(restrict(hits[:depth], members))  # past it, production's ranking says nothing
    key = run_key("import", record.name, SERVED_ONLY, [(p, record.hashes[p]) for p in parts])
    run = SystemRun(record.system, tier.name, tier_hash(project, tier), key, max((len(r.hits) for r in rankings), default=0),
                    rankings, docs_hash=tier_docs_hash(project, tier), depths=depths, unknown=unknown)
    cached = store.load_if_current(record.system, tier, key)
    if cached is not None and cached.rankings == run.rankings and cached.unknown == unknown and cached.depths == depths:
        return cached
    store.save(run)
    return run


SERVED_ONLY = 2  # the stored form's version: served queries only, with depths and unknown rankings


def external_runs(project: Project, tier: Tier, store: RunStore) -> list[SystemRun]:
    """Every production run's SystemRun on this tier, as the ledger holds it now (stored when it changed)."""
    runs = (tier_run(project, record, tier, store) for record in imported_runs(project))
    return [r for r in runs if r is not None]
