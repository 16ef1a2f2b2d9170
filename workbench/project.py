"""Reading, validating and writing a project folder.

Every reader reports problems as ``file:line: field: message`` and collects all of
them before failing, so a user fixes a bad file in one pass. Nothing is written
unless everything validated.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, TypeVar

import msgspec

from workbench.errors import WorkbenchError
from workbench.fsutil import atomic_write_bytes, sha256_bytes
from workbench.records import Document, ProjectConfig, Query
from workbench.safe_text import visible

CONFIG_FILE = "workbench.toml"
DOCUMENTS_FILE = "documents.jsonl"
QUERIES_FILE = "queries.jsonl"
STATE_DIR = ".workbench"
# The query-set version that is queries.jsonl itself (workbench.query_sets).
ORIGINAL_VERSION = "original"
MAX_REPORTED_ERRORS = 25

T = TypeVar("T")


class Problem(msgspec.Struct, frozen=True):
    file: str
    line: int | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


class ProjectError(WorkbenchError):
    """Bad input. ``problems`` lists every problem found (file, line, field)."""

    title = "The project has problems"
    hint = "Fix the lines above and rerun; nothing was written."

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        shown = problems[:MAX_REPORTED_ERRORS]
        more = len(problems) - len(shown)
        text = "\n".join(str(p) for p in shown)
        if more > 0:
            text += f"\n… and {more} more problem(s)"
        super().__init__(text, title=f"{len(problems)} problem(s) in the project")


def _field_of(err: msgspec.ValidationError) -> tuple[str | None, str]:
    """Split msgspec's "Expected `int`, got `str` - at `$.doc_id`" into (field, message)."""
    msg = str(err)
    if " - at `$" in msg:
        text, _, where = msg.rpartition(" - at `$")
        return where.rstrip("`").lstrip(".") or None, text
    if msg.startswith("Object missing required field"):
        return msg.split("`")[1] if "`" in msg else None, "missing required field"
    return None, msg


def iter_jsonl(path: Path, record_type: type[T], problems: list[Problem]) -> Iterator[tuple[int, T]]:
    """Yield (line number, record) for each valid line; append a Problem for each bad one."""
    decoder = msgspec.json.Decoder(record_type)
    name = str(path)
    try:
        raw = path.read_bytes().removeprefix(codecs.BOM_UTF8)  # a UTF-8 BOM (Windows editors) is no content
    except OSError as exc:
        problems.append(Problem(name, None, None, f"cannot read: {exc.strerror or exc}"))
        return
    for lineno, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.append(Problem(name, lineno, None, f"not UTF-8 (byte {exc.start}: {line[exc.start:exc.start+1]!r})"))
            continue
        try:
            yield lineno, decoder.decode(line)
        except msgspec.ValidationError as exc:
            fld, msg = _field_of(exc)
            problems.append(Problem(name, lineno, fld, msg))
        except msgspec.DecodeError as exc:
            problems.append(Problem(name, lineno, None, f"malformed JSON: {exc}"))


def check_folder(root: Path) -> None:
    """A project path must be a folder (or not exist yet) below folders, never below a regular file."""
    for p in (root, *root.parents):
        if p.exists():
            if not p.is_dir():
                raise ProjectError([Problem(str(p), None, None, f"is a file, not a folder: {root} cannot be a project")])
            return


def toml_line(text: str, dotted: str) -> int | None:
    """The line that sets ``dotted`` ("retrievers.k", "name", "models.local.max_tokens") in a TOML text."""
    *table, key = dotted.split(".")
    section: list[str] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("[") and not stripped.startswith("[["):
            section = [s.strip().strip('"') for s in stripped.strip("[]").split(".")]
        elif re.match(rf'"?{re.escape(key)}"?\s*=', stripped) and section == table:
            return lineno
    return None


