"""An OTLP/HTTP export request's body → spans: protobuf or JSON, gzip or not (the OTLP spec's
two encodings). JSON goes to the same reader as an OTLP JSON file (workbench.triage.traces.otlp);
protobuf is read straight into spans by `proto_spans`, which keeps that reader's rules value for
value (ids, times, attributes and their nesting bound, the GenAI content events, what is skipped),
so a span collected live is the span `import-traces` reads from a file (tests/collect: the two
paths compared on real exports). Going through the JSON mapping instead cost a third of the
receiver's time at production's volume."""

from __future__ import annotations

import base64
import math
import zlib
from pathlib import Path
from typing import Any

import msgspec

from workbench.project.files import Problem
from workbench.triage.traces.otlp import CONTENT_EVENTS, MAX_NESTING
from workbench.triage.traces.spans import Skipped, Span, flatten, hex_id

PROTOBUF = "application/x-protobuf"
JSON = "application/json"


class BadRequest(Exception):
    """Not an OTLP export request (400): the reason names what was wrong."""


class TooLarge(Exception):
    """The body (after gzip) is over the configured cap (413)."""


class Unsupported(Exception):
    """A content type or encoding OTLP/HTTP does not define (415)."""


def media_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def inflate(body: bytes, encoding: str, max_bytes: int) -> bytes:
    """The body as sent before Content-Encoding; a gzip bomb stops at the cap, never expands whole."""
    enc = encoding.strip().lower()
    if enc in ("", "identity"):
        return body
    if enc != "gzip":
        raise Unsupported(f"Content-Encoding {encoding!r}: only gzip (or none)")
    d = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        out = d.decompress(body, max_bytes + 1)
    except zlib.error as exc:
        raise BadRequest(f"not gzip: {exc}") from None
    if len(out) > max_bytes:
        raise TooLarge(f"over {max_bytes} bytes once un-gzipped")
    if not d.eof:
        raise BadRequest("gzip stream truncated")
    return out


def any_value(v: Any, depth: int = 0) -> dict:
    """An AnyValue message as OTLP JSON writes it (what protobuf's json_format makes, three times faster).
    Deeper than the file reader keeps (MAX_NESTING), a value is left out, as the file reader leaves it."""
    if depth > MAX_NESTING:
        return {}
    which = v.WhichOneof("value")
    if which == "string_value":
        return {"stringValue": v.string_value}
    if which == "int_value":
        return {"intValue": v.int_value}
    if which == "double_value":
        return {"doubleValue": v.double_value}
    if which == "bool_value":
        return {"boolValue": v.bool_value}
    if which == "array_value":
        return {"arrayValue": {"values": [any_value(x, depth + 1) for x in v.array_value.values]}}
    if which == "kvlist_value":
        return {"kvlistValue": {"values": key_values(v.kvlist_value.values, depth + 1)}}
    if which == "bytes_value":
        return {"bytesValue": base64.b64encode(v.bytes_value).decode()}
    return {}


def key_values(items: Any, depth: int = 0) -> list[dict]:
    return [{"key": kv.key, "value": any_value(kv.value, depth)} for kv in items]


def proto_document(request: Any) -> dict:
    """An ExportTraceServiceRequest as the OTLP JSON document the file reader takes: the fields a
    span is read by (ids as hex, times, name, attributes, the content events); the rest is not used.
    The reference `proto_spans` is held to (tests/collect)."""
    resource_spans = []
    for rs in request.resource_spans:
        scopes = []
        for ss in rs.scope_spans:
            scopes.append({"spans": [{
                "traceId": s.trace_id.hex(), "spanId": s.span_id.hex(), "parentSpanId": s.parent_span_id.hex(),
                "name": s.name, "startTimeUnixNano": s.start_time_unix_nano or None,  # 0: unset, as json_format omits it
                "endTimeUnixNano": s.end_time_unix_nano or None,
                "attributes": key_values(s.attributes),
                # the GenAI content events, where earlier conventions put the prompt and completion (the file reader's)
                "events": [{"name": e.name, "attributes": key_values(e.attributes)} for e in s.events if e.name in CONTENT_EVENTS],
            } for s in ss.spans]})
        resource_spans.append({"scopeSpans": scopes})
    return {"resourceSpans": resource_spans} if resource_spans else {}


