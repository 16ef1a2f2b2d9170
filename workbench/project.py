"""Reading, validating and writing a project folder.

Every reader reports problems as ``file:line: field: message`` and collects all of
them before failing, so a user fixes a bad file in one pass. Nothing is written
unless everything validated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, TypeVar

import msgspec

from workbench.errors import WorkbenchError
from workbench.fsutil import atomic_write_bytes, sha256_bytes
from workbench.records import Document, ProjectConfig, Query

CONFIG_FILE = "workbench.toml"
DOCUMENTS_FILE = "documents.jsonl"
QUERIES_FILE = "queries.jsonl"
STATE_DIR = ".workbench"
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
        raw = path.read_bytes()
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


def load_config(root: Path) -> ProjectConfig:
    path = root / CONFIG_FILE
    if not path.exists():
        raise ProjectError([Problem(str(path), None, None, "missing: not a workbench project (run `workbench init`)")])
    try:
        return msgspec.toml.decode(path.read_bytes(), type=ProjectConfig)
    except msgspec.ValidationError as exc:
        fld, msg = _field_of(exc)
        raise ProjectError([Problem(str(path), None, fld, msg)]) from None
    except msgspec.DecodeError as exc:
        raise ProjectError([Problem(str(path), None, None, f"malformed TOML: {exc}")]) from None


def validate(
    documents: list[tuple[int, Document]],
    queries: list[tuple[int, Query]],
    doc_file: str,
    query_file: str,
) -> list[Problem]:
    """Cross-record checks. Inputs carry their line numbers."""
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
        if not q.query.strip():
            problems.append(Problem(query_file, lineno, "query", "empty query text"))
        if not q.gold_doc_ids:
            problems.append(Problem(query_file, lineno, "gold_doc_ids", "query has no gold document"))
        for fld, ids in (("gold_doc_ids", q.gold_doc_ids), ("hard_negative_ids", q.hard_negative_ids)):
            missing = [i for i in ids if i not in seen]
            if missing:
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
    _query_index: dict[str, Query] = field(default_factory=dict, repr=False)
    _corpus_hash: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self._query_index = {q.query_id: q for q in self.queries}

    @property
    def state_dir(self) -> Path:
        return self.root / STATE_DIR

    def query(self, query_id: str) -> Query:
        return self._query_index[query_id]

    def docs(self, ids: list[int]) -> list[Document]:
        return [self.documents[i] for i in ids]

    @property
    def domains(self) -> list[str]:
        return sorted({d.domain for d in self.documents.values()})

    def corpus_hash(self) -> str:
        """Content hash of the documents and queries: the key every derived artefact depends on."""
        if self._corpus_hash is None:
            self._corpus_hash = sha256_bytes(
                (self.root / DOCUMENTS_FILE).read_bytes() + b"\0" + (self.root / QUERIES_FILE).read_bytes()
            )
        return self._corpus_hash


def read_records(doc_path: Path, query_path: Path) -> tuple[list[tuple[int, Document]], list[tuple[int, Query]]]:
    """Read and validate both files; raise ProjectError listing every problem."""
    problems: list[Problem] = []
    docs = list(iter_jsonl(doc_path, Document, problems))
    queries = list(iter_jsonl(query_path, Query, problems))
    if not problems:
        problems.extend(validate(docs, queries, str(doc_path), str(query_path)))
    if problems:
        raise ProjectError(problems)
    return docs, queries


def load_project(root: Path | str) -> Project:
    root = Path(root)
    config = load_config(root)
    doc_path, query_path = root / DOCUMENTS_FILE, root / QUERIES_FILE
    for p in (doc_path, query_path):
        if not p.exists():
            raise ProjectError([Problem(str(p), None, None, "missing (run `workbench import`)")])
    docs, queries = read_records(doc_path, query_path)
    return Project(root=root, config=config, documents={d.doc_id: d for _, d in docs}, queries=[q for _, q in queries])


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
    if (root / CONFIG_FILE).exists():
        raise ProjectError([Problem(str(root / CONFIG_FILE), None, None, "already exists: this is a project already")])
    root.mkdir(parents=True, exist_ok=True)
    write_config(root, ProjectConfig(name=name or root.resolve().name))
    for f in (DOCUMENTS_FILE, QUERIES_FILE):
        if not (root / f).exists():
            atomic_write_bytes(root / f, b"")
