"""Versioned query sets: relabelled copies of a project's queries, each with its provenance.

A project's ``queries.jsonl`` is the version named ``original`` and is never overwritten by
anything here. Every other version lives in ``PROJECT/query_sets/<name>/`` (user data, not
derived state: it is outside ``.workbench/``):

  queries.jsonl   the version's full query set (same format as the project's queries.jsonl)
  labels.jsonl    one LabelRecord per label that made it: who/what, when, why, with what settings
  version.json    VersionInfo: name, parent version, who made it, when, settings, what it excludes

A version *relabels* the original set: it may change a query's ``gold_doc_ids``,
``hard_negative_ids`` and ``kind``, and leave queries out (recorded in ``excluded`` with the
reason). It may not add queries or change a query's text, answer or domain: those define the
query, and the tiers, stored rankings and judge scores are built from them — so every version
is evaluated on the original set's tiers and compared on the same documents. (To change the
queries themselves, re-import: that makes a new ``original``.)

Writing is atomic: the folder is built aside and renamed into place, and an existing version is
never replaced (a name is used once). The one exception is the version a labelling visit of the
inspector still holds open (workbench.project.visit): its further changes amend it in place
(amend_version: built aside and swapped in) and an undo that empties it removes it
(remove_version); once the visit ends it is closed like every other. The API (stable; other
modules build on it):

  list_versions(root)                      every version, ``original`` first
  version_info(root, name)                 one VersionInfo (ProjectError if unknown)
  load_queries(root, name)                 a version's queries, validated (ProjectError)
  read_labels(root, name)                  its LabelRecords (``original`` has none)
  lineage(root, name)                      [name, parent, …, "original"]
  new_version_name(root, stem)             the next free "<stem>-N"
  write_version(project, queries, labels, parent=…, made_by=…, …)   a new version, atomically
  amend_version(project, name, queries, labels, description=…)   an open version re-written
  remove_version(root, name)               an open version that became empty, removed
  load_project(root, queries_version=name) (workbench/project/load.py) a Project over that version
"""

from __future__ import annotations

import os
import re
import shutil
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

import msgspec

from workbench.fsutil import atomic_replace_dir, fresh_temp_dir, project_lock, sha256_bytes
from workbench.project.files import ORIGINAL_VERSION, QUERIES_FILE, Problem, Project, ProjectError, encode_jsonl, iter_jsonl, query_problems
from workbench.records import Query

ORIGINAL = ORIGINAL_VERSION
VERSIONS_DIR = "query_sets"
QUERIES_NAME = "queries.jsonl"
LABELS_NAME = "labels.jsonl"
INFO_NAME = "version.json"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")

# What one label did to the set.
Action = Literal[
    "add_gold",             # a document added to a query's gold (e.g. a verified false negative)
    "add_hard_negative",    # a document added to a query's hard negatives
    "remove_gold",
    "remove_hard_negative",
    "exclude_query",        # the query left out of this version (reason says why)
    "flag_unsuitable",      # the query has no plausible near miss (collide); kept or left out per settings
    "none",                 # a verdict recorded without effect (unverified, or its query was excluded)
]


class LabelRecord(msgspec.Struct, frozen=True, omit_defaults=True):
    """Provenance of one label: what it did, to which query/document, who or what decided, why."""

    query_id: str
    action: Action
    doc_id: int | None = None
    # The verdict as its author gave it, e.g. "HARD_NEGATIVE" (a model) or "gold" (a person).
    label: str = ""
    # One sentence: the model's reason, or the person's note.
    reason: str = ""
    # Who or what decided: "model:<name>" or "user:<name>".
    by: str = ""
    # The procedure: "collide", "tui", … (settings live in VersionInfo.settings).
    method: str = ""
    # ISO-8601 UTC.
    created: str = ""
    # Per-label facts, e.g. {"source": "dense", "similarity": 0.71, "prompt_version": "c1", "attempts": 1}.
    details: dict[str, Any] = {}