def load_config(root: Path) -> ProjectConfig:
    check_folder(root)
    path = root / CONFIG_FILE
    if not path.exists():
        raise ProjectError([Problem(str(path), None, None, "missing: not a workbench project (run `workbench init`)")])
    raw = path.read_bytes().removeprefix(codecs.BOM_UTF8)
    text = raw.decode("utf-8", errors="replace")
    try:
        config = msgspec.toml.decode(raw, type=ProjectConfig)
    except msgspec.ValidationError as exc:
        fld, msg = _field_of(exc)
        raise ProjectError([Problem(str(path), toml_line(text, fld) if fld else None, fld, msg)]) from None
    except msgspec.DecodeError as exc:
        raise ProjectError([Problem(str(path), None, None, f"malformed TOML: {exc}")]) from None
    problems = [Problem(str(path), toml_line(text, key), key, msg) for key, msg in config_range_problems(config)]
    if problems:
        raise ProjectError(problems)
    return config


def config_range_problems(c: ProjectConfig) -> list[tuple[str, str]]:
    """(dotted key, message) for every value outside the range the code can work with."""
    out: list[tuple[str, str]] = []

    def need(ok: bool, key: str, msg: str) -> None:
        if not ok:
            out.append((key, msg))

    lad, ret, emb = c.ladder, c.retrievers, c.embedding
    need(lad.base_budget > 0, "ladder.base_budget", f"must be a positive token count, got {lad.base_budget}")
    need(lad.prompt_overhead >= 0, "ladder.prompt_overhead", f"must be ≥ 0, got {lad.prompt_overhead}")
    if lad.base_budget > 0 and lad.prompt_overhead >= 0:
        need(lad.prompt_overhead < lad.base_budget, "ladder.prompt_overhead",
             f"{lad.prompt_overhead} leaves no room for documents in base_budget {lad.base_budget}")
    bad_mix = [b for b in lad.mixing_budgets if b <= lad.base_budget]
    need(not bad_mix, "ladder.mixing_budgets", f"each must exceed base_budget {lad.base_budget}: {bad_mix}")
    bad_global = [b for b in lad.global_budgets if b <= max(lad.prompt_overhead, 0)]
    need(not bad_global, "ladder.global_budgets", f"each must exceed prompt_overhead {lad.prompt_overhead}: {bad_global}")
    need(ret.k >= 1, "retrievers.k", f"must be ≥ 1, got {ret.k}")
    need(ret.rrf_k >= 0, "retrievers.rrf_k", f"must be ≥ 0 (60 is usual), got {ret.rrf_k}")
    need(ret.hybrid_depth >= 1, "retrievers.hybrid_depth", f"must be ≥ 1, got {ret.hybrid_depth}")
    need(emb.chunk_tokens > 0, "embedding.chunk_tokens", f"must be > 0, got {emb.chunk_tokens}")
    need(0 <= emb.chunk_overlap < max(emb.chunk_tokens, 1), "embedding.chunk_overlap",
         f"must be ≥ 0 and below chunk_tokens {emb.chunk_tokens}, got {emb.chunk_overlap}")
    need(emb.batch_size >= 1, "embedding.batch_size", f"must be ≥ 1, got {emb.batch_size}")
    for name, m in c.models.items():
        key = f"models.{name}"
        need(m.context_window > 0, f"{key}.context_window", f"must be > 0, got {m.context_window}")
        need(m.max_tokens > 0, f"{key}.max_tokens", f"must be > 0, got {m.max_tokens}")
        need(0 <= m.safety_margin < 1, f"{key}.safety_margin", f"must be in [0, 1), got {m.safety_margin}")
        need(m.timeout_s > 0, f"{key}.timeout_s", f"must be > 0, got {m.timeout_s}")
        need(m.concurrency >= 1, f"{key}.concurrency", f"must be ≥ 1, got {m.concurrency}")
        need(m.max_retries >= 0, f"{key}.max_retries", f"must be ≥ 0, got {m.max_retries}")
    return out


MAX_QUERY_ID = 128


