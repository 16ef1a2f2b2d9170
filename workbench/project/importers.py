"""Turn outside datasets into a project's documents.jsonl / queries.jsonl.

Native JSONL: documents with `doc_id` (or `_id`/`id`), `title`, `text`, optional `domain`;
queries with `query_id` (or `_id`/`id`), `query` (or `text`/`question`), `answer` (or
`answers`), `gold_doc_ids` (absent or empty = an unlabelled query), and hard-negative candidates under `hard_negative_ids` or
`negative_doc_ids`, optional `domain` and `kind` (or `category`).
BEIR: `corpus.jsonl`, `queries.jsonl`, `qrels/<split>.tsv` (relevance > 0 = gold).

String IDs are mapped to integer DocIDs in order of first appearance, the original kept as
`source_id`. Re-importing into a project keeps the DocIDs it already gave, so the same input
gives the same mapping and added documents get new IDs after the largest one.

Importing into a project that has documents and queries MERGES (merge_import): what the input adds
(documents with a new source id, queries with a new query_id) is appended; everything the project
holds is kept as it is — queries added with `add-query` or from traces, answers edited in the
workbench, documents no longer in the input — so the labels and every query-set version built on
them still load. An input record that differs from the project's of the same id is not taken:
the import names them (ImportResult.documents_differ / queries_differ). Nothing a user made is
ever dropped by an import.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import msgspec

from workbench.project.files import (
    CONFIG_FILE, DOCUMENTS_FILE, QUERIES_FILE, Problem, ProjectError, check_folder, document_problems, init_project, iter_jsonl,
    number_problem, query_problems, write_project_files,
)
from workbench.records import Document, Query

DEFAULT_DOMAIN = "general"


def _first(obj: dict, names: tuple[str, ...], default: Any = None) -> Any:
    for n in names:
        if n in obj:
            return obj[n]
    return default


def _read_raw(path: Path, problems: list[Problem]) -> list[tuple[int, dict]]:
    return list(iter_jsonl(path, dict, problems))


class _IdMap:
    """Stable source-id → DocID mapping, seeded from an existing project."""

    def __init__(self, existing: dict[str, int]):
        self.ids = dict(existing)
        self.next = max(existing.values(), default=0) + 1

    def get(self, source: str) -> int:
        if source not in self.ids:
            self.ids[source] = self.next
            self.next += 1
        return self.ids[source]


def _existing_mapping(documents: list[Document]) -> dict[str, int]:
    return {d.source_id if d.source_id is not None else str(d.doc_id): d.doc_id for d in documents}


def _project_records(project_root: Path) -> tuple[list[Document], list[Query]]:
    """The project's own documents and queries as they are now ([] when absent); ProjectError when
    one does not read: an import never rewrites files it could not read whole (it would drop lines)."""
    problems: list[Problem] = []
    out: list[list] = []
    for name, kind in ((DOCUMENTS_FILE, Document), (QUERIES_FILE, Query)):
        path = project_root / name
        out.append([r for _, r in iter_jsonl(path, kind, problems)] if path.exists() else [])
    if problems:
        raise ProjectError([*problems, Problem(str(project_root), None, None,
                                               "the project's own files must read before an import adds to them: fix "
                                               "the lines above (or import into a new project folder)")])
    return out[0], out[1]


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def convert_documents(rows: list[tuple[int, dict]], file: str, idmap: _IdMap, problems: list[Problem]) -> list[tuple[int, Document]]:
    docs = []
    first_line: dict[str, int] = {}
    for lineno, row in rows:
        raw_id = _first(row, ("doc_id", "_id", "id"))
        if raw_id is None or isinstance(raw_id, bool) or not isinstance(raw_id, (str, int)):
            problems.append(Problem(file, lineno, "doc_id", "missing or not a string/integer"))
            continue
        if str(raw_id) in first_line:
            problems.append(Problem(file, lineno, "doc_id", f"duplicate ID {raw_id!r} (first on line {first_line[str(raw_id)]})"))
            continue
        first_line[str(raw_id)] = lineno
        title, text = _first(row, ("title",), ""), _first(row, ("text", "contents", "body"))
        if _text(title) is None:
            problems.append(Problem(file, lineno, "title", "expected a string"))
            continue
        if _text(text) is None:
            problems.append(Problem(file, lineno, "text", "missing or not a string"))
            continue
        if not text.strip():
            problems.append(Problem(file, lineno, "text", "empty text"))
            continue
        domain = _first(row, ("domain",), DEFAULT_DOMAIN)
        source = str(raw_id)
        docs.append((lineno,
            Document(
                doc_id=idmap.get(source),
                title=title,
                text=text,
                domain=domain if isinstance(domain, str) and domain else DEFAULT_DOMAIN,
                source_id=source,
            )
        ))
    return docs


def _id_list(value: Any, file: str, lineno: int, fld: str, idmap: _IdMap, known: set[str], problems: list[Problem]) -> list[int]:
    if value is None:
        return []
    if not isinstance(value, list):
        problems.append(Problem(file, lineno, fld, "expected a list of document IDs"))
        return []
    out = []
    for v in value:
        # a qrels row carries its own file and line: a bad row is reported there
        (s, (where, line)) = (v[0], v[1]) if isinstance(v, tuple) else (str(v), (file, lineno))
        if s not in known:
            problems.append(Problem(where, line, fld if where == file else "corpus-id", f"document {s!r} is not in the corpus"))
            continue
        out.append(idmap.ids[s])
    return out


def _answer_text(value: Any) -> str | None:
    """An answer as text: a string as is, a number written out; None (JSON null) for anything else."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool) and number_problem(float(value)) is None:
        return str(value)
    return None