class VersionInfo(msgspec.Struct, frozen=True, omit_defaults=True):
    name: str
    parent: str
    created: str
    # What made it: "collide", "tui:<user>", "import" (the original).
    made_by: str
    description: str = ""
    # The procedure's settings: mining options, verifier model and prompt version, …
    settings: dict[str, Any] = {}
    # sha256 of the original queries.jsonl it was made from, and of its own queries.jsonl.
    original_sha256: str = ""
    queries_sha256: str = ""
    n_queries: int = 0
    # Queries of the original left out of this version: query_id → reason.
    excluded: dict[str, str] = {}
    # When it last changed (ISO-8601 UTC): ``created`` unless a labelling visit amended it; the
    # original's is queries.jsonl's last write (an import, add-query, an edited answer), and its
    # ``created`` is "" — no record says when the project's query set was first made.
    changed: str = ""


def last_changed(info: VersionInfo) -> str:
    """When a version last changed (older records have no ``changed``: amended, else created)."""
    return info.changed or str(info.settings.get("amended") or "") or info.created


def now_utc() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def versions_dir(root: Path) -> Path:
    return Path(root) / VERSIONS_DIR


def _problem(path: Path | str, message: str, line: int | None = None, fld: str | None = None) -> Problem:
    return Problem(str(path), line, fld, message)


def _error(path: Path | str, message: str, fld: str | None = None) -> ProjectError:
    return ProjectError([_problem(path, message, fld=fld)])


def _original_info(root: Path) -> VersionInfo:
    path = Path(root) / QUERIES_FILE
    data = path.read_bytes() if path.exists() else b""
    n = sum(1 for line in data.split(b"\n") if line.strip())
    digest = sha256_bytes(data)
    # the file's time is its last write (every edit rewrites it), not when the set was made
    changed = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc).replace(microsecond=0).isoformat() if path.exists() else ""
    return VersionInfo(ORIGINAL, "", "", "import", "the project's queries.jsonl", original_sha256=digest,
                       queries_sha256=digest, n_queries=n, changed=changed)


def list_versions(root: Path | str) -> list[VersionInfo]:
    """``original`` first, then the stored versions by creation time. A folder whose
    version.json does not decode is skipped (it is not a version: e.g. a foreign folder)."""
    root = Path(root)
    found = []
    base = versions_dir(root)
    if base.is_dir():
        for d in base.iterdir():
            if d.name.startswith(".") or not (d / INFO_NAME).exists():
                continue
            try:
                found.append(msgspec.json.decode((d / INFO_NAME).read_bytes(), type=VersionInfo))
            except msgspec.DecodeError:
                continue
    return [_original_info(root), *sorted(found, key=lambda v: (v.created, v.name))]


def version_info(root: Path | str, name: str) -> VersionInfo:
    root = Path(root)
    if name == ORIGINAL:
        return _original_info(root)
    path = versions_dir(root) / name / INFO_NAME
    if not _NAME.match(name) or not path.exists():
        known = [v.name for v in list_versions(root)]
        raise _error(versions_dir(root) / name, f"no query-set version {name!r}; known: {known}")
    try:
        return msgspec.json.decode(path.read_bytes(), type=VersionInfo)
    except msgspec.ValidationError as exc:
        raise _error(path, f"not a version record: {exc}") from None
    except msgspec.DecodeError as exc:
        raise _error(path, f"malformed JSON: {exc}") from None


def queries_path(root: Path | str, name: str) -> Path:
    root = Path(root)
    return root / QUERIES_FILE if name == ORIGINAL else versions_dir(root) / name / QUERIES_NAME


