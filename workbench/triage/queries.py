"""A failing query from a production log, added to the project and run through every retriever.

`add_query` appends the query to the project's queries.jsonl (validated, written atomically) and
records who added it and when in PROJECT/query_edits.jsonl, an append-only log of changes to the
query set itself (labels go to query-set versions, workbench/project/labels.py). `refresh` brings tiers,
indexes and stored rankings up to date: indexes depend on documents only and rankings of unchanged
queries are reused, so only the new query is searched.
"""

from __future__ import annotations

import getpass
import os
from pathlib import Path
from typing import Any, Literal

import msgspec

from workbench.fsutil import append_record, append_whole, project_lock
from workbench.project.files import QUERIES_FILE, Problem, Project, ProjectError, encode_jsonl, query_problems, validate
from workbench.project.load import load_project
from workbench.project.versions import now_utc
from workbench.records import Query

EDITS_FILE = "query_edits.jsonl"
ADDED_STEM = "added"


class QueryEdit(msgspec.Struct, frozen=True, omit_defaults=True):
    """One change to queries.jsonl made from the workbench (not by an import)."""

    at: str  # ISO-8601 UTC
    by: str  # "user:<name>"
    action: Literal["add_query", "edit_answer"]
    query_id: str
    before: Any = None
    after: Any = None


def who() -> str:
    """The person behind a change: $WORKBENCH_USER, else the login name."""
    name = os.environ.get("WORKBENCH_USER") or ""
    if not name:
        try:
            name = getpass.getuser()
        except (KeyError, OSError):
            name = "unknown"
    return f"user:{name}"


def append_edit(root: Path, edit: QueryEdit) -> None:
    """Append one line (never interleaved with another writer's, never rewritten, never outside
    the project; after a torn last line it starts a new one)."""
    append_record(Path(root) / EDITS_FILE, Path(root), msgspec.json.encode(edit))


def read_edits(root: Path) -> list[QueryEdit]:
    from workbench.project.files import iter_jsonl

    path = Path(root) / EDITS_FILE
    if not path.exists():
        return []
    problems: list[Problem] = []
    edits = [e for _, e in iter_jsonl(path, QueryEdit, problems)]
    if problems:
        raise ProjectError(problems)
    return edits


def write_queries(project: Project, queries: list[Query]) -> None:
    """Validate against the corpus, then replace queries.jsonl atomically (documents untouched)."""
    from workbench.fsutil import atomic_write_bytes

    path = project.root / QUERIES_FILE
    problems = validate([(0, d) for d in project.documents.values()], list(enumerate(queries, 1)), "documents", str(path))
    if problems:
        raise ProjectError(problems)
    atomic_write_bytes(path, encode_jsonl(queries))


def resolve_doc_ids(project: Project, values: list[str], option: str) -> list[int]:
    """IDs as the user knows them (source ids, else DocIDs) → DocIDs; unknown → ProjectError."""
    from workbench.triage.runs import docid_map, source_id_map

    source, docids = source_id_map(project), docid_map(project)
    out, problems = [], []
    for v in values:
        if v in source:
            out.append(source[v])
        elif v in docids:
            out.append(docids[v])
        else:
            problems.append(Problem(option, None, None, f"document {v!r} is not in the corpus (neither a source id nor a DocID)"))
    if problems:
        raise ProjectError(problems)
    return list(dict.fromkeys(out))


def next_query_id(project: Project, stem: str = ADDED_STEM) -> str:
    taken = {q.query_id for q in project.queries}
    n = 1
    while f"{stem}-{n}" in taken:
        n += 1
    return f"{stem}-{n}"


def default_domain(project: Project, gold: list[int]) -> str:
    """The gold documents' domain; with no gold, the project's only domain, else none (the query
    then has no base tier and is evaluated on the cross-domain tiers)."""
    if gold:
        return project.documents[gold[0]].domain
    domains = project.domains
    return domains[0] if len(domains) == 1 else ""


def add_query(
    root: Path,
    text: str,
    answer: str = "",
    gold: list[str] = (),  # type: ignore[assignment]
    negatives: list[str] = (),  # type: ignore[assignment]
    domain: str | None = None,
    query_id: str | None = None,
    kind: str = "production",
) -> Query:
    if not text.strip():
        raise ProjectError([Problem("--query", None, None, "empty query text")])
    # read-modify-write of queries.jsonl: two add-query at once must both land
    with project_lock(Path(root)):
        return _add_query(load_project(root), text, answer, gold, negatives, domain, query_id, kind)


def _add_query(project: Project, text: str, answer: str, gold, negatives, domain: str | None, query_id: str | None,
               kind: str) -> Query:
    root = project.root
    gold_ids = resolve_doc_ids(project, list(gold), "--gold")
    negative_ids = resolve_doc_ids(project, list(negatives), "--negative")
    qid = query_id or next_query_id(project)
    if any(q.query_id == qid for q in project.queries):
        raise ProjectError([Problem("--id", None, None, f"query {qid!r} exists already")])
    query = Query(query_id=qid, query=text, answer=answer, gold_doc_ids=gold_ids, hard_negative_ids=negative_ids,
                  domain=default_domain(project, gold_ids) if domain is None else domain, kind=kind)
    write_queries(project, [*project.queries, query])
    append_edit(root, QueryEdit(now_utc(), who(), "add_query", qid, None, msgspec.to_builtins(query)))
    return query


def add_queries(root: Path, new: list[tuple[str, str]], same=lambda text: text, kind: str = "production") -> list[Query]:
    """Queries (id, text) added unlabelled in one write under one lock (an import's batch: one project
    load, one rewrite of queries.jsonl, however many it adds). An id that holds the same text already
    (``same`` compares them: an identical import ran meanwhile) is not an error: it is kept as it is."""
    with project_lock(Path(root)):
        project = load_project(root)
        have = {q.query_id: q for q in project.queries}
        added, problems = [], []
        for qid, text in new:
            if qid in have:
                if same(have[qid].query) != same(text):
                    problems.append(Problem("--id", None, None, f"query {qid!r} exists already"))
                continue
            added.append(Query(query_id=qid, query=text, answer="", gold_doc_ids=[], hard_negative_ids=[],
                               domain=default_domain(project, []), kind=kind))
        if problems:
            raise ProjectError(problems)
        if added:
            # the new lines checked (the file's others were when it was loaded): a batch costs its own size
            path = project.root / QUERIES_FILE
            problems = query_problems(list(enumerate(added, len(project.queries) + 1)), str(path), project.documents)
            if problems:
                raise ProjectError(problems)
            append_whole(path, project.root, encode_jsonl(added))  # the lines before kept byte for byte
            at, by = now_utc(), who()
            # one append (one fsync) for the batch, a line per query
            append_record(project.root / EDITS_FILE, project.root, b"\n".join(
                msgspec.json.encode(QueryEdit(at, by, "add_query", q.query_id, None, msgspec.to_builtins(q))) for q in added))
    return added


def edit_original_answer(root: Path, query_id: str, answer: str) -> Query:
    """Change a query's reference answer in queries.jsonl (an answer defines the query: it is not
    a label of a query-set version), logged with who and when."""
    with project_lock(Path(root)):
        project = load_project(root)
        old = project.query(query_id)
        new = msgspec.structs.replace(old, answer=answer)
        write_queries(project, [new if q.query_id == query_id else q for q in project.queries])
        append_edit(root, QueryEdit(now_utc(), who(), "edit_answer", query_id, old.answer, answer))
    return new
