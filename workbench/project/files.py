"""Reading, validating and writing a project folder.

Every reader reports problems as ``file:line: field: message`` and collects all of
them before failing, so a user fixes a bad file in one pass. Nothing is written
unless everything validated.
"""

from __future__ import annotations

import codecs
import datetime
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Container, Iterator, Mapping, TypeVar

import msgspec
import msgspec.inspect

from workbench.errors import WorkbenchError
from workbench.fsutil import atomic_write_bytes, sha256_bytes
from workbench.records import Document, ProjectConfig, Query
from workbench.safe_text import visible

CONFIG_FILE = "workbench.toml"
DOCUMENTS_FILE = "documents.jsonl"
QUERIES_FILE = "queries.jsonl"
STATE_DIR = ".workbench"
# The query-set version that is queries.jsonl itself (workbench.project.versions).
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
    try:
        raw = path.read_bytes()
    except OSError as exc:
        problems.append(Problem(str(path), None, None, f"cannot read: {exc.strerror or exc}"))
        return
    for lineno, _offset, _length, record in iter_jsonl_spans(raw, str(path), record_type, problems):
        yield lineno, record


def iter_jsonl_spans(raw: bytes, name: str, record_type: type[T], problems: list[Problem]) -> Iterator[tuple[int, int, int, T]]:
    """(line number, byte offset, byte length, record) of each valid line of a file's bytes ``raw``
    (the span is the line in the file, for reading that record again alone); a Problem for each bad one."""
    decoder = msgspec.json.Decoder(record_type)
    body = raw.removeprefix(codecs.BOM_UTF8)  # a UTF-8 BOM (Windows editors) is no content
    offset = len(raw) - len(body)
    for lineno, line in enumerate(body.split(b"\n"), start=1):
        start, offset = offset, offset + len(line) + 1
        if not line.strip():
            continue
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.append(Problem(name, lineno, None, f"not UTF-8 (byte {exc.start}: {line[exc.start:exc.start+1]!r})"))
            continue
        try:
            yield lineno, start, len(line), decoder.decode(line)
        except msgspec.ValidationError as exc:
            fld, msg = _field_of(exc)
            problems.append(Problem(name, lineno, fld, msg))
        except msgspec.DecodeError as exc:
            fld, msg = malformed_field(line, exc)
            problems.append(Problem(name, lineno, fld, msg))


_AT_BYTE = re.compile(rb'"((?:[^"\\]|\\.)*)"\s*:\s*$')
_NOT_JSON_NUMBERS = (b"NaN", b"-NaN", b"Infinity", b"-Infinity", b"+Infinity", b"inf", b"-inf", b"nan")


def malformed_field(line: bytes, exc: msgspec.DecodeError) -> tuple[str | None, str]:
    """(the field whose value is malformed, the message) for a line that is not JSON: the key just
    before the byte msgspec names, so `"latency_s": NaN` says latency_s, not only a byte offset."""
    m = re.search(r"\(byte (\d+)\)", str(exc))
    if m is None:
        return None, f"malformed JSON: {exc}"
    at = int(m.group(1))
    before = _AT_BYTE.search(line[:at])
    fld = before.group(1).decode("utf-8", "replace") if before else None
    value = line[at:at + 10]
    if fld is not None and value.startswith(_NOT_JSON_NUMBERS):
        return fld, f"{value.split(b',')[0].split(b'}')[0].decode('utf-8', 'replace').strip()} is not a JSON number (byte {at}): give a finite number"
    return fld, f"malformed JSON: {exc}"


def number_problem(value: float) -> str | None:
    """Why a number read from a file cannot be used (NaN, ±infinity), or None: the one check every
    reader of numbers applies (runs, qrels, answers' figures), so no NaN is stored and lost later."""
    return None if math.isfinite(value) else f"not a finite number: {value!r}"


def text_lines(path: Path, problems: list[Problem]) -> Iterator[tuple[int, str]]:
    """(line number, text) of each line of a text file: a UTF-8 byte-order mark is no content, a
    line that is not UTF-8 is a Problem on its line (not a byte offset into the file)."""
    name = str(path)
    try:
        raw = path.read_bytes().removeprefix(codecs.BOM_UTF8)
    except OSError as exc:
        problems.append(Problem(name, None, None, f"cannot read: {exc.strerror or exc}"))
        return
    for lineno, line in enumerate(raw.split(b"\n"), start=1):
        try:
            yield lineno, line.decode("utf-8").removesuffix("\r")
        except UnicodeDecodeError as exc:
            problems.append(Problem(name, lineno, None, f"not UTF-8 (byte {exc.start}: {line[exc.start:exc.start+1]!r})"))


