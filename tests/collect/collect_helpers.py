"""What the collect tests share: production's pipeline (tests/support/traces.py) exporting through
the real OTLP/HTTP exporter to a running `workbench collect`, and the same spans to a file (for
`import-traces` of the very same spans), and a wait on the receiver's figures."""

from __future__ import annotations

import json
import threading
import urllib.request
from pathlib import Path
from typing import Callable, Sequence

from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import support.traces as traces

FEEDBACK_KEY = "user.feedback"
FileExporter = traces.OtlpJsonFileExporter  # the original, before send_traces swaps in the Tee


class Tee(SpanExporter):
    """Each batch to the OTLP file (what import-traces reads) and to the receiver (OTLPSpanExporter, protobuf)."""

    def __init__(self, path: Path, endpoint: str, compression: str | None = None) -> None:
        from opentelemetry.exporter.otlp.proto.http import Compression
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        self.file = FileExporter(path)
        self.otlp = OTLPSpanExporter(endpoint=endpoint, timeout=30,
                                     compression=Compression.Gzip if compression == "gzip" else None)
        self.results: list[SpanExportResult] = []

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.file.export(spans)
        result = self.otlp.export(spans)
        self.results.append(result)
        return result

    def shutdown(self) -> None:
        self.otlp.shutdown()


class Feedback(SpanProcessor):
    """Production recording user feedback on the root span (as an app does when the user clicks 👎)."""

    def __init__(self, values: dict[str, object]) -> None:
        self.values = values  # query text → the feedback value

    def on_start(self, span, parent_context=None) -> None:
        if span.parent is None:
            value = self.values.get(str(span.attributes.get("input.value")))
            if value is not None:
                span.set_attribute(FEEDBACK_KEY, value)


def send_traces(monkeypatch, root: Path, path: Path, endpoint: str, queries=None, feedback: dict[str, object] | None = None,
                compression: str | None = "gzip") -> list[Tee]:
    """The pipeline over ``queries`` traced by the real SDK (BatchSpanProcessor), exported to both."""
    tees: list[Tee] = []

    def make(p: Path) -> Tee:
        tee = Tee(p, endpoint, compression)
        tees.append(tee)
        return tee

    class Provider(TracerProvider):
        def __init__(self, **kw) -> None:
            super().__init__(**kw)
            if feedback:
                self.add_span_processor(Feedback(feedback))

    monkeypatch.setattr(traces, "OtlpJsonFileExporter", make, raising=True)
    monkeypatch.setattr(traces, "TracerProvider", Provider, raising=True)
    try:
        traces.write_traces(root, path, queries)
    finally:
        monkeypatch.undo()
    return tees


def get_status(url: str, token: str | None = None) -> dict:
    req = urllib.request.Request(url + "/status", headers={"Authorization": f"Bearer {token}"} if token else {})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


class Changes:
    """The collector's on_change as an event: wait until its figures satisfy a condition (bounded)."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.last = None

    def __call__(self, status) -> None:
        with self.cond:
            self.last = status
            self.cond.notify_all()

    def wait(self, ok: Callable[[object], bool], timeout: float = 120.0):
        with self.cond:
            assert self.cond.wait_for(lambda: self.last is not None and ok(self.last), timeout), self.last
            return self.last


def sdk_traces(n: int) -> list:
    """n finished traces (a root and a retriever child each) made by the real SDK, one list of spans per trace."""
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("t")
    out = []
    for i in range(n):
        with tracer.start_as_current_span("rag", attributes={"openinference.span.kind": "CHAIN", "input.value": f"q{i}"}):
            with tracer.start_as_current_span("retrieve", attributes={"openinference.span.kind": "RETRIEVER"}):
                pass
        out.append(list(memory.get_finished_spans()))
        memory.clear()
    provider.shutdown()
    return out


def protobuf(spans) -> bytes:
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    return encode_spans(spans).SerializeToString()
