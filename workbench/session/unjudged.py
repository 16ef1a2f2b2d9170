"""Unjudged documents for labelling: one query's list on one tier (the inspector's stepper; its
marks are labelling.label_document's with judged=True) and which queries have an answer-bearing
unjudged document (the query list's filter word); over workbench/insight/unjudged.py."""

from __future__ import annotations

import threading

from workbench.insight.unjudged import StepperDoc, queries_with_answer_bearing, query_unjudged
from workbench.project.files import Project
from workbench.records import TierSet
from workbench.session.state import Session

# The last project asked about (labels change the project object): its queries with an
# answer-bearing unjudged document. One slot: the filter asks again for every row.
_answer_bearing: tuple[Project, TierSet | None, frozenset[str]] | None = None
_answer_bearing_lock = threading.Lock()


def unjudged_documents(session: Session, query_id: str, tier: str) -> list[StepperDoc]:
    """The query's documents in some system's top K on the tier that nobody judged (neither gold,
    nor hard negative, nor labelled otherwise), answer-bearing first, then by best rank."""
    return query_unjudged(session.project, session.tier(tier), query_id)


def has_answer_bearing_unjudged(session: Session, query_id: str) -> bool:
    """Whether some system's top K on some tier holds an unjudged document stating the query's answer."""
    global _answer_bearing
    with _answer_bearing_lock:
        cached = _answer_bearing
        if cached is None or cached[0] is not session.project or cached[1] is not session.tierset:
            found = frozenset(queries_with_answer_bearing(session.project, session.tiers))
            cached = _answer_bearing = (session.project, session.tierset, found)
    return query_id in cached[2]