def _answers(value: Any, file: str, lineno: int, problems: list[Problem]) -> list[str] | None:
    """The answer and its aliases as text; ``null`` = no answer (never the text "None"); an object,
    a boolean or a nested list: a Problem naming the field (never its Python repr stored), None."""
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    out = []
    for n, item in enumerate(items):
        if item is None and isinstance(value, list):
            continue
        text = _answer_text(item)
        if text is None:
            where = f"answer[{n}]" if isinstance(value, list) else "answer"
            what = {dict: "an object", list: "a nested list", bool: "true/false"}.get(type(item), f"{item!r}")
            problems.append(Problem(file, lineno, where, f"{what} is not an answer: give a string (or a list of strings)"))
            return None
        out.append(text)
    return out


def convert_queries(
    rows: list[tuple[int, dict]],
    file: str,
    idmap: _IdMap,
    known: set[str],
    doc_domain: dict[int, str],
    problems: list[Problem],
    gold_override: dict[str, list[tuple[str, tuple[str, int]]]] | None = None,
) -> list[tuple[int, Query]]:
    queries = []
    for lineno, row in rows:
        qid = _first(row, ("query_id", "_id", "id"))
        text = _first(row, ("query", "text", "question"))
        if qid is None or isinstance(qid, bool) or not isinstance(qid, (str, int)):
            problems.append(Problem(file, lineno, "query_id", "missing or not a string/integer"))
            continue
        if _text(text) is None:
            problems.append(Problem(file, lineno, "query", "missing or not a string"))
            continue
        answers = _answers(_first(row, ("answer", "answers"), ""), file, lineno, problems)
        if answers is None:
            continue
        answer, aliases = (answers[0], answers[1:]) if answers else ("", [])  # more accepted answers after the first
        more = _first(row, ("answer_aliases",), [])  # MuSiQue's aliases (workbench/correctness.py matches them)
        aliases += [a for a in more if isinstance(a, str) and a.strip()] if isinstance(more, list) else []
        canonical = _first(row, ("canonical_answer",), "")
        if gold_override is not None:
            if str(qid) not in gold_override:
                continue  # BEIR: a query without qrels in this split is not part of it
            gold_raw: Any = gold_override[str(qid)]
        else:
            gold_raw = _first(row, ("gold_doc_ids",))
        # No gold (absent or []) = an unlabelled query: imported, ranked, left out of the figures.
        gold = _id_list(gold_raw, file, lineno, "gold_doc_ids", idmap, known, problems)
        negatives = _id_list(_first(row, ("hard_negative_ids", "negative_doc_ids")), file, lineno, "negative_doc_ids", idmap, known, problems)
        overlap = sorted(set(gold) & set(negatives))
        if overlap:
            problems.append(Problem(file, lineno, "negative_doc_ids", f"also listed as gold: {[s for s, i in idmap.ids.items() if i in overlap]}"))
            negatives = [n for n in negatives if n not in overlap]  # reported once, here, with the input's IDs
        domain = _first(row, ("domain",))
        if not isinstance(domain, str) or not domain:
            domain = doc_domain.get(gold[0], DEFAULT_DOMAIN) if gold else DEFAULT_DOMAIN
        kind = _first(row, ("kind", "category"), "")
        queries.append((lineno,
            Query(
                query_id=str(qid),
                query=text,
                answer=answer,
                gold_doc_ids=gold,
                hard_negative_ids=negatives,
                domain=domain,
                kind=kind if isinstance(kind, str) else "",
                canonical_answer=canonical if isinstance(canonical, str) else "",
                answer_aliases=aliases,
            )
        ))
    return queries


