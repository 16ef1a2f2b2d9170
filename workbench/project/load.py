"""Loading a project: both files read and validated, under a query-set version if one is asked for.

Apart from files.py because it reads the versions (versions.py), which themselves build on the
file readers of files.py: files ← versions ← load, no circle.

A load that validated the files records them (workbench/project/corpus_store.py); a later load
of the same documents.jsonl parses no document, only the queries: a repeat `eval` costs what
its queries and stored runs cost, not what the corpus does."""

from __future__ import annotations

import codecs
import hashlib
from pathlib import Path
from typing import Container, NamedTuple

import msgspec

from workbench.fsutil import remove_leftovers, sha256_bytes
from workbench.project.corpus_store import (
    FORMAT, CorpusRecord, Spans, domains_of, open_trusted, read_record, read_whole, write_record,
)
from workbench.project.files import (
    DOCUMENTS_FILE, ORIGINAL_VERSION, QUERIES_FILE, STATE_DIR, Problem, Project, ProjectError, iter_jsonl, iter_jsonl_spans,
    load_config, query_problems, validate,
)
from workbench.project.versions import check_relabelling, load_queries, queries_path
from workbench.records import Document, ProjectConfig, Query


def read_records(doc_path: Path, query_path: Path) -> tuple[list[tuple[int, Document]], list[tuple[int, Query]]]:
    """Read and validate both files; raise ProjectError listing every problem."""
    problems: list[Problem] = []
    docs = list(iter_jsonl(doc_path, Document, problems))
    docs_complete = not problems
    queries = list(iter_jsonl(query_path, Query, problems))
    # cross-record checks run on every line that parsed, so a malformed line hides nothing else
    problems.extend(validate(docs, queries, str(doc_path), str(query_path), docs_complete))
    if problems:
        raise ProjectError(problems)
    return docs, queries


class QueriesSeen(NamedTuple):
    """A list of queries as a reader last saw it: how many, and its first and last query objects."""

    n: int
    first: Query | None
    last: Query | None


def queries_seen(queries: list[Query]) -> QueriesSeen:
    return QueriesSeen(len(queries), queries[0] if queries else None, queries[-1] if queries else None)


def appended_since(seen: QueriesSeen, queries: list[Query]) -> list[Query] | None:
    """The queries appended since ``seen`` (the same query objects before them: a load reuses them only
    when queries.jsonl grew by appended lines, _ParsedQueries), or None when the list changed otherwise."""
    n = seen.n
    if len(queries) < n or (n and (queries[0] is not seen.first or queries[n - 1] is not seen.last)):
        return None
    return queries[n:]


def _hasher(doc_bytes: bytes, query_bytes: bytes) -> "hashlib._Hash":
    """Project.corpus_hash()'s state over these bytes (without concatenating them): a queries file
    grown by appended lines extends it."""
    h = hashlib.sha256(doc_bytes)
    h.update(b"\0")
    h.update(query_bytes)
    return h


def _read_validated(root: Path, config: ProjectConfig) -> Project:
    """Both files parsed and validated (every problem at once), and recorded for the next load."""
    doc_path, query_path = root / DOCUMENTS_FILE, root / QUERIES_FILE
    problems: list[Problem] = []
    try:
        doc_bytes, doc_stamp = read_whole(doc_path)
    except OSError as exc:
        problems.append(Problem(str(doc_path), None, None, f"cannot read: {exc.strerror or exc}"))
        doc_bytes, doc_stamp = b"", None
    spans: list[tuple[int, int, int]] = []
    docs: list[tuple[int, Document]] = []
    for lineno, offset, length, doc in iter_jsonl_spans(doc_bytes, str(doc_path), Document, problems):
        docs.append((lineno, doc))
        spans.append((doc.doc_id, offset, length))
    docs_complete = not problems
    try:
        query_bytes, query_stamp = read_whole(query_path)
    except OSError as exc:
        problems.append(Problem(str(query_path), None, None, f"cannot read: {exc.strerror or exc}"))
        query_bytes, query_stamp = b"", None
    queries = [(n, q) for n, _, _, q in iter_jsonl_spans(query_bytes, str(query_path), Query, problems)]
    problems.extend(validate(docs, queries, str(doc_path), str(query_path), docs_complete))
    if problems:
        raise ProjectError(problems)
    documents = {d.doc_id: d for _, d in docs}
    hasher = _hasher(doc_bytes, query_bytes)
    project = Project(root=root, config=config, documents=documents, queries=[q for _, q in queries],
                      _corpus_hash=hasher.hexdigest(), _documents_hash=sha256_bytes(doc_bytes),
                      _domains=domains_of(documents))
    seen: dict[str, int] = {}
    for n, q in queries:
        seen.setdefault(q.query_id, n)
    _PARSED[str(query_path)] = _ParsedQueries(query_bytes, queries, seen, project.documents_hash(), hasher)
    assert doc_stamp is not None and query_stamp is not None
    write_record(project.state_dir, CorpusRecord(FORMAT, doc_stamp, query_stamp, project.documents_hash(),
                                                 project.corpus_hash(), len(documents), project.domains), Spans.from_file_order(spans))
    return project