def query_id_problem(qid: str) -> str | None:
    """Why a query ID cannot be used (TREC files split on whitespace; IDs become file names), or None."""
    if not qid.strip():
        return "empty"
    if any(c.isspace() or not c.isprintable() for c in qid):
        return f"contains whitespace or a control character: {visible(qid)!r}"
    if "/" in qid or "\\" in qid or ".." in qid:
        return f"contains '/', '\\' or '..': {visible(qid)!r}"
    if len(qid) > MAX_QUERY_ID:
        return f"{len(qid)} characters long (at most {MAX_QUERY_ID})"
    return None


def validate(
    documents: list[tuple[int, Document]],
    queries: list[tuple[int, Query]],
    doc_file: str,
    query_file: str,
    docs_complete: bool = True,
) -> list[Problem]:
    """Cross-record checks. Inputs carry their line numbers. With docs_complete False (a document
    line did not parse) gold/negative IDs are not checked against the corpus: they may be on that line."""
    problems: list[Problem] = []

    def first_seen(seen: dict, key, file: str, lineno: int, fld: str, label: str) -> None:
        if key in seen:
            problems.append(Problem(file, lineno, fld, f"duplicate {label} {key!r} (first on line {seen[key]})"))
        else:
            seen[key] = lineno

    seen: dict[int, int] = {}
    for lineno, doc in documents:
        first_seen(seen, doc.doc_id, doc_file, lineno, "doc_id", "DocID")
        if doc.doc_id < 0:
            problems.append(Problem(doc_file, lineno, "doc_id", "DocIDs must be non-negative integers"))
        if not doc.text.strip():
            problems.append(Problem(doc_file, lineno, "text", "empty text"))
    seen_q: dict[str, int] = {}
    for lineno, q in queries:
        first_seen(seen_q, q.query_id, query_file, lineno, "query_id", "query_id")
        why = query_id_problem(q.query_id)
        if why:
            problems.append(Problem(query_file, lineno, "query_id", why))
        if not q.query.strip():
            problems.append(Problem(query_file, lineno, "query", "empty query text"))
        for fld, ids in (("gold_doc_ids", q.gold_doc_ids), ("hard_negative_ids", q.hard_negative_ids)):
            missing = [i for i in ids if i not in seen]
            if missing and docs_complete:
                problems.append(Problem(query_file, lineno, fld, f"DocID(s) not in the corpus: {missing[:10]}"))
            if len(set(ids)) != len(ids):
                problems.append(Problem(query_file, lineno, fld, "repeated DocID"))
        both = sorted(set(q.gold_doc_ids) & set(q.hard_negative_ids))
        if both:
            problems.append(Problem(query_file, lineno, "hard_negative_ids", f"DocID(s) listed as both gold and hard negative: {both}"))
    return problems


@dataclass
class Project:
    root: Path
    config: ProjectConfig
    documents: dict[int, Document]
    queries: list[Query]
    # Which query-set version ``queries`` is (workbench.query_sets); tiers, indexes and stored
    # rankings always come from the original set, so selecting a version rebuilds nothing.
    queries_version: str = ORIGINAL_VERSION
    # The project's own queries.jsonl (= ``queries`` when the version is the original).
    original_queries: list[Query] = field(default_factory=list)
    _query_index: dict[str, Query] = field(default_factory=dict, repr=False)
    _original_index: dict[str, Query] = field(default_factory=dict, repr=False)
    _corpus_hash: str | None = field(default=None, repr=False)
    _documents_hash: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not self.original_queries:
            self.original_queries = self.queries
        self._query_index = {q.query_id: q for q in self.queries}
        self._original_index = {q.query_id: q for q in self.original_queries}

    @property
    def state_dir(self) -> Path:
        return self.root / STATE_DIR

    def query(self, query_id: str) -> Query:
        """The query as the loaded version labels it (KeyError if the version left it out)."""
        return self._query_index[query_id]

    def has_query(self, query_id: str) -> bool:
        return query_id in self._query_index

    def original_query(self, query_id: str) -> Query:
        """The query as queries.jsonl has it: what tiers and rankings are built from (its text,
        answer and domain are the same in every version)."""
        return self._original_index[query_id]

    def tier_query_ids(self, tier) -> list[str]:
        """The tier's queries that the loaded version keeps (a tier lists the original's)."""
        return [q for q in tier.query_ids if q in self._query_index]

    def docs(self, ids: list[int]) -> list[Document]:
        return [self.documents[i] for i in ids]

    @property
    def domains(self) -> list[str]:
        return sorted({d.domain for d in self.documents.values()})

    def corpus_hash(self) -> str:
        """Content hash of the documents and the ORIGINAL queries: the key every derived artefact
        (tiers, indexes, runs) depends on. A query-set version does not change it."""
        if self._corpus_hash is None:
            self._corpus_hash = sha256_bytes(
                (self.root / DOCUMENTS_FILE).read_bytes() + b"\0" + (self.root / QUERIES_FILE).read_bytes()
            )
        return self._corpus_hash

    def documents_hash(self) -> str:
        """Content hash of the documents alone: what an index depends on (queries and labels do not)."""
        if self._documents_hash is None:
            self._documents_hash = sha256_bytes((self.root / DOCUMENTS_FILE).read_bytes())
        return self._documents_hash


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