def read_beir_qrels(path: Path, problems: list[Problem]) -> dict[str, list[tuple[str, tuple[str, int]]]]:
    """query-id → [(corpus-id, (file, line))] of the rows with relevance > 0."""
    gold: dict[str, list[tuple[str, tuple[str, int]]]] = {}
    try:
        fh = open(path, newline="", encoding="utf-8-sig")  # a byte-order mark before the header is no content
    except OSError as exc:
        problems.append(Problem(str(path), None, None, f"cannot read: {exc.strerror or exc}"))
        return gold
    with fh:
        rows = csv.reader(fh, delimiter="\t")
        lineno = 0
        while True:
            try:
                row = next(rows)
            except StopIteration:
                break
            except (UnicodeDecodeError, csv.Error) as exc:
                problems.append(Problem(str(path), rows.line_num or lineno + 1, None, f"cannot read this line: {exc}"))
                break
            lineno = rows.line_num
            if not row or (lineno == 1 and row[0] in ("query-id", "query_id", "qid")):
                continue
            if len(row) < 3:
                problems.append(Problem(str(path), lineno, None, "expected query-id, corpus-id, score"))
                continue
            try:
                score = float(row[-1])
            except ValueError:
                problems.append(Problem(str(path), lineno, "score", f"not a number: {row[-1]!r}"))
                continue
            if why := number_problem(score):  # a NaN relevance would silently be "not gold"
                problems.append(Problem(str(path), lineno, "score", why))
                continue
            if score > 0:
                gold.setdefault(row[0], []).append((row[1] if len(row) == 3 else row[2], (str(path), lineno)))
    return gold


def unknown_qrels_queries(qrels: dict[str, list[tuple[str, tuple[str, int]]]], rows: list[tuple[int, dict]],
                          query_file: str) -> list[Problem]:
    """A qrels row for a query that queries.jsonl does not have: its gold would silently be lost."""
    known = {str(_first(row, ("query_id", "_id", "id"))) for _, row in rows}
    return [Problem(where, line, "query-id", f"query {qid!r} is not in {query_file}")
            for qid, docs in qrels.items() if qid not in known for _, (where, line) in docs[:1]]


class ImportResult(msgspec.Struct, frozen=True):
    """What an import did: the input's records, those it added, those the project already held."""

    documents_in_input: int
    queries_in_input: int
    documents_added: int
    queries_added: int
    documents_total: int
    queries_total: int
    # source ids / query ids whose input record differs from the project's: the project's was kept
    documents_differ: list[str] = []
    queries_differ: list[str] = []
    # the project's queries the input does not have (added with add-query, from traces, an older
    # input): kept
    queries_only_in_project: list[str] = []
    created: bool = False  # the project folder was made by this import


def import_dataset(project_root: Path, documents: Path, *args: Any, **kwargs: Any) -> tuple[int, int]:
    """merge_import (the same arguments), returning (documents, queries) read from the input."""
    result = merge_import(project_root, documents, *args, **kwargs)
    return result.documents_in_input, result.queries_in_input


