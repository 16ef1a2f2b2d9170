"""A production retriever's own rankings, imported as a system `run:<name>` (TREC run or JSONL).

The imported file is kept as an ImportedRun under .workbench/imports/runs/<name>.json: per query,
the ranked DocIDs after mapping the file's IDs through the project's ID map. Per tier, it is
materialised as a SystemRun in the run store (so `eval`, `export-trec`, the inspector and the TUI
treat it like bm25), restricted to the tier's documents: documents outside the tier are removed
and the rest keep their order. That is what the production retriever would rank if its index held
only the tier, assuming its scores do not depend on the rest of the collection (exact for dense
similarity; for BM25-like scores the collection statistics would differ). A run imported for one
tier (`--tier`) is used on that tier only: how `export-trec` output round-trips exactly.

IDs not in the corpus (and query IDs not in the project) are reported by file and line and counted
in the record; they can never be gold, so scoring drops them like any out-of-tier document.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Literal

import msgspec

from workbench.errors import BadInput
from workbench.fsutil import atomic_write_bytes, log, safe_name, sha256_bytes
from workbench.project.files import Problem, Project, ProjectError, number_problem, text_lines
from workbench.records import Hit, RankedList, Tier
from workbench.access.runs import RunStore, SystemRun, run_key, tier_docs_hash, tier_hash
from workbench.project.labels import source_id_map  # noqa: F401 (its home is project/; importers reach it here)

IMPORTS_DIR = Path("imports") / "runs"
ALL_TIERS = "*"
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
    queries_without_ranking: int  # project queries the file has no line for (scored as empty rankings)
    problems: list[Problem]


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


# ------------------------------------------------------------------ store


def imports_dir(project: Project) -> Path:
    return project.state_dir / IMPORTS_DIR


def load_imported(project: Project, name: str) -> ImportedRun | None:
    """The stored import, or None when there is none."""
    return _decode_imported(imports_dir(project) / f"{safe_name(name)}.json")


def imported_runs(project: Project) -> list[ImportedRun]:
    d = imports_dir(project)
    runs = (_decode_imported(p) for p in sorted(d.glob("*.json"))) if d.exists() else ()
    return [r for r in runs if r is not None]


def _decode_imported(path: Path) -> ImportedRun | None:
    # By path, not by name: a name that is not a plain file name (run:NAME>rerank) is stored hashed.
    # A record that does not read (truncated by a kill, edited) is said in one line, never a run
    # that silently vanishes.
    try:
        return msgspec.json.decode(path.read_bytes(), type=ImportedRun)
    except FileNotFoundError:
        return None
    except (OSError, msgspec.DecodeError) as exc:
        log.warning("%s: the imported run does not read (%s); left out — import it again with "
                    "`workbench import-run`", path, str(exc)[:200])
        return None


def check_name(name: str) -> None:
    if not name or safe_name(name) != name:
        raise BadInput(f"run name {name!r}: use letters, digits, '.', '_' or '-'")


def import_run(
    project: Project, path: Path, name: str, fmt: RunFormat = "trec", tier: str | None = None, ids: IdSpace = "auto"
) -> ImportReport:
    """Read, map and store a production run (replacing that tier's part of a run of the same name).
    Malformed lines fail the import (nothing written); unknown IDs are reported and counted."""
    check_name(name)
    problems: list[Problem] = []
    raw = read_trec_run(path, problems) if fmt == "trec" else read_jsonl_run(path, problems)
    if problems:
        raise ProjectError(problems)
    space, mapping = choose_id_space(raw, project, ids)
    unknown: list[Problem] = []
    rankings, n_docs, n_queries = map_rankings(raw, project, mapping, str(path), unknown)
    part = tier or ALL_TIERS
    previous = load_imported(project, name)
    keep = previous is not None and previous.format == fmt and previous.id_space == space and part != ALL_TIERS
    base = previous if keep and previous is not None else None
    record = ImportedRun(
        name=name, format=fmt, id_space=space, imported_at=time.time(),  # type: ignore[arg-type]
        sources={**(base.sources if base else {}), part: str(path)},
        hashes={**(base.hashes if base else {}), part: sha256_bytes(msgspec.json.encode(rankings))[:16]},
        rankings={**(base.rankings if base else {}), part: rankings},
        unknown_doc_ids=n_docs, unknown_query_ids=n_queries,
    )
    atomic_write_bytes(imports_dir(project) / f"{safe_name(name)}.json", msgspec.json.encode(record))
    ranked = {r.query_id for r in rankings}
    return ImportReport(
        name=name, tier=part, id_space=space, queries=len(rankings), hits=sum(len(r.hits) for r in rankings),
        unknown_doc_ids=n_docs, unknown_query_ids=n_queries,
        queries_without_ranking=sum(q.query_id not in ranked for q in project.queries), problems=unknown,
    )


# ------------------------------------------------------------------ per tier


def restrict(hits: list[Hit], members: set[int]) -> list[Hit]:
    return [h for h in hits if h.doc_id in members]


def tier_run(project: Project, record: ImportedRun, tier: Tier, store: RunStore) -> SystemRun | None:
    """The imported run on one tier (from the run store if current), or None if it has no part for it.
    A tier query the file does not rank gets an empty ranking: it scores zero, never skipped."""
    part = tier.name if tier.name in record.rankings else ALL_TIERS if ALL_TIERS in record.rankings else None
    if part is None:
        return None
    key = run_key("import", record.name, part, record.hashes[part])
    cached = store.load_if_current(record.system, tier, key)
    if cached is not None and [r.query_id for r in cached.rankings] == list(tier.query_ids):
        return cached  # (a query added since is ranked empty by a new materialisation, below)
    members = set(tier.doc_ids)
    by_query = {r.query_id: r.hits for r in record.rankings[part]}
    rankings = [RankedList(q, restrict(by_query.get(q, []), members)) for q in tier.query_ids]
    run = SystemRun(record.system, tier.name, tier_hash(project, tier), key, max((len(r.hits) for r in rankings), default=0),
                    rankings, docs_hash=tier_docs_hash(project, tier))
    store.save(run)
    return run


def external_runs(project: Project, tier: Tier, store: RunStore) -> list[SystemRun]:
    """Every imported run's SystemRun on this tier (materialised and stored when not current)."""
    runs = (tier_run(project, record, tier, store) for record in imported_runs(project))
    return [r for r in runs if r is not None]
