"""Labelling in one inspector visit makes one query-set version.

The first change of a visit (a mark, an edited answer) writes a new version, a child of the version
labelled from; every further change of the same visit amends that still-open version (under the
project lock, swapped in whole), and an undo takes the newest change of the visit back out of it
(an undo that empties it removes the version: the visit made nothing). Leaving the inspector, or
stepping to another query, closes the visit: from then on its version is never changed again.
Each change keeps its own LabelRecords (who, when) in the version's labels.jsonl.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from workbench.project.files import ORIGINAL_VERSION
from workbench.project.labels import METHOD, STEM, Mark, WriteAnswer, _remake, _user, mark_of, marked
from workbench.project.load import load_project
from workbench.project.versions import LabelRecord, amend_version, load_queries, now_utc, remove_version, write_version
from workbench.records import Query


@dataclass(frozen=True)
class Step:
    """One undoable change of a visit: a document's mark, what it was before, and its records."""

    query_id: str
    doc_id: int
    mark: Mark
    before: Mark
    records: tuple[LabelRecord, ...]


@dataclass
class LabelVisit:
    """The labelling of one inspector visit (one query, from opening to leaving)."""

    parent: str  # the version labelled from
    name: str | None = None  # the open version, once the visit's first change made it
    steps: list[Step] = field(default_factory=list)
    kept: list[LabelRecord] = field(default_factory=list)  # records undo does not take back (answer edits)

    @property
    def current(self) -> str:
        """The version worked on now: the open one, else the one labelled from."""
        return self.name or self.parent

    def records(self) -> list[LabelRecord]:
        return [*self.kept, *(r for s in self.steps for r in s.records)]

    def description(self) -> str:
        changes = [f"{s.query_id}: document {s.doc_id} marked {s.mark}" for s in self.steps]
        changes += [f"{r.query_id}: reference answer edited" for r in self.kept]
        return changes[0] if len(changes) == 1 else f"{len(changes)} changes in one visit: " + "; ".join(changes)


def _write(visit: LabelVisit, root: Path, queries: list[Query], by: str, description: str) -> str:
    if visit.name is None:
        parent = load_project(root, visit.parent)
        info = write_version(parent, queries, visit.records(), made_by=f"{METHOD}:{_user(by)}", stem=STEM,
                             description=description)
        visit.name = info.name
    else:
        amend_version(load_project(root), visit.name, queries, visit.records(), description=description)
    return visit.name


def mark(visit: LabelVisit, root: Path, query_id: str, doc_id: int, mark_: Mark, by: str, note: str = "",
         judged: bool = False) -> str | None:
    """Mark one document in the visit's version (made by this first change, amended after); the
    version's name, or None when the mark changes nothing. ``judged``: a mark that changes no list
    (an unjudged document marked not relevant) is still recorded, as the judgement it is (the
    unjudged count of workbench/insight/unjudged.py reads it)."""
    queries = load_queries(root, visit.current)
    query = next(q for q in queries if q.query_id == query_id)
    new, actions = marked(query, doc_id, mark_)
    if not actions and judged:
        actions = ["none"]
    if not actions:
        return None
    created = now_utc()
    records = tuple(LabelRecord(query_id, a, doc_id, label=mark_, reason=note, by=by, method=METHOD, created=created)  # type: ignore[arg-type]
                    for a in actions)
    visit.steps.append(Step(query_id, doc_id, mark_, mark_of(query, doc_id), records))
    try:
        return _write(visit, root, [new if q.query_id == query_id else q for q in queries], by, visit.description())
    except BaseException:
        visit.steps.pop()
        raise


def undo(visit: LabelVisit, root: Path, by: str) -> str | None:
    """Take the visit's newest mark back out of its open version (removed when nothing is left in
    it); the version worked on next, or None when the visit has nothing to undo."""
    if not visit.steps or visit.name is None:
        return None
    step = visit.steps.pop()
    if not visit.steps and not visit.kept:
        remove_version(root, visit.name)
        visit.name = None
        return visit.parent
    queries = load_queries(root, visit.name)
    queries = [marked(q, step.doc_id, step.before)[0] if q.query_id == step.query_id else q for q in queries]
    try:
        return _write(visit, root, queries, by, visit.description())
    except BaseException:
        visit.steps.append(step)
        raise


def edit_answer(visit: LabelVisit, root: Path, query_id: str, answer: str, by: str, edit_original_answer: WriteAnswer) -> str:
    """Change a reference answer (it lives in queries.jsonl, written by ``edit_original_answer``,
    passed down from the triage level) and carry it into the visit's version; the version worked
    on next (the original stays the original: an answer is no label)."""
    before = load_project(root, visit.current).query(query_id).answer
    edit_original_answer(root, query_id, answer)
    if visit.current == ORIGINAL_VERSION:
        return ORIGINAL_VERSION
    record = LabelRecord(query_id, "none", None, label="answer", reason=f"reference answer {before!r} → {answer!r}",
                         by=by, method=METHOD, created=now_utc())
    queries = [msgspec.structs.replace(q, answer=answer) if q.query_id == query_id else q
               for q in load_queries(root, visit.current)]
    visit.kept.append(record)
    if visit.name is None:  # checked against the new original, so the labelled chain stays loadable
        visit.name = _remake(root, visit.parent, queries, record, visit.description())
    else:
        amend_version(load_project(root), visit.name, queries, visit.records(), description=visit.description())
    return visit.name
