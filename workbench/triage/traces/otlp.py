"""OTLP JSON as the OpenTelemetry Collector's file exporter writes it: one
``{"resourceSpans": [...]}`` document per line (or one document for the whole file).

The file is decoded whole before anything is used: a line that is not JSON, or not an OTLP
document, refuses the file (file:line). Inside a valid document, a span that cannot be used (no
trace or span id, not an object) is skipped and reported where it is (`file:line`, span index).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from workbench.project.files import Problem
from workbench.triage.traces.spans import Skipped, Span, decode, flatten, hex_id, json_lines

MAX_NESTING = 32  # AnyValue arrays / kv-lists deeper than this are cut (no convention nests so deep)


def any_value(v: Any, depth: int = 0) -> Any:
    """OTLP AnyValue → Python: int64 comes as a string in JSON; arrays and kv-lists nest."""
    if not isinstance(v, dict) or depth > MAX_NESTING:
        return None
    if "stringValue" in v:
        return v["stringValue"]
    if "boolValue" in v:
        return bool(v["boolValue"])
    if "intValue" in v:
        try:
            return int(v["intValue"])
        except (TypeError, ValueError):
            return None
    if "doubleValue" in v:
        try:
            return float(v["doubleValue"])
        except (TypeError, ValueError):
            return None
    if "arrayValue" in v:
        return [any_value(x, depth + 1) for x in (v["arrayValue"] or {}).get("values", []) or []]
    if "kvlistValue" in v:
        return key_values((v["kvlistValue"] or {}).get("values", []) or [], depth + 1)
    if "bytesValue" in v:
        return v["bytesValue"]
    return None


def key_values(items: Any, depth: int = 0) -> dict[str, Any]:
    if not isinstance(items, list):
        return {}
    return {kv["key"]: any_value(kv.get("value"), depth) for kv in items if isinstance(kv, dict) and isinstance(kv.get("key"), str)}


CONTENT_EVENTS = ("gen_ai.content.prompt", "gen_ai.content.completion")


def with_events(s: dict) -> dict[str, Any]:
    """The span's attributes, with those of the GenAI content events (`gen_ai.content.prompt` /
    `.completion`, where earlier GenAI conventions put `gen_ai.prompt` / `gen_ai.completion`) beside them."""
    attrs = key_values(s.get("attributes"))
    for e in s.get("events") or []:
        if isinstance(e, dict) and e.get("name") in CONTENT_EVENTS:
            for k, v in key_values(e.get("attributes")).items():
                attrs.setdefault(k, v)
    return attrs


def _nanos(v: Any) -> int | None:
    try:
        return int(v) if v is not None else None
    except (TypeError, ValueError):
        return None


def is_otlp(doc: Any) -> bool:
    return isinstance(doc, dict) and "resourceSpans" in doc


def documents(path: Path, raw: bytes, problems: list[Problem]) -> list[tuple[int, dict]]:
    """(line, document) pairs: one pretty-printed document, else one per line."""
    try:
        whole = decode(raw)
    except msgspec.DecodeError:
        whole = None
    if is_otlp(whole):
        return [(1, whole)]
    return json_lines(path, raw, problems, is_otlp, "not an OTLP JSON document (no resourceSpans)")


def _list(doc: dict, *keys: str) -> list:
    for k in keys:
        v = doc.get(k)
        if isinstance(v, list):
            return v
    return []


def read_otlp(path: Path, raw: bytes, problems: list[Problem], skipped: list[Skipped]) -> list[Span]:
    spans = []
    for lineno, doc in documents(path, raw, problems):
        n = 0
        for rs in _list(doc, "resourceSpans"):
            if not isinstance(rs, dict):
                continue
            for ss in _list(rs, "scopeSpans", "instrumentationLibrarySpans"):
                for s in _list(ss, "spans") if isinstance(ss, dict) else []:
                    n += 1
                    where = f"{path}:{lineno}"
                    if not isinstance(s, dict):
                        skipped.append(Skipped(f"{where} (span {n})", "not a span object"))
                        continue
                    trace, span = hex_id(s.get("traceId"), 16), hex_id(s.get("spanId"), 8)
                    if trace is None or span is None:
                        what = "trace id" if trace is None else "span id"
                        skipped.append(Skipped(f"{where} (span {n}, {s.get('name', '?')!r})", f"no valid {what}"))
                        continue
                    spans.append(Span(
                        trace_id=trace, span_id=span, parent_id=hex_id(s.get("parentSpanId"), 8),
                        name=str(s.get("name") or ""), start_ns=_nanos(s.get("startTimeUnixNano")),
                        end_ns=_nanos(s.get("endTimeUnixNano")), attributes=flatten(with_events(s)),
                        where=f"{where} (span {span})",
                    ))
    return spans
