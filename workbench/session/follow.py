"""Following production live: the TUI notices a trace import made by another process
(`workbench import-traces`, or `workbench collect` receiving from production) and shows the
queries it brought. The stamp is the production ledger's (triage/ledger.py), written whole per batch."""

from __future__ import annotations

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


def production_arrivals(before: Session | None, after: Session) -> list[str]:
    """The production queries ``after`` has that ``before`` had not (in the project's order)."""
    from workbench.triage.traces.store import cached_query_sources

    old = {q.query_id for q in before.project.queries} if before is not None else set()
    traced = {qid for qid, words in cached_query_sources(after.project).items() if "from:traces" in words}
    return [q.query_id for q in after.project.queries if q.query_id not in old and q.query_id in traced]


class Reloaded(msgspec.Struct, frozen=True):
    """The project as another process left it: its tiers (None: stale, a build is needed), why
    stale, and the production queries that arrived."""

    project: Project
    tierset: TierSet | None
    stale: list[str]
    arrived: list[str]


def reload_production(session: Session, queries_version: str | None = None) -> Reloaded:
    """The project read again after an import elsewhere (call from a worker; install with
    install_reload on the front end's thread)."""
    from workbench.session.state import open_session

    fresh, stale = open_session(session.root, queries_version)
    return Reloaded(fresh.project, fresh.tierset, stale, production_arrivals(session, fresh))


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