def check_folder(root: Path) -> None:
    """A project path must be a folder (or not exist yet) below folders, never below a regular file."""
    for p in (root, *root.parents):
        if p.exists():
            if not p.is_dir():
                raise ProjectError([Problem(str(p), None, None, f"is a file, not a folder: {root} cannot be a project")])
            return


def _toml_key(dotted: str) -> list[str]:
    """A TOML dotted key or table name ('a.b', 'models."gpt-4.1".k') as its parts, quotes removed."""
    return [m[1] if m[1] is not None else m[2] if m[2] is not None else m[3].strip()
            for m in re.finditer(r'\s*(?:"([^"]*)"|\'([^\']*)\'|([^."\']+))\s*(?:\.|$)', dotted)]


def _dotted(parts: list[str]) -> str:
    """The parts of a key as a TOML dotted key (a part such as "gpt-4.1" quoted)."""
    return ".".join(p if re.fullmatch(r"[A-Za-z0-9_-]+", p) else json.dumps(p, ensure_ascii=False) for p in parts)


def _line_of(text: str, want: list[str]) -> int | None:
    section: list[str] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("["):  # a [table] or an [[array of tables]] (its keys are not looked up)
            section = _toml_key(stripped.split("#", 1)[0].strip().strip("[]"))
            if section == want:
                return lineno
            section += ["[]"] if stripped.startswith("[[") else []
        elif (m := re.match(r'((?:[^="\'#\[]|"[^"]*"|\'[^\']*\')+)=', stripped)) and \
                (section + _toml_key(m[1]))[:len(want)] == want:  # "foo.bar = 1" sets foo (an unknown key) too
            return lineno
    return None


def toml_line(text: str, dotted: str) -> int | None:
    """The line that sets ``dotted`` ("retrievers.k", "name", 'models."gpt-4.1".max_tokens') in a TOML
    text: its ``key = `` line inside its table (a dotted ``ladder.seed = `` too), or the table's own
    header; a list item ("ladder.global_budgets[0]") is on the list's line, and a key set in an
    inline table on the line of the nearest enclosing key."""
    want = _toml_key(re.sub(r"(\[[0-9]+\])+$", "", dotted))
    for n in range(len(want), 0, -1):
        line = _line_of(text, want[:n])
        if line is not None:
            return line
    return None


# What msgspec.toml.decode(raw, type=...) passes to msgspec.convert after parsing: the same checks.
_TOML_TYPES: dict[str, Any] = {"builtin_types": (datetime.datetime, datetime.date, datetime.time), "str_keys": True}