def merge_import(
    project_root: Path,
    documents: Path,
    queries: Path | None = None,
    fmt: str = "jsonl",
    split: str = "test",
) -> ImportResult:
    """Import into a project, creating it if absent, only if everything validates: a refused import
    writes nothing, not even the project folder. Into a project that has records it merges (the
    module's docstring): nothing the project holds is dropped or changed."""
    check_folder(project_root)
    problems: list[Problem] = []
    if fmt == "beir":
        root = documents
        doc_path, query_path = root / "corpus.jsonl", queries or root / "queries.jsonl"
        qrels = read_beir_qrels(root / "qrels" / f"{split}.tsv", problems)
    elif fmt == "jsonl":
        if queries is None:
            raise ProjectError([Problem("--queries", None, None, "required for the jsonl format")])
        doc_path, query_path, qrels = documents, queries, None
    else:
        raise ProjectError([Problem("--format", None, None, f"unknown format {fmt!r} (jsonl or beir)")])

    from workbench.fsutil import project_lock

    # checked first, outside the lock (a refused import writes nothing, not even the lock file);
    # written under it, from the project's files as they are then (another writer may have added to them)
    stamp = _stamp(project_root)
    merged = _merged(project_root, doc_path, query_path, qrels, problems)
    if not (project_root / CONFIG_FILE).exists():  # nothing to race with: no other writer has a project yet
        init_project(project_root)
        write_project_files(project_root, merged.documents, merged.queries)
        return msgspec.structs.replace(merged.result, created=True)
    with project_lock(project_root):  # read-modify-write of documents.jsonl / queries.jsonl
        if _stamp(project_root) != stamp:
            merged = _merged(project_root, doc_path, query_path, qrels, [])
        if merged.changed:  # the same input again writes nothing: every derived result stays current
            write_project_files(project_root, merged.documents, merged.queries)
    return merged.result


def _stamp(project_root: Path) -> tuple[tuple[int, ...] | None, ...]:
    def one(name: str) -> tuple[int, ...] | None:
        try:
            st = (project_root / name).stat()
        except OSError:
            return None
        return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)

    return one(DOCUMENTS_FILE), one(QUERIES_FILE)


class _Merged(msgspec.Struct):
    documents: list[Document]
    queries: list[Query]
    result: ImportResult
    changed: bool


def _merged(project_root: Path, doc_path: Path, query_path: Path, qrels: dict[str, list[tuple[str, tuple[str, int]]]] | None,
            problems: list[Problem]) -> _Merged:
    """The project's records with the input's new ones appended (DocIDs kept from the project's
    file); ProjectError if any input record is bad or the project's own files do not read."""
    have_docs, have_queries = _project_records(project_root)
    idmap = _IdMap(_existing_mapping(have_docs))
    docs = convert_documents(_read_raw(doc_path, problems), str(doc_path), idmap, problems)
    # a new query's gold may be a document the project has and this input does not
    known = {d.source_id for _, d in docs if d.source_id is not None} | set(idmap.ids)
    doc_domain = {d.doc_id: d.domain for d in have_docs} | {d.doc_id: d.domain for _, d in docs}
    before = len(problems)
    raw_queries = _read_raw(query_path, problems)
    queries_whole = len(problems) == before  # a line that did not parse may hold the query
    qs = convert_queries(raw_queries, str(query_path), idmap, known, doc_domain, problems, qrels)
    if qrels is not None and queries_whole:
        problems.extend(unknown_qrels_queries(qrels, raw_queries, str(query_path)))
    # the cross-record checks, against the input's own files and lines (blank lines counted)
    doc_problems, _ = document_problems(docs, str(doc_path))
    problems.extend(doc_problems)
    problems.extend(query_problems(qs, str(query_path), set(idmap.ids.values())))
    if problems:
        raise ProjectError(sorted(set(problems), key=_input_order))

    by_id = {d.doc_id: d for d in have_docs}
    new_docs = [d for _, d in docs if d.doc_id not in by_id]
    docs_differ = [d.source_id or str(d.doc_id) for _, d in docs if d.doc_id in by_id and _content(by_id[d.doc_id]) != _content(d)]
    queries_by_id = {q.query_id: q for q in have_queries}
    new_queries = [q for _, q in qs if q.query_id not in queries_by_id]
    queries_differ = [q.query_id for _, q in qs if q.query_id in queries_by_id and queries_by_id[q.query_id] != q]
    in_input = {q.query_id for _, q in qs}
    result = ImportResult(
        documents_in_input=len(docs), queries_in_input=len(qs), documents_added=len(new_docs), queries_added=len(new_queries),
        documents_total=len(have_docs) + len(new_docs), queries_total=len(have_queries) + len(new_queries),
        documents_differ=docs_differ, queries_differ=queries_differ,
        queries_only_in_project=[q.query_id for q in have_queries if q.query_id not in in_input])
    return _Merged([*have_docs, *new_docs], [*have_queries, *new_queries], result, bool(new_docs or new_queries))


def _content(d: Document) -> tuple[str, str, str]:
    return (d.title, d.text, d.domain)


def _input_order(p: Problem) -> tuple:
    return (p.file, p.line or 0, p.field or "", p.message)