def proto_value(v: Any, depth: int = 0) -> Any:
    """An AnyValue message → Python, as otlp.any_value reads its JSON form (bytes as base64 text, a
    double that JSON cannot hold as None, a value past MAX_NESTING left out)."""
    if depth > MAX_NESTING:
        return None
    which = v.WhichOneof("value")
    if which == "string_value":
        return v.string_value
    if which == "int_value":
        return v.int_value
    if which == "double_value":
        d = v.double_value
        return d if math.isfinite(d) else None
    if which == "bool_value":
        return v.bool_value
    if which == "array_value":
        return [proto_value(x, depth + 1) for x in v.array_value.values]
    if which == "kvlist_value":
        return proto_attributes(v.kvlist_value.values, depth + 1)
    if which == "bytes_value":
        return base64.b64encode(v.bytes_value).decode()
    return None


def proto_attributes(items: Any, depth: int = 0) -> dict[str, Any]:
    return {kv.key: proto_value(kv.value, depth) for kv in items}


def proto_spans(request: Any, label: str, skipped: list[Skipped]) -> list[Span]:
    """An ExportTraceServiceRequest's spans, read as otlp.read_otlp reads the same request's OTLP JSON."""
    where = f"{Path(label)}:1"
    spans: list[Span] = []
    n = 0
    for rs in request.resource_spans:
        for ss in rs.scope_spans:
            for s in ss.spans:
                n += 1
                trace, span = hex_id(s.trace_id.hex(), 16), hex_id(s.span_id.hex(), 8)
                if trace is None or span is None:
                    what = "trace id" if trace is None else "span id"
                    skipped.append(Skipped(f"{where} (span {n}, {s.name!r})", f"no valid {what}"))
                    continue
                attrs = proto_attributes(s.attributes)
                for e in s.events:
                    if e.name in CONTENT_EVENTS:
                        for k, val in proto_attributes(e.attributes).items():
                            attrs.setdefault(k, val)
                spans.append(Span(trace_id=trace, span_id=span, parent_id=hex_id(s.parent_span_id.hex(), 8), name=s.name,
                                  start_ns=s.start_time_unix_nano or None, end_ns=s.end_time_unix_nano or None,
                                  attributes=flatten(attrs), where=f"{where} (span {span})"))
    return spans


def parse_request(body: bytes) -> Any:
    """The protobuf ExportTraceServiceRequest, or BadRequest."""
    from google.protobuf.message import DecodeError
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    request = ExportTraceServiceRequest()
    try:
        request.ParseFromString(body)
    except DecodeError as exc:
        raise BadRequest(f"not an OTLP protobuf ExportTraceServiceRequest: {exc}") from None
    return request


def request_document(body: bytes, content_type: str) -> dict:
    """The request as OTLP JSON (`{"resourceSpans": [...]}`), whichever encoding it came in."""
    kind = media_type(content_type)
    if kind == PROTOBUF:
        return proto_document(parse_request(body))
    if kind == JSON:
        try:
            doc = msgspec.json.decode(body)
        except msgspec.DecodeError as exc:
            raise BadRequest(f"malformed JSON: {exc}") from None
        except RecursionError:  # msgspec's own bound on nesting: an attribute nested thousands deep
            raise BadRequest("JSON nested too deeply to decode (an attribute value nested thousands of levels)") from None
        if not isinstance(doc, dict) or (doc and "resourceSpans" not in doc):
            raise BadRequest("not an OTLP JSON ExportTraceServiceRequest (no resourceSpans)")
        if not isinstance(doc.get("resourceSpans", []), list):
            raise BadRequest("resourceSpans is not a list")
        return doc
    raise Unsupported(f"Content-Type {content_type!r}: OTLP/HTTP is {PROTOBUF} or {JSON}")


def decode_spans(body: bytes, content_type: str, label: str) -> tuple[list[Span], list[Skipped]]:
    """(spans, spans rejected: no valid ids, not a span). ``label`` is where they came from (the
    request), kept in each span's `where` for the import's reports."""
    from workbench.triage.traces.otlp import read_otlp

    if media_type(content_type) == PROTOBUF:
        skipped_here: list[Skipped] = []
        try:
            return proto_spans(parse_request(body), label, skipped_here), skipped_here
        except RecursionError:
            raise BadRequest("a value nested too deeply to read") from None
    doc = request_document(body, content_type)
    if not doc.get("resourceSpans"):
        return [], []  # an empty export is valid: nothing to keep
    problems: list[Problem] = []
    skipped: list[Skipped] = []
    try:
        spans = read_otlp(Path(label), msgspec.json.encode(doc), problems, skipped)
    except RecursionError:  # whatever nesting the decoders let through: refused (400), never a dropped connection
        raise BadRequest("a value nested too deeply to read") from None
    if problems:
        raise BadRequest("; ".join(p.message for p in problems))
    return spans, skipped