def load_queries(root: Path | str, name: str = ORIGINAL, originals: list[Query] | None = None) -> list[Query]:
    """A version's queries (validated by load_project against the corpus), each with its reference
    answer as queries.jsonl has it now (``originals``: queries.jsonl's queries, when already read)."""
    version_info(root, name)  # unknown name → a readable error listing the known ones
    problems: list = []
    queries = [q for _, q in iter_jsonl(queries_path(root, name), Query, problems)]
    if problems:
        raise ProjectError(problems)
    if name == ORIGINAL:
        return queries
    if originals is None:
        originals = [q for _, q in iter_jsonl(queries_path(root, ORIGINAL), Query, [])]
    return with_current_answers(originals, queries)


def with_current_answers(originals: list[Query], version: list[Query]) -> list[Query]:
    """A version's queries with their reference answers as the original set has them now: an
    answer is not a label (it defines the query and is edited in queries.jsonl), so a version made
    before an answer was edited still loads, and is labelled further, with the answer as edited."""
    by_id = {q.query_id: q for q in originals}
    out = []
    for q in version:
        o = by_id.get(q.query_id)
        if o is not None and (q.answer, q.canonical_answer, q.answer_aliases) != (o.answer, o.canonical_answer, o.answer_aliases):
            q = msgspec.structs.replace(q, answer=o.answer, canonical_answer=o.canonical_answer, answer_aliases=o.answer_aliases)
        out.append(q)
    return out


def read_labels(root: Path | str, name: str) -> list[LabelRecord]:
    if name == ORIGINAL:
        return []
    version_info(root, name)
    problems: list = []
    labels = [r for _, r in iter_jsonl(versions_dir(Path(root)) / name / LABELS_NAME, LabelRecord, problems)]
    if problems:
        raise ProjectError(problems)
    return labels


def lineage(root: Path | str, name: str) -> list[str]:
    """The chain of parents down to the original: [name, parent, …, "original"]."""
    chain = [name]
    while chain[-1] != ORIGINAL:
        parent = version_info(root, chain[-1]).parent or ORIGINAL
        if parent in chain:  # a hand-edited cycle: stop rather than loop
            break
        chain.append(parent)
    return chain


def new_version_name(root: Path | str, stem: str) -> str:
    taken = {v.name for v in list_versions(root)}
    n = 1
    while f"{stem}-{n}" in taken or (versions_dir(Path(root)) / f"{stem}-{n}").exists():
        n += 1
    return f"{stem}-{n}"


def check_relabelling(project: Project, queries: list[Query], where: str) -> list:
    """Problems that make ``queries`` not a relabelling of the project's original set
    (line numbers are 1-based positions in ``queries``), plus the corpus checks of project.validate."""
    problems = []
    original = {q.query_id: q for q in project.original_queries}
    for line, q in enumerate(queries, 1):
        o = original.get(q.query_id)
        if o is None:
            problems.append(_problem(where, "not in the original query set: a version relabels queries, "
                                     "it cannot add them (import them instead)", line, "query_id"))
            continue
        for fld in ("query", "answer", "domain"):
            if getattr(q, fld) != getattr(o, fld):
                problems.append(_problem(where, f"differs from the original: a version keeps each query's {fld} "
                                         "(tiers, rankings and judge scores depend on it)", line, fld))
    problems.extend(query_problems(list(enumerate(queries, 1)), where, project.documents))  # no document parsed
    return problems


def write_version(
    project: Project,
    queries: list[Query],
    labels: list[LabelRecord],
    *,
    made_by: str,
    parent: str | None = None,
    name: str | None = None,
    stem: str = "v",
    description: str = "",
    settings: dict[str, Any] | None = None,
    excluded: dict[str, str] | None = None,
) -> VersionInfo:
    """Validate and write a new version atomically; never replaces an existing one.

    ``parent`` defaults to the project's loaded version. ``excluded`` defaults to the parent's
    queries missing from ``queries`` with the reason of their exclude_query label (or "removed")."""
    # two writers at once (two TUIs, a collide and a relabel) must not pick the same new name
    with project_lock(project.root):
        return _write_version(project, queries, labels, made_by=made_by, parent=parent, name=name, stem=stem,
                              description=description, settings=settings, excluded=excluded)