def _leaves(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every key path of a decoded TOML document, down to its non-table values (and empty tables)."""
    if isinstance(value, dict) and value:
        for key, sub in value.items():
            yield from _leaves(sub, (*path, key))
    elif path:
        yield path


def _config_problem(exc: msgspec.ValidationError, keys: tuple[str, ...] = (), value: Any = None) -> tuple[str | None, str]:
    """(dotted key, message) of msgspec's error for a config holding just ``value`` at ``keys``. msgspec
    writes a dict key as ``[...]`` ("$.models[...].max_tokens"): it is put back from ``keys``. An unknown
    key is named itself (not its table), a refused choice lists the allowed ones and a value out of
    range is shown ("Expected `int` >= 1, got 0")."""
    msg = str(exc)
    text, _, where = msg.rpartition(" - at `$") if " - at `$" in msg else (msg, "", "")
    parts: list[str] = []
    index = ""
    for name, item in re.findall(r"\.([^.\[`]+)|(\[[^\]]*\])", where.rstrip("`")):
        if name or item == "[...]":
            parts.append(name or (keys[len(parts)] if len(parts) < len(keys) else "?"))
            index = ""
        else:
            index += item
    if m := re.fullmatch(r"Object contains unknown field `(.*)`", text):
        parts.append(m[1])
        text = "unknown key (not a workbench setting)"
    elif (m := re.fullmatch(r"Invalid enum value (.*)", text)) and (choices := _choices(parts)):
        text = f"{m[1]} is not one of {', '.join(map(repr, choices))}"
    elif re.fullmatch(r"Expected `\w+` [<>]=? \S+", text) and tuple(parts) == keys and not index:
        text += f", got {value!r}"
    return (_dotted(parts) + index) if parts else None, text


def _choices(parts: list[str]) -> tuple[Any, ...]:
    """The values a Literal field of ProjectConfig allows (``parts``: its key), or ()."""
    info: Any = msgspec.inspect.type_info(ProjectConfig)
    for part in parts:
        while isinstance(info, msgspec.inspect.Metadata):
            info = info.type
        if isinstance(info, msgspec.inspect.DictType):
            info = info.value_type
        elif isinstance(info, msgspec.inspect.StructType):
            info = next((f.type for f in info.fields if f.encode_name == part), None)
        else:
            return ()
    while isinstance(info, msgspec.inspect.Metadata):
        info = info.type
    return tuple(info.values) if isinstance(info, msgspec.inspect.LiteralType) else ()


def _only(data: dict, keys: tuple[str, ...]) -> tuple[dict, Any]:
    """(the decoded document with nothing but the value at ``keys``, that value)."""
    value: Any = data
    for key in keys:
        value = value[key]
    alone = value
    for key in reversed(keys):
        alone = {key: alone}
    return alone, value


def _without(value: Any, paths: set[tuple[str, ...]]) -> Any:
    """The decoded document without the values at ``paths``."""
    if not isinstance(value, dict) or not paths:
        return value
    return {k: _without(v, {p[1:] for p in paths if p[0] == k}) for k, v in value.items() if (k,) not in paths}


def decode_config(raw: bytes) -> tuple[ProjectConfig | None, list[tuple[str | None, str]]]:
    """Decode workbench.toml: (config, its cross-field problems), or (None, every problem) when msgspec
    refuses a value. Raises msgspec.DecodeError for malformed TOML.

    msgspec stops at its first error, so then each key is decoded alone (every field has a default)
    to report all of them at once, as every reader does; the cross-field checks run on the rest,
    except those that read a refused key."""
    data = msgspec.toml.decode(raw)
    try:
        config = msgspec.convert(data, ProjectConfig, **_TOML_TYPES)
        return config, config_range_problems(config)
    except msgspec.ValidationError as whole:
        found: dict[tuple[str | None, str], None] = {}
        refused: set[tuple[str, ...]] = set()
        for keys in _leaves(data):
            alone, value = _only(data, keys)
            try:
                msgspec.convert(alone, ProjectConfig, **_TOML_TYPES)
            except msgspec.ValidationError as exc:
                found[_config_problem(exc, keys, value)] = None
                refused.add(keys)
        if not found:
            return None, [_config_problem(whole)]
        try:
            rest = msgspec.convert(_without(data, refused), ProjectConfig, **_TOML_TYPES)
        except msgspec.ValidationError:
            return None, list(found)
        return None, list(found) + config_range_problems(rest, skip={".".join(k) for k in refused})


def load_config(root: Path) -> ProjectConfig:
    check_folder(root)
    path = root / CONFIG_FILE
    if not path.exists():
        if not root.exists():  # a mistyped path is not a folder to make a project of
            error = ProjectError([Problem(str(root), None, None, "does not exist: no project (nor any folder) at this path")])
            error.title, error.hint = "No such project", "Check the path (`workbench init PATH` makes a new project there)."
            raise error
        raise ProjectError([Problem(str(path), None, None, "missing: not a workbench project (run `workbench init`)")])
    raw = path.read_bytes().removeprefix(codecs.BOM_UTF8)
    text = raw.decode("utf-8", errors="replace")
    try:
        config, found = decode_config(raw)
    except msgspec.DecodeError as exc:
        raise ProjectError([Problem(str(path), None, None, f"malformed TOML: {exc}")]) from None
    if found or config is None:
        problems = [Problem(str(path), toml_line(text, key) if key else None, key, msg) for key, msg in found]
        raise ProjectError(sorted(problems, key=lambda p: p.line or 0))
    return config


def config_error(root: Path, key: str, message: str) -> ProjectError:
    """A problem of workbench.toml found while using it, on the line that sets ``key``."""
    path = root / CONFIG_FILE
    try:
        line = toml_line(path.read_bytes().decode("utf-8", errors="replace"), key)
    except OSError:
        line = None
    return ProjectError([Problem(str(path), line, key, message)])


_URL = re.compile(r"https?://[^\s/?#]+(?::\d+)?(?:/[^\s]*)?", re.IGNORECASE)


def url_problem(url: str | None) -> str | None:
    """Why an endpoint URL cannot be called (checked before any call, not found out per query)."""
    if url is None or _URL.fullmatch(url):
        return None
    return f"{url!r} is not an http(s) URL (e.g. \"http://127.0.0.1:8080/v1\")"


def config_range_problems(c: ProjectConfig, skip: set[str] | None = None) -> list[tuple[str | None, str]]:
    """(dotted key, message) for every combination of values the code cannot work with; a check that
    reads a key in ``skip`` (refused while decoding) is left out. A single value's range or choice is
    its type in workbench.records: msgspec refuses it while decoding."""
    out: list[tuple[str | None, str]] = []

    def need(ok: bool, key: str, msg: str, *reads: str) -> None:
        if not ok and not any(r == s or r.startswith(s + ".") for r in (key, *reads) for s in skip or ()):
            out.append((key, msg))

    lad, emb = c.ladder, c.embedding
    need(lad.prompt_overhead < lad.base_budget, "ladder.prompt_overhead",
         f"{lad.prompt_overhead} leaves no room for documents in base_budget {lad.base_budget}", "ladder.base_budget")
    bad_mix = [b for b in lad.mixing_budgets if b <= lad.base_budget]
    need(not bad_mix, "ladder.mixing_budgets", f"each must exceed base_budget {lad.base_budget}: {bad_mix}",
         "ladder.base_budget")
    bad_global = [b for b in lad.global_budgets if b <= lad.prompt_overhead]
    need(not bad_global, "ladder.global_budgets", f"each must exceed prompt_overhead {lad.prompt_overhead}: {bad_global}",
         "ladder.prompt_overhead")
    need(emb.chunk_overlap < emb.chunk_tokens, "embedding.chunk_overlap",
         f"must be below chunk_tokens {emb.chunk_tokens}, got {emb.chunk_overlap}", "embedding.chunk_tokens")
    for key, budgets in (("ladder.mixing_budgets", lad.mixing_budgets), ("ladder.global_budgets", lad.global_budgets)):
        repeated = sorted({b for b in budgets if budgets.count(b) > 1})
        need(not repeated, key, f"{repeated} repeated: two tiers would have one name")
    need(url_problem(emb.base_url) is None, "embedding.base_url", url_problem(emb.base_url) or "")
    need(emb.backend != "openai" or emb.base_url is not None, "embedding.base_url",
         "the openai backend needs the endpoint's base_url", "embedding.backend")
    for name, m in c.models.items():
        key = f"models.{_dotted([name])}"
        need(math.isfinite(m.temperature) and 0 <= m.temperature <= 2, f"{key}.temperature",
             f"must be a number from 0 to 2, got {m.temperature!r}")
        need(url_problem(m.base_url) is None, f"{key}.base_url", url_problem(m.base_url) or "")
        need(m.base_url is not None or m.api_key_env is None, f"{key}.api_key_env",
             "the embedded local model takes no key: set base_url too, or remove api_key_env")
    need(not c.judge or c.judge in c.models or c.judge == "local", "judge",
         f"{c.judge!r} is not a [models.NAME] table (nor 'local')")
    return out


def missing_key_problems(c: ProjectConfig, names: list[str]) -> list[tuple[str, str]]:
    """(key, message) for each model about to be called whose api_key_env is not set: found before
    the first call, not as every query failing like an endpoint that is down."""
    import os

    return [(f"models.{_dotted([n])}.api_key_env", f"environment variable {m.api_key_env} (its API key) is not set")
            for n in names if (m := c.models.get(n)) is not None and m.api_key_env and not os.environ.get(m.api_key_env)]


MAX_QUERY_ID = 128
MAX_DOC_ID = 2**63 - 1


def query_id_problem(qid: str) -> str | None:
    """Why a query ID cannot be used (TREC files split on whitespace; IDs become file names), or None."""
    if not qid.strip():
        return "empty"
    if any(c.isspace() or not c.isprintable() for c in qid):
        return f"contains whitespace or a control character: {visible(qid)!r}"
    if "/" in qid or "\\" in qid or ".." in qid:
        return f"contains '/', '\\' or '..': {visible(qid)!r}"
    if "," in qid:  # --queries a,b lists IDs: one holding a comma could never be selected
        return f"contains ',': {visible(qid)!r}"
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
    problems, seen = document_problems(documents, doc_file)
    return problems + query_problems(queries, query_file, seen, docs_complete)


def document_problems(documents: list[tuple[int, Document]], doc_file: str) -> tuple[list[Problem], dict[int, int]]:
    """The documents' own checks, and the line of each DocID."""
    problems: list[Problem] = []
    seen: dict[int, int] = {}
    for lineno, doc in documents:
        if doc.doc_id in seen:
            problems.append(Problem(doc_file, lineno, "doc_id", f"duplicate DocID {doc.doc_id!r} (first on line {seen[doc.doc_id]})"))
        else:
            seen[doc.doc_id] = lineno
        if doc.doc_id < 0:
            problems.append(Problem(doc_file, lineno, "doc_id", "DocIDs must be non-negative integers"))
        elif doc.doc_id > MAX_DOC_ID:  # the indexes store DocIDs as signed 64-bit integers
            problems.append(Problem(doc_file, lineno, "doc_id", f"{doc.doc_id} is too large (at most 2^63 - 1)"))
        if not doc.text.strip():
            problems.append(Problem(doc_file, lineno, "text", "empty text"))
    return problems, seen


def query_problems(queries: list[tuple[int, Query]], query_file: str, known: Container[int],
                   docs_complete: bool = True, seen_q: dict[str, int] | None = None) -> list[Problem]:
    """The queries' checks; their gold and negative DocIDs against ``known`` (the corpus's DocIDs).
    ``seen_q``: query id → line of the queries checked before these (updated in place)."""
    problems: list[Problem] = []
    seen_q = {} if seen_q is None else seen_q
    for lineno, q in queries:
        if q.query_id in seen_q:
            problems.append(Problem(query_file, lineno, "query_id", f"duplicate query_id {q.query_id!r} (first on line {seen_q[q.query_id]})"))
        else:
            seen_q[q.query_id] = lineno
        why = query_id_problem(q.query_id)
        if why:
            problems.append(Problem(query_file, lineno, "query_id", why))
        if not q.query.strip():
            problems.append(Problem(query_file, lineno, "query", "empty query text"))
        for fld, ids in (("gold_doc_ids", q.gold_doc_ids), ("hard_negative_ids", q.hard_negative_ids)):
            missing = [i for i in ids if i not in known]
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
    # DocID -> Document; loaded projects read them lazily (workbench/project/corpus_store.py)
    documents: Mapping[int, Document]
    queries: list[Query]
    # Which query-set version ``queries`` is (workbench.project.versions); tiers, indexes and stored
    # rankings always come from the original set, so selecting a version rebuilds nothing.
    queries_version: str = ORIGINAL_VERSION
    # The project's own queries.jsonl (= ``queries`` when the version is the original).
    original_queries: list[Query] = field(default_factory=list)
    _query_index: dict[str, Query] = field(default_factory=dict, repr=False)
    _original_index: dict[str, Query] = field(default_factory=dict, repr=False)
    _corpus_hash: str | None = field(default=None, repr=False)
    _documents_hash: str | None = field(default=None, repr=False)
    _domains: list[str] | None = field(default=None, repr=False)  # known at load: no document parsed for them
    # derived values of one tier object (its hashes: each encodes every DocID of the tier), see memo()
    _memo: dict[tuple[str, int], tuple[object, Any]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self.original_queries:
            self.original_queries = self.queries
        self._query_index = {q.query_id: q for q in self.queries}
        self._original_index = (self._query_index if self.original_queries is self.queries
                                else {q.query_id: q for q in self.original_queries})  # one index when they are one list

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
        if self._domains is None:
            self._domains = sorted({d.domain for d in self.documents.values()})
        return self._domains

    def corpus_hash(self) -> str:
        """Content hash of the documents and the ORIGINAL queries: the key every derived artefact
        (tiers, indexes, runs) depends on. A query-set version does not change it."""
        if self._corpus_hash is None:
            self._corpus_hash = sha256_bytes(
                (self.root / DOCUMENTS_FILE).read_bytes() + b"\0" + (self.root / QUERIES_FILE).read_bytes()
            )
        return self._corpus_hash

    def memo(self, what: str, of: object, make: Callable[[], T]) -> T:
        """``make()``, computed once per ``what`` and object ``of`` (a Tier: frozen) for this project."""
        got = self._memo.get((what, id(of)))
        if got is not None and got[0] is of:  # the object itself is kept, so its id is not reused
            return got[1]
        value = make()
        self._memo[(what, id(of))] = (of, value)
        return value

    def documents_hash(self) -> str:
        """Content hash of the documents alone: what an index depends on (queries and labels do not)."""
        if self._documents_hash is None:
            self._documents_hash = sha256_bytes((self.root / DOCUMENTS_FILE).read_bytes())
        return self._documents_hash


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