def load_project(root: Path | str, queries_version: str | None = None) -> Project:
    """The project; with ``queries_version`` (a name from workbench.query_sets.list_versions;
    None or "original" = queries.jsonl) its queries are that version's, checked against the
    corpus and the original set (ProjectError naming the version's file, line and field)."""
    root = Path(root)
    config = load_config(root)
    doc_path, query_path = root / DOCUMENTS_FILE, root / QUERIES_FILE
    for p in (doc_path, query_path):
        if not p.exists():
            raise ProjectError([Problem(str(p), None, None, "missing (run `workbench import`)")])
    docs, queries = read_records(doc_path, query_path)
    project = Project(root=root, config=config, documents={d.doc_id: d for _, d in docs}, queries=[q for _, q in queries])
    if queries_version and queries_version != ORIGINAL_VERSION:
        from workbench.query_sets import check_relabelling, load_queries, queries_path

        version = load_queries(root, queries_version)
        problems = check_relabelling(project, version, str(queries_path(root, queries_version)))
        if problems:
            raise ProjectError(problems)
        project = Project(root=root, config=config, documents=project.documents, queries=version,
                          queries_version=queries_version, original_queries=project.queries)
    return project


def encode_jsonl(records: list) -> bytes:
    enc = msgspec.json.Encoder()
    return b"".join(enc.encode(r) + b"\n" for r in records)


def write_project_files(root: Path, documents: list[Document], queries: list[Query]) -> None:
    """Validate, then write both files atomically (each file appears whole or not at all)."""
    problems = validate(list(enumerate(documents, 1)), list(enumerate(queries, 1)), str(root / DOCUMENTS_FILE), str(root / QUERIES_FILE))
    if problems:
        raise ProjectError(problems)
    atomic_write_bytes(root / DOCUMENTS_FILE, encode_jsonl(documents))
    atomic_write_bytes(root / QUERIES_FILE, encode_jsonl(queries))


def _drop_none(value):
    # TOML has no null: an absent key decodes back to the field's default (None).
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    return value


def config_toml(config: ProjectConfig) -> bytes:
    return msgspec.toml.encode(_drop_none(msgspec.to_builtins(config)))


def write_config(root: Path, config: ProjectConfig) -> None:
    atomic_write_bytes(root / CONFIG_FILE, config_toml(config))


def init_project(root: Path, name: str | None = None) -> None:
    check_folder(root)
    if (root / CONFIG_FILE).exists():
        raise ProjectError([Problem(str(root / CONFIG_FILE), None, None, "already exists: this is a project already")])
    root.mkdir(parents=True, exist_ok=True)
    write_config(root, ProjectConfig(name=name or root.resolve().name))
    for f in (DOCUMENTS_FILE, QUERIES_FILE):
        if not (root / f).exists():
            atomic_write_bytes(root / f, b"")