class _ParsedQueries:
    """queries.jsonl as this process last parsed and checked it. A later load of the same file grown
    by lines appended at its end (add-query; a live collection adding production's queries, batch
    after batch) parses and checks only those lines, and hashes only them into the corpus hash: a
    batch costs its own queries, not every query of the project again. Any other change (an edit, a
    rewrite, another corpus) parses the file whole."""

    __slots__ = ("raw", "lines", "queries", "seen", "documents_hash", "hasher")

    def __init__(self, raw: bytes, queries: list[tuple[int, Query]], seen: dict[str, int], documents_hash: str,
                 hasher: "hashlib._Hash | None") -> None:
        self.raw, self.lines, self.queries, self.seen = raw, raw.count(b"\n"), queries, seen
        self.documents_hash, self.hasher = documents_hash, hasher

    def grown_by(self, raw: bytes, documents_hash: str) -> bytes | None:
        """The lines appended since, or None when the file changed otherwise."""
        if (documents_hash != self.documents_hash or not self.raw.endswith(b"\n") or len(raw) < len(self.raw)
                or not raw.startswith(self.raw)):
            return None
        tail = raw[len(self.raw):]
        return None if tail.startswith(codecs.BOM_UTF8) else tail


_PARSED: dict[str, _ParsedQueries] = {}


def _parse_queries(query_path: Path, raw: bytes, changed: bool, documents: Container[int], documents_hash: str,
                   problems: list[Problem]) -> tuple[list[tuple[int, Query]], "hashlib._Hash | None"]:
    """(line, query) of every query; checked against the corpus when ``changed`` (the file is not the
    one last recorded); and the corpus hash's state over the file, when this process knows it."""
    key = str(query_path)
    cached = _PARSED.get(key)
    tail = cached.grown_by(raw, documents_hash) if cached is not None else None
    if cached is not None and tail is not None:
        found: list[Problem] = []
        new = [(n + cached.lines, q) for n, _, _, q in iter_jsonl_spans(tail, key, Query, found)]
        found = [msgspec.structs.replace(p, line=p.line + cached.lines) if p.line is not None else p for p in found]
        seen = dict(cached.seen)
        if changed:
            found += query_problems(new, key, documents, seen_q=seen)
        problems.extend(found)
        queries = cached.queries + new
        hasher = None
        if cached.hasher is not None:
            hasher = cached.hasher.copy()
            hasher.update(tail)
    else:
        queries = [(n, q) for n, _, _, q in iter_jsonl_spans(raw, key, Query, problems)]
        seen = {}
        if changed:
            problems.extend(query_problems(queries, key, documents, seen_q=seen))
        else:
            for n, q in queries:
                seen.setdefault(q.query_id, n)
        hasher = None
    if not problems:
        _PARSED[key] = _ParsedQueries(raw, queries, seen, documents_hash, hasher)
    return queries, hasher


def _read_trusted(root: Path, config: ProjectConfig) -> Project | None:
    """The project with its documents read lazily, if documents.jsonl is the file last validated
    (its queries are parsed, and checked against the corpus's DocIDs when they changed); else None."""
    state_dir = root / STATE_DIR
    found = read_record(state_dir)
    if found is None:
        return None
    record, spans = found
    doc_path, query_path = root / DOCUMENTS_FILE, root / QUERIES_FILE
    documents = open_trusted(doc_path, record, spans, state_dir)
    if documents is None:
        return None
    try:
        query_bytes, query_stamp = read_whole(query_path)
    except OSError as exc:
        raise ProjectError([Problem(str(query_path), None, None, f"cannot read: {exc.strerror or exc}")]) from None
    problems: list[Problem] = []
    changed = query_stamp != record.queries  # queries edited or imported: checked, hashed with the corpus
    queries, hasher = _parse_queries(query_path, query_bytes, changed, documents, record.documents_hash, problems)
    corpus_hash = record.corpus_hash
    if changed and not problems:
        if hasher is None:
            hasher = _hasher(read_whole(doc_path)[0], query_bytes)
            _PARSED[str(query_path)].hasher = hasher
        corpus_hash = hasher.hexdigest()
        write_record(state_dir, CorpusRecord(FORMAT, record.documents, query_stamp, record.documents_hash, corpus_hash,
                                             record.n_docs, record.domains), None)
    if problems:
        raise ProjectError(problems)
    return Project(root=root, config=config, documents=documents, queries=[q for _, q in queries],
                   _corpus_hash=corpus_hash, _documents_hash=record.documents_hash, _domains=list(record.domains))


def load_project(root: Path | str, queries_version: str | None = None) -> Project:
    """The project; with ``queries_version`` (a name from workbench.project.versions.list_versions;
    None or "original" = queries.jsonl) its queries are that version's, checked against the
    corpus and the original set (ProjectError naming the version's file, line and field)."""
    root = Path(root)
    config = load_config(root)
    remove_leftovers(root)  # what killed processes left (temp files, swapped-out index copies)
    doc_path, query_path = root / DOCUMENTS_FILE, root / QUERIES_FILE
    for p in (doc_path, query_path):
        if not p.exists():
            raise ProjectError([Problem(str(p), None, None, "missing (run `workbench import`)")])
    project = _read_trusted(root, config) or _read_validated(root, config)
    if queries_version and queries_version != ORIGINAL_VERSION:
        version = load_queries(root, queries_version, project.queries)
        problems = check_relabelling(project, version, str(queries_path(root, queries_version)))
        if problems:
            raise ProjectError(problems)
        project = Project(root=root, config=config, documents=project.documents, queries=version,
                          queries_version=queries_version, original_queries=project.queries,
                          _corpus_hash=project.corpus_hash(), _documents_hash=project.documents_hash(),
                          _domains=project.domains)
    return project

