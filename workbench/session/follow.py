"""Following the project live: the TUI notices what another process changed — a trace import
(`workbench import-traces`, `workbench collect` receiving from production), a query added or edited
(`workbench add-query`), labels (a query-set version), model answers (`workbench run`,
`import-answers`) — reads the project again and says what changed. The production stamp is the
ledger's (triage/ledger.py), written whole per batch; the project stamp adds the project's own files."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from workbench.project.files import Project
from workbench.records import TierSet
from workbench.session.state import Session

if TYPE_CHECKING:
    from workbench.triage.live.feedback import Feedback

Stamp = tuple[tuple[str, int, int], ...]


def production_stamp(project: Project) -> Stamp:
    """The production ledger's files and the collections' feedback records: names, sizes and times
    (a stat per file: cheap enough to poll each second). A batch is committed whole before the
    ledger's files change, so a reload sees whole batches. The TUI's own writes (labels, an added
    query) never touch these files."""
    from workbench.triage.ledger import stamp
    from workbench.triage.traces.store import TRACES_DIR

    state = project.state_dir
    try:
        files = [*(state / TRACES_DIR).glob("*/feedback.json")]
        return stamp(state) + tuple(sorted((str(p), s.st_mtime_ns, s.st_size) for p in files if (s := p.stat())))
    except OSError:  # a file replaced between the listing and its stat: the next poll sees it whole
        return ()


def project_stamp(project: Project) -> Stamp:
    """What any change to the project moves: the production stamp, the query files (queries.jsonl,
    its edit log, documents.jsonl, workbench.toml), every file of the query-set versions (labels),
    and the model answers' folders (a stored answer is written by rename: its folder's time moves).
    Stats only (tens of files and folders): cheap enough to poll each second, off the UI thread."""
    import os

    from workbench.llm.store import LLM_DIR
    from workbench.project.files import QUERIES_FILE
    from workbench.project.versions import VERSIONS_DIR
    from workbench.triage.queries import EDITS_FILE

    root = project.root
    paths = [root / name for name in (QUERIES_FILE, EDITS_FILE, "documents.jsonl", "workbench.toml")]
    for top, kind in ((root / VERSIONS_DIR, "files"), (project.state_dir / LLM_DIR, "folders")):
        for folder, dirs, files in os.walk(top):
            dirs.sort()
            paths.append(Path(folder))
            if kind == "files":
                paths += [Path(folder) / f for f in sorted(files)]
    out = []
    for p in paths:
        try:
            st = p.stat()
        except OSError:
            continue  # absent (no edits yet), or replaced between the listing and its stat: the next poll sees it
        out.append((str(p), st.st_mtime_ns, st.st_size))
    return production_stamp(project) + tuple(out)


def production_arrivals(before: Session | None, after: Session) -> list[str]:
    """The production queries ``after`` has that ``before`` had not (in the project's order)."""
    from workbench.triage.traces.store import cached_query_sources

    old = {q.query_id for q in before.project.queries} if before is not None else set()
    traced = {qid for qid, words in cached_query_sources(after.project).items() if "from:traces" in words}
    return [q.query_id for q in after.project.queries if q.query_id not in old and q.query_id in traced]


class Reloaded(msgspec.Struct, frozen=True):
    """The project as another process left it: its tiers (None: stale, a build is needed), why
    stale, the production queries that arrived, and what else changed."""

    project: Project
    tierset: TierSet | None
    stale: list[str]
    arrived: list[str]
    added: list[str] = []  # queries added (other than production's arrivals), in the project's order
    edited: list[str] = []  # queries whose text, answer, gold or negatives changed
    removed: list[str] = []
    labels: bool = False  # a query-set version (labels) was written
    answers: bool = False  # stored model answers or production imports changed

    @property
    def changed(self) -> bool:
        return bool(self.arrived or self.added or self.edited or self.removed or self.labels or self.answers)


def changes_said(r: Reloaded) -> str:
    """What another process changed, in one notice ("" when nothing the user sees did)."""
    def ids(what: list[str]) -> str:
        return ", ".join(what[:3]) + (", …" if len(what) > 3 else "")

    parts = [f"{len(qs)} quer{'y' if len(qs) == 1 else 'ies'} {verb} ({ids(qs)})"
             for verb, qs in (("added", r.added), ("edited", r.edited), ("removed", r.removed)) if qs]
    if r.arrived:
        parts.append(f"{len(r.arrived)} production quer{'y' if len(r.arrived) == 1 else 'ies'} arrived from traces "
                     f"({ids(r.arrived)}): marked new; from:traces lists them")
    if r.labels:
        parts.append("labels changed (a query-set version was written)")
    if r.answers:
        parts.append("model answers or production imports changed: verdicts are read again")
    return "; ".join(parts)


def reload_production(session: Session, queries_version: str | None = None, before: Stamp = (),
                      after: Stamp = ()) -> Reloaded:
    """The project read again after a change elsewhere (call from a worker; install with
    install_reload on the front end's thread). ``before`` and ``after`` (project_stamp) say whether
    labels or answers changed; the queries are compared record by record."""
    from workbench.llm.store import LLM_DIR
    from workbench.project.versions import VERSIONS_DIR
    from workbench.session.state import open_session
    from workbench.triage.ledger import LEDGER_FILE

    fresh, stale = open_session(session.root, queries_version)
    arrived = production_arrivals(session, fresh)
    old = {q.query_id: q for q in session.project.queries}
    new_ids = [q.query_id for q in fresh.project.queries]
    added = [qid for qid in new_ids if qid not in old and qid not in arrived]
    edited = [q.query_id for q in fresh.project.queries if q.query_id in old and q != old[q.query_id]]
    removed = [qid for qid in old if qid not in set(new_ids)]
    moved = {x[0] for x in set(before) ^ set(after)}  # the paths whose time or size changed (or that came or went)
    labels = any(f"/{VERSIONS_DIR}" in p for p in moved)
    answers = any(f"/{LLM_DIR}" in p or LEDGER_FILE in p for p in moved)
    return Reloaded(fresh.project, fresh.tierset, stale, arrived, added, edited, removed, labels, answers)


def install_reload(session: Session, r: Reloaded) -> None:
    """The reloaded project in the open session: its one-query results, label history and visit stay."""
    session.project = r.project
    if r.tierset is not None:
        session.tierset = r.tierset
    with session._lock:
        session._inspections.clear()  # the tiers may hold the new queries: every inspection is read again


def production_feedback(project: Project) -> dict[str, Feedback]:
    """Per query, the users' feedback recorded on production's traces (every collection's
    `--feedback-key`; where two disagree, a negative one wins: the complaint is what the list
    brings first)."""
    from workbench.triage.live.feedback import FEEDBACK_FILE, QueryFeedback
    from workbench.triage.traces.store import TRACES_DIR

    out: dict[str, Feedback] = {}
    for path in sorted((project.state_dir / TRACES_DIR).glob(f"*/{FEEDBACK_FILE}")):
        try:
            record = msgspec.json.decode(path.read_bytes(), type=QueryFeedback)
        except (OSError, msgspec.DecodeError):
            continue  # derived: rewritten by the collection's next import
        for qid, fb in record.queries.items():
            if qid not in out or (fb.negative and not out[qid].negative):
                out[qid] = fb
    return out