def _write_version(
    project: Project, queries: list[Query], labels: list[LabelRecord], *, made_by: str, parent: str | None,
    name: str | None, stem: str, description: str, settings: dict[str, Any] | None, excluded: dict[str, str] | None,
) -> VersionInfo:
    root = project.root
    parent = parent or project.queries_version
    version_info(root, parent)
    name = name or new_version_name(root, stem)
    target = versions_dir(root) / name
    if name == ORIGINAL or not _NAME.match(name):
        raise _error(target, "a version name is letters, digits, '.', '_' or '-' (and not 'original')", "name")
    if target.exists():
        raise _error(target, "this version exists already: versions are never overwritten; choose another name", "name")
    where = str(target / QUERIES_NAME)
    problems = check_relabelling(project, queries, where)
    if problems:
        raise ProjectError(problems)
    if excluded is None:
        reasons = {r.query_id: r.reason for r in labels if r.action == "exclude_query"}
        kept = {q.query_id for q in queries}
        excluded = {q.query_id: reasons.get(q.query_id, "removed")
                    for q in load_queries(root, parent) if q.query_id not in kept}
    data = encode_jsonl(queries)
    created = now_utc()
    info = VersionInfo(
        name=name, parent=parent, created=created, changed=created, made_by=made_by, description=description,
        settings=settings or {}, original_sha256=sha256_bytes(queries_path(root, ORIGINAL).read_bytes()),
        queries_sha256=sha256_bytes(data), n_queries=len(queries), excluded=excluded,
    )
    # a non-empty folder of the same name (another writer) makes the rename fail
    _write_folder(target, data, labels, info, lambda tmp: os.rename(tmp, target))
    return info


def _write_folder(target: Path, data: bytes, labels: list[LabelRecord], info: VersionInfo, install) -> None:
    tmp = fresh_temp_dir(target)
    try:
        (tmp / QUERIES_NAME).write_bytes(data)
        (tmp / LABELS_NAME).write_bytes(encode_jsonl(labels))
        # version.json last: a folder without it is not listed as a version
        (tmp / INFO_NAME).write_bytes(msgspec.json.format(msgspec.json.encode(info), indent=1) + b"\n")
        for f in tmp.iterdir():
            with open(f, "rb") as fh:
                os.fsync(fh.fileno())
        install(tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def amend_version(project: Project, name: str, queries: list[Query], labels: list[LabelRecord], *,
                  description: str) -> VersionInfo:
    """Re-write the version a labelling visit holds open with its queries and labels now (built
    aside, swapped in under the project lock); its name, parent, maker and creation time stay,
    settings["amended"] says when it last changed. ``project``: the original (checks the set)."""
    root = project.root
    with project_lock(root):
        old = version_info(root, name)
        target = versions_dir(root) / name
        problems = check_relabelling(project, queries, str(target / QUERIES_NAME))
        if problems:
            raise ProjectError(problems)
        data = encode_jsonl(queries)
        amended = now_utc()
        info = msgspec.structs.replace(old, description=description, queries_sha256=sha256_bytes(data),
                                       n_queries=len(queries), settings={**old.settings, "amended": amended}, changed=amended,
                                       original_sha256=sha256_bytes(queries_path(root, ORIGINAL).read_bytes()))
        _write_folder(target, data, labels, info, lambda tmp: atomic_replace_dir(tmp, target))
        return info


def remove_version(root: Path | str, name: str) -> None:
    """Remove a version a labelling visit held open and emptied (undo of its every change)."""
    root = Path(root)
    with project_lock(root):
        version_info(root, name)  # an unknown name is an error, never a silent no-op
        target = versions_dir(root) / name
        aside = target.with_name(f".{name}.removed-{os.getpid()}")
        os.replace(target, aside)  # gone from list_versions at once; the files after
        shutil.rmtree(aside, ignore_errors=True)
