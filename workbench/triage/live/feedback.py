"""Users' feedback recorded on production's spans (a thumbs-down, a score: the attribute named by
`--feedback-key`), kept per imported query beside the imported traces
(.workbench/imports/traces/NAME/feedback.json), so the query list can put the queries users
complained about first: `load_feedback(project, name).queries[query_id]`, sort by `score`
(lowest first), filter on `negative`."""

from __future__ import annotations

from pathlib import Path

import msgspec

from workbench.fsutil import atomic_write_bytes
from workbench.project.files import Project
from workbench.triage.traces.spans import Span
from workbench.triage.traces.store import load_traces, traces_dir

FEEDBACK_FILE = "feedback.json"
NEGATIVE_WORDS = {"thumbs_down", "thumbs-down", "thumbsdown", "down", "negative", "bad", "dislike", "no", "false", "👎"}
POSITIVE_WORDS = {"thumbs_up", "thumbs-up", "thumbsup", "up", "positive", "good", "like", "yes", "true", "👍"}


class Feedback(msgspec.Struct, frozen=True):
    trace_id: str
    value: str | float | int | bool  # as the span recorded it
    score: float | None  # numbers as they are; thumbs up 1.0, thumbs down 0.0; other words None
    negative: bool  # a thumbs-down, or a score ≤ 0


class QueryFeedback(msgspec.Struct, frozen=True):
    name: str
    key: str
    queries: dict[str, Feedback]  # query id → the feedback of the trace imported for it


def reading(value: object) -> tuple[float | None, bool] | None:
    """(score, negative) of a recorded value; None: not feedback (a list, a dict, empty)."""
    if isinstance(value, bool):
        return (1.0, False) if value else (0.0, True)
    if isinstance(value, (int, float)):
        return float(value), value <= 0
    if isinstance(value, str) and value.strip():
        word = value.strip().casefold()
        if word in NEGATIVE_WORDS:
            return 0.0, True
        if word in POSITIVE_WORDS:
            return 1.0, False
        try:
            number = float(word)
        except ValueError:
            return None, False
        return number, number <= 0
    return None


def _metadata(span: Span) -> dict:
    """OpenInference's `metadata` attribute (a JSON object as a string): where apps often put feedback."""
    raw = span.attributes.get("metadata")
    if not isinstance(raw, str) or not raw.lstrip().startswith("{"):
        return {}
    try:
        doc = msgspec.json.decode(raw)
    except msgspec.DecodeError:
        return {}
    return doc if isinstance(doc, dict) else {}


def trace_feedback(spans: list[Span], key: str) -> dict[str, Feedback]:
    """Trace id → its feedback: the attribute (or key of the `metadata` attribute) on any span of it
    (the root's wins, else the latest span's)."""
    out: dict[str, tuple[tuple[int, int], Feedback]] = {}
    for s in spans:
        value = s.attributes.get(key, _metadata(s).get(key))
        read = reading(value)
        if read is None or not isinstance(value, (str, int, float, bool)):
            continue
        rank = (2 if s.parent_id is None else 1, s.end_ns or 0)
        old = out.get(s.trace_id)
        if old is None or rank >= old[0]:
            out[s.trace_id] = (rank, Feedback(s.trace_id, value, read[0], read[1]))
    return {t: f for t, (_, f) in out.items()}


def feedback_path(project: Project, name: str) -> Path:
    return traces_dir(project, name) / FEEDBACK_FILE


def write_feedback(project: Project, name: str, key: str, spans: list[Span]) -> QueryFeedback:
    """The feedback of the traces just added to run:NAME, per query (traces.json says which trace
    each is), over what earlier imports recorded: a query's latest trace decides its feedback."""
    by_trace = trace_feedback(spans, key)
    imported = load_traces(project, name)
    earlier = load_feedback(project, name)
    queries = dict(earlier.queries) if earlier is not None and earlier.key == key else {}
    handed = {s.trace_id for s in spans}
    for q in imported.queries if imported else []:
        if q.trace_id in by_trace:
            queries[q.query_id] = by_trace[q.trace_id]
        elif q.trace_id in handed:
            queries.pop(q.query_id, None)  # its latest trace carries no feedback
    record = QueryFeedback(name, key, dict(sorted(queries.items())))
    atomic_write_bytes(feedback_path(project, name), msgspec.json.encode(record))
    return record


def load_feedback(project: Project, name: str) -> QueryFeedback | None:
    try:
        return msgspec.json.decode(feedback_path(project, name).read_bytes(), type=QueryFeedback)
    except (OSError, msgspec.DecodeError):
        return None  # derived: rewritten by the next import
