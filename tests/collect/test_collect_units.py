"""The pieces under the receiver: when a trace is ready, the spool's torn line, feedback's reading."""

from __future__ import annotations

import pytest

from workbench.triage.live.feedback import reading
from workbench.triage.live.pending import Traces
from workbench.triage.live.spool import Spool
from workbench.triage.traces.spans import Span


def span(trace: str, sid: str, parent: str | None, ended: bool = True) -> Span:
    return Span(trace, sid, parent, "s", 1, 2 if ended else None, {}, "here")


def test_a_trace_is_ready_once_its_root_ended_and_it_settled():
    t = Traces()
    t.add([span("a", "1", None, ended=False), span("a", "2", "1")], now=0.0)
    assert t.ready(100.0, 1.0) == [] and t.next_due(1.0) is None  # the root has not ended
    t.add([span("a", "1", None)], now=5.0)  # the root's end, exported again (same ids): a new version is not kept
    assert t.new_spans([span("a", "1", None)]) == []
    t2 = Traces()
    t2.add([span("a", "2", "1"), span("a", "1", None)], now=5.0)
    assert t2.ready(5.5, 1.0) == [] and t2.next_due(1.0) == 6.0
    assert t2.ready(6.0, 1.0) == ["a"]
    assert t2.ready(5.5, 1.0, drain=True) == ["a"]  # draining: complete is enough
    spans, counts = t2.union(["a"])
    t2.imported.update(counts)
    assert len(spans) == 2 and t2.pending() == []
    t2.add([span("a", "3", "1")], now=7.0)  # a late span: the trace is imported again, whole
    assert t2.pending() == ["a"] and len(t2.union(t2.ready(9.0, 1.0))[0]) == 3


def test_duplicates_inside_one_request_count_once():
    t = Traces()
    batch = [span("a", "1", None), span("a", "1", None), span("b", "1", None)]
    assert len(t.new_spans(batch)) == 2 and t.new_traces(batch) == 2


def test_a_torn_spool_line_is_ignored_the_rest_read(tmp_path):
    spool = Spool(tmp_path / ".workbench" / "collect" / "live" / "spans.jsonl", tmp_path)
    spool.append([span("a", "1", None)])
    with spool.path.open("ab") as f:
        f.write(b'[{"trace_id":"b","span')  # a kill mid-write: never acknowledged
    spool.append([span("c", "1", None)])
    spans, torn = spool.read()
    assert [s.trace_id for s in spans] == ["a", "c"] and torn == 1


@pytest.mark.parametrize("value, expected", [
    ("thumbs_down", (0.0, True)), ("👍", (1.0, False)), (False, (0.0, True)), (True, (1.0, False)),
    (-1, (-1.0, True)), (4.5, (4.5, False)), ("0", (0.0, True)), ("meh", (None, False)), ([1], None), ("", None),
])
def test_feedback_values_read_as_a_score_and_a_complaint(value, expected):
    assert reading(value) == expected


def test_protobuf_reads_as_json_format_would_make_it():
    """The receiver's own protobuf → OTLP JSON (for speed) gives the spans protobuf's json_format path gives."""
    from pathlib import Path

    import msgspec
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from workbench.triage.live.decode import decode_spans
    from workbench.triage.traces.otlp import read_otlp

    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("t")
    with tracer.start_as_current_span("root", attributes={"s": "text", "i": 7, "f": 0.25, "b": True, "l": ["a", "b"],
                                                          "n": [1, 2], "e": ""}):
        with tracer.start_as_current_span("child", attributes={"x.0.y": 1.5}):
            pass
    unfinished = tracer.start_span("open")  # not ended: exported only as a fault would (end time unset)
    request = encode_spans([*memory.get_finished_spans(), unfinished])
    unfinished.end()
    mine, rejected = decode_spans(request.SerializeToString(), "application/x-protobuf", "req")
    problems, skipped = [], []
    theirs = read_otlp(Path("req"), msgspec.json.encode(MessageToDict(request)), problems, skipped)
    assert not problems and not rejected and not skipped
    assert mine == theirs and len(mine) == 3 and mine[-1].end_ns is None


def test_feedback_is_read_from_the_attribute_or_the_metadata_json():
    from workbench.triage.live.feedback import trace_feedback

    spans = [Span("a", "1", None, "rag", 1, 2, {"metadata": '{"user.feedback": "thumbs_down", "query_id": "q1"}'}, "w"),
             Span("b", "1", None, "rag", 1, 2, {"user.feedback": 4}, "w"),
             Span("b", "2", "1", "llm", 1, 3, {"user.feedback": "thumbs_down"}, "w"),  # the root's wins
             Span("c", "1", None, "rag", 1, 2, {"metadata": "not json"}, "w")]
    got = trace_feedback(spans, "user.feedback")
    assert {t: (f.score, f.negative) for t, f in got.items()} == {"a": (0.0, True), "b": (4.0, False)}


def test_collect_refuses_a_token_variable_unset_and_an_open_host_without_one(built_project, monkeypatch):
    from click.testing import CliRunner

    from workbench.cli import main

    monkeypatch.delenv("NO_SUCH_TOKEN", raising=False)
    r = CliRunner().invoke(main, ["collect", str(built_project), "--token-env", "NO_SUCH_TOKEN"])
    assert r.exit_code == 2 and "NO_SUCH_TOKEN" in r.output and "not set" in r.output
    r = CliRunner().invoke(main, ["collect", str(built_project), "--host", "0.0.0.0", "--port", "0"])
    assert r.exit_code == 2 and "bearer token is required" in r.output
