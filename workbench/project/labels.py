"""Labelling while triaging: each change is a new query-set version (workbench.project.versions).

A mark on one (query, document): `gold`, `hard_negative` or `not_relevant` (neither). Every change
is written at once, atomically, as a new version whose parent is the version labelled from, with
a LabelRecord per effect saying who (user:<name>) and when; versions are never overwritten, so
undo is one more version (the one before the change, re-made as a child) and the history stays.
The inspector batches: the changes of one visit go into one version it holds open
(workbench.project.visit, built on marked / mark_of here); label and undo are the one-change forms.
A reference answer is not a label (it defines the query, see query_sets): it is changed in
queries.jsonl (workbench.triage.queries.edit_original_answer) and the labelled version re-made on top of it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable, Literal

import msgspec

from workbench.errors import BadInput
from workbench.fsutil import atomic_write_bytes
from workbench.project.files import Project, encode_jsonl
from workbench.project.load import load_project
from workbench.project.versions import (
    ORIGINAL,
    LabelRecord,
    VersionInfo,
    list_versions,
    load_queries,
    now_utc,
    write_version,
)
from workbench.records import Query

# (root, query_id, answer) → the query as written into queries.jsonl (triage.queries.edit_original_answer)
WriteAnswer = Callable[[Path, str, str], Query]

Mark = Literal["gold", "hard_negative", "not_relevant"]
MARKS: tuple[Mark, ...] = ("gold", "hard_negative", "not_relevant")
STEM = "labels"
METHOD = "tui"


def marked(query: Query, doc_id: int, mark: Mark) -> tuple[Query, list[str]]:
    """The query with doc_id marked, and the query_sets actions that took it there ([] = no change)."""
    gold, negatives = list(query.gold_doc_ids), list(query.hard_negative_ids)
    actions = []
    if mark != "gold" and doc_id in gold:
        gold.remove(doc_id)
        actions.append("remove_gold")
    if mark != "hard_negative" and doc_id in negatives:
        negatives.remove(doc_id)
        actions.append("remove_hard_negative")
    if mark == "gold" and doc_id not in gold:
        gold.append(doc_id)
        actions.append("add_gold")
    if mark == "hard_negative" and doc_id not in negatives:
        negatives.append(doc_id)
        actions.append("add_hard_negative")
    return msgspec.structs.replace(query, gold_doc_ids=gold, hard_negative_ids=negatives), actions


def mark_of(query: Query, doc_id: int) -> Mark:
    if doc_id in query.gold_doc_ids:
        return "gold"
    return "hard_negative" if doc_id in query.hard_negative_ids else "not_relevant"


def _user(by: str) -> str:
    return by.split(":", 1)[1] if ":" in by else by


def label(project: Project, query_id: str, doc_id: int, mark: Mark, by: str, note: str = "") -> VersionInfo | None:
    """Mark one document for one query: a new version (child of the project's loaded version), or
    None when the mark changes nothing (it already was that)."""
    new, actions = marked(project.query(query_id), doc_id, mark)
    if not actions:
        return None
    created = now_utc()
    records = [LabelRecord(query_id, a, doc_id, label=mark, reason=note, by=by, method=METHOD, created=created) for a in actions]  # type: ignore[arg-type]
    queries = [new if q.query_id == query_id else q for q in project.queries]
    return write_version(project, queries, records, made_by=f"{METHOD}:{_user(by)}", stem=STEM,
                         description=f"{query_id}: document {doc_id} marked {mark}")


def undo(project: Project, target: str, undone: str, by: str) -> VersionInfo:
    """Re-make version `target` (the one before change `undone`) as a child of the loaded version."""
    queries = load_queries(project.root, target)
    mine = {q.query_id: q for q in project.queries}
    records = []
    for q in queries:
        cur = mine.get(q.query_id)
        if cur is None or (cur.gold_doc_ids, cur.hard_negative_ids) == (q.gold_doc_ids, q.hard_negative_ids):
            continue
        for doc_id in sorted(set(cur.gold_doc_ids) | set(cur.hard_negative_ids) | set(q.gold_doc_ids) | set(q.hard_negative_ids)):
            _, actions = marked(cur, doc_id, mark_of(q, doc_id))
            records += [LabelRecord(q.query_id, a, doc_id, label=mark_of(q, doc_id), reason=f"undo of {undone}", by=by,  # type: ignore[arg-type]
                                    method=METHOD, created=now_utc()) for a in actions]
    # an answer edited since `target` was made is kept: answers live in queries.jsonl, not in versions
    queries = [msgspec.structs.replace(q, answer=mine[q.query_id].answer) if q.query_id in mine else q for q in queries]
    return write_version(project, queries, records, made_by=f"{METHOD}:{_user(by)}", stem=STEM,
                         description=f"undo of {undone} (back to {target})")


def _remake(root: Path, version: str, queries: list[Query], record: LabelRecord, description: str) -> str:
    """A child of `version` holding `queries`, after queries.jsonl itself changed (an answer edited,
    a query added): checked against the new original, so the labelled chain stays loadable."""
    fresh = load_project(root)
    parent = Project(root=fresh.root, config=fresh.config, documents=fresh.documents, queries=fresh.queries,
                     queries_version=version, original_queries=fresh.queries)
    info = write_version(parent, queries, [record], made_by=f"{METHOD}:{_user(record.by)}", parent=version, stem=STEM,
                         description=description)
    return info.name


def edit_answer(root: Path, version: str, query_id: str, answer: str, by: str, edit_original_answer: WriteAnswer) -> str:
    """Change a reference answer; returns the version to work on next (a re-made child of
    `version` carrying the new answer, or the original). ``edit_original_answer`` writes it into
    queries.jsonl (the triage level's logged edit, passed down: project/ imports nothing above it)."""
    old = load_project(root, version) if version != ORIGINAL else load_project(root)
    before = old.query(query_id).answer
    edit_original_answer(root, query_id, answer)
    if version == ORIGINAL:
        return ORIGINAL
    queries = [msgspec.structs.replace(q, answer=answer) if q.query_id == query_id else q for q in old.queries]
    record = LabelRecord(query_id, "none", None, label="answer", reason=f"reference answer {before!r} → {answer!r}",
                         by=by, method=METHOD, created=now_utc())
    return _remake(root, version, queries, record, f"{query_id}: reference answer edited")


def carry_query(root: Path, version: str, query_id: str, by: str) -> str:
    """A query just added to queries.jsonl, carried into the labelled version being worked on (a
    re-made child that includes it); returns the version to work on next."""
    if version == ORIGINAL:
        return ORIGINAL
    queries = [*load_project(root, version).queries, load_project(root).query(query_id)]
    record = LabelRecord(query_id, "none", None, label="added", reason="query added from a log", by=by, method=METHOD,
                         created=now_utc())
    return _remake(root, version, queries, record, f"{query_id}: added from a log")


def source_id_map(project: Project) -> dict[str, int]:
    """The project's ID map: a document's source id (its own ID in the imported data) → DocID."""
    return {d.source_id if d.source_id is not None else str(d.doc_id): d.doc_id for d in project.documents.values()}


def newest_version(root: Path) -> str:
    return list_versions(root)[-1].name


def qrels_tsv(project: Project) -> str:
    """BEIR qrels: query-id, corpus-id (the document's source id, the user's own), score 1 for gold."""
    source = {doc_id: sid for sid, doc_id in source_id_map(project).items()}
    # a tab or newline in an ID would break the TSV's columns or rows: refused, never written
    bad = sorted({source[d] for q in project.queries for d in q.gold_doc_ids if re.search(r"[\t\r\n]", source[d])})
    if bad:
        raise BadInput(f"source id(s) with a tab or line break cannot be written as BEIR qrels: {bad[:5]!r}",
                       hint="Re-import the documents with IDs without tabs or line breaks.")
    rows = ["query-id\tcorpus-id\tscore\n"]
    rows += [f"{q.query_id}\t{source[d]}\t1\n" for q in project.queries for d in q.gold_doc_ids]
    return "".join(rows)


def export_labels(root: Path, out: Path, version: str | None = None) -> tuple[list[Path], str]:
    """out/qrels/test.tsv (BEIR) and out/queries.jsonl (this project's format) of one version."""
    name = version or newest_version(root)
    project = load_project(root, name)
    written = [out / "qrels" / "test.tsv", out / "queries.jsonl"]
    atomic_write_bytes(written[0], qrels_tsv(project).encode())
    atomic_write_bytes(written[1], encode_jsonl(project.queries))
    return written, name
