"""An OTLP/HTTP export request's body → spans: protobuf or JSON, gzip or not (the OTLP spec's
two encodings). Protobuf goes through protobuf's own JSON mapping into the same reader as an OTLP
JSON file (workbench.triage.traces.otlp), so a span collected live is the span `import-traces`
reads from a file."""

from __future__ import annotations

import zlib
from pathlib import Path

import msgspec

from workbench.project.files import Problem
from workbench.triage.traces.spans import Skipped, Span

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


def request_document(body: bytes, content_type: str) -> dict:
    """The request as OTLP JSON (`{"resourceSpans": [...]}`), whichever encoding it came in."""
    kind = media_type(content_type)
    if kind == PROTOBUF:
        from google.protobuf.json_format import MessageToDict
        from google.protobuf.message import DecodeError
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

        request = ExportTraceServiceRequest()
        try:
            request.ParseFromString(body)
        except DecodeError as exc:
            raise BadRequest(f"not an OTLP protobuf ExportTraceServiceRequest: {exc}") from None
        return MessageToDict(request)
    if kind == JSON:
        try:
            doc = msgspec.json.decode(body)
        except msgspec.DecodeError as exc:
            raise BadRequest(f"malformed JSON: {exc}") from None
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

    doc = request_document(body, content_type)
    if not doc.get("resourceSpans"):
        return [], []  # an empty export is valid: nothing to keep
    problems: list[Problem] = []
    skipped: list[Skipped] = []
    spans = read_otlp(Path(label), msgspec.json.encode(doc), problems, skipped)
    if problems:
        raise BadRequest("; ".join(p.message for p in problems))
    return spans, skipped
