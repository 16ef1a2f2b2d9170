"""The pieces under the receiver: when a trace is ready, what an import is handed (only what just
became ready), the spool's durability and restart, feedback's reading."""

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
    spans, counts = t2.take(["a"])
    t2.imported(counts)
    assert len(spans) == 2 and t2.pending() == [] and t2.done == {"a": 2}


def test_an_import_is_handed_only_the_traces_that_just_became_ready():
    t = Traces()
    t.add([span("a", "1", None)], now=0.0)
    t.imported(t.take(t.ready(1.0, 0.5))[1])
    t.add([span("b", "1", None)], now=2.0)
    spans, counts = t.take(t.ready(3.0, 0.5))
    assert [s.trace_id for s in spans] == ["b"] and counts == {"b": 1}  # never the union with "a"


def test_a_late_span_makes_an_imported_trace_pending_again_whole(tmp_path):
    spool = Spool(tmp_path / ".workbench" / "collect" / "live" / "spool.sqlite", tmp_path)
    t = Traces(spool.span_ids, spool.trace_spans)
    first = [span("a", "1", None), span("a", "2", "1")]
    spool.append(first)
    t.add(first, now=0.0)
    spans, counts = t.take(t.ready(1.0, 0.5))
    spool.mark_imported(counts)
    t.imported(counts)
    assert t.pending() == [] and t.new_spans([span("a", "2", "1")]) == []  # re-sent: recognised from the spool
    late = t.new_spans([span("a", "3", "1")])
    spool.append(late)
    t.add(late, now=2.0)
    spans, counts = t.take(t.ready(3.0, 0.5))
    assert sorted(s.span_id for s in spans) == ["1", "2", "3"] and counts == {"a": 3}


def test_a_failed_import_waits_a_doubling_backoff():
    t = Traces()
    t.add([span("a", "1", None)], now=0.0)
    assert t.failed(["a"], now=1.0) == 1.0
    assert t.ready(1.5, 0.5) == [] and t.next_due(0.5) == 2.0 and t.ready(1.5, 0.5, drain=True) == ["a"]
    assert t.failed(["a"], now=2.0) == 2.0 and t.next_due(0.5) == 4.0
    t.imported({"a": 1})
    assert t.pending() == [] and t.retry_at == {} and t.failures == {}


def test_the_spool_restores_only_what_was_not_imported(tmp_path):
    path = tmp_path / ".workbench" / "collect" / "live" / "spool.sqlite"
    spool = Spool(path, tmp_path)
    spool.append([span("a", "1", None), span("b", "1", None), span("b", "2", "1")])
    spool.mark_imported({"a": 1})
    spool.close()
    done, pending = Spool(path, tmp_path).state()
    assert done == {"a": 1} and {t: sorted(s.span_id for s in v) for t, v in pending.items()} == {"b": ["1", "2"]}


def test_a_spool_of_the_earlier_format_is_taken_over_once(tmp_path):
    import msgspec

    folder = tmp_path / ".workbench" / "collect" / "live"
    folder.mkdir(parents=True)
    (folder / "spans.jsonl").write_bytes(msgspec.json.encode([span("a", "1", None)]) + b"\n"
                                         + b'[{"trace_id":"b","span' + b"\n"  # a kill mid-write: never acknowledged
                                         + msgspec.json.encode([span("c", "1", None), span("a", "1", None)]) + b"\n")
    spool = Spool(folder / "spool.sqlite", tmp_path)
    done, pending = spool.state()
    assert done == {} and sorted(pending) == ["a", "c"]
    assert not (folder / "spans.jsonl").exists() and (folder / "spans.jsonl.migrated").exists()


def test_a_full_database_is_an_error_and_keeps_nothing(tmp_path):
    from workbench.triage.live.spool import SpoolError

    spool = Spool(tmp_path / ".workbench" / "collect" / "live" / "spool.sqlite", tmp_path)
    pages = spool.db.execute("PRAGMA page_count").fetchone()[0]
    spool.db.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own "database or disk is full"
    big = [Span("t", str(i), None, "s", 1, 2, {"text": "x" * 2000}, "here") for i in range(50)]
    with pytest.raises(SpoolError, match="full"):
        spool.append(big)
    spool.db.execute("PRAGMA max_page_count = 1073741823")
    assert spool.state() == ({}, {})  # the failed request left nothing behind
    spool.append(big[:1])
    assert list(spool.state()[1]) == ["t"]


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
        with tracer.start_as_current_span("child", attributes={"x.0.y": 1.5}) as child:
            child.add_event("gen_ai.content.prompt", {"gen_ai.prompt": "the prompt"})  # earlier GenAI conventions
            child.add_event("log", {"ignored": 1})
    unfinished = tracer.start_span("open")  # not ended: exported only as a fault would (end time unset)
    request = encode_spans([*memory.get_finished_spans(), unfinished])
    unfinished.end()
    mine, rejected = decode_spans(request.SerializeToString(), "application/x-protobuf", "req")
    problems, skipped = [], []
    theirs = read_otlp(Path("req"), msgspec.json.encode(MessageToDict(request)), problems, skipped)
    assert not problems and not rejected and not skipped
    assert mine == theirs and len(mine) == 3 and mine[-1].end_ns is None
    child_span = next(s for s in mine if s.name == "child")
    assert child_span.attributes["gen_ai.prompt"] == "the prompt" and "ignored" not in child_span.attributes


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


class Flaky:
    """An import function standing in for import_traces: records what it was handed, fails while told to."""

    def __init__(self, error: Exception | None = None) -> None:
        import threading

        self.calls: list[list[str]] = []
        self.error = error
        self.lock = threading.Lock()

    def __call__(self, spans: list[Span]):
        from workbench.triage.live.import_loop import Imported

        with self.lock:
            self.calls.append(sorted({s.trace_id for s in spans}))
            if self.error is not None:
                raise self.error
        return Imported(len({s.trace_id for s in spans}), [])


def test_a_failed_import_stays_pending_is_retried_and_the_next_is_handed_alone(tmp_path):
    from collect_helpers import Changes

    from workbench.fsutil import ProjectLocked
    from workbench.triage.live.import_loop import ImportLoop

    path = tmp_path / ".workbench" / "collect" / "live" / "spool.sqlite"
    fake = Flaky(ProjectLocked("project.lock: held by pid 1 for more than 0.2 s"))
    changes = Changes()
    c = ImportLoop(Spool(path, tmp_path), fake, settle_s=0.0, on_change=changes)
    c.start()
    try:
        c.accept([span("a", "1", None)], 0)
        failed = changes.wait(lambda s: s.import_failures == 1)
        assert failed.pending_traces == 1 and failed.retrying_traces == 1 and failed.traces_imported == 0
        assert "held by pid 1" in failed.last_error and "retried in 1 s" in failed.last_error
        fake.error = None  # the lock is free again: the backoff's retry imports it, no new span needed
        done = changes.wait(lambda s: s.traces_imported == 1)
        assert done.pending_traces == 0 and done.retrying_traces == 0 and done.last_error is None
        c.accept([span("b", "1", None)], 0)
        changes.wait(lambda s: s.traces_imported == 2)
    finally:
        c.stop()
    assert fake.calls[-1] == ["b"] and fake.calls.count(["a"]) == 2  # the retry, then b alone


def test_the_drain_retries_a_failed_import_and_a_restart_imports_what_is_left(tmp_path):
    from collect_helpers import Changes

    from workbench.triage.live.import_loop import ImportLoop

    path = tmp_path / ".workbench" / "collect" / "live" / "spool.sqlite"
    fake = Flaky(OSError(28, "No space left on device"))
    changes = Changes()
    c = ImportLoop(Spool(path, tmp_path), fake, settle_s=0.0, on_change=changes)
    c.start()
    c.accept([span("a", "1", None), span("a", "2", "1")], 0)
    c.accept([span("z", "1", None, ended=False)], 0)  # incomplete: kept for the next run, never imported
    changes.wait(lambda s: s.import_failures == 1)
    c.stop()  # the drain tries once more, before the backoff is over
    c.spool.close()
    final = c.snapshot()
    assert fake.calls == [["a"], ["a"]] and final.pending_traces == 2 and final.traces_imported == 0

    again = Flaky()
    changes = Changes()
    c = ImportLoop(Spool(path, tmp_path), again, settle_s=0.0, on_change=changes)
    assert c.restore() == 3
    c.start()
    try:
        done = changes.wait(lambda s: s.traces_imported == 1)
    finally:
        c.stop()
        c.spool.close()
    assert again.calls == [["a"]] and done.pending_traces == 1  # z is still incomplete
    c = ImportLoop(Spool(path, tmp_path), again, settle_s=0.0)
    assert c.restore() == 1 and c.snapshot().traces_imported == 1  # a is not handed again


def test_traces_the_import_cannot_read_are_counted_not_retried(tmp_path):
    from collect_helpers import Changes

    from workbench.project.files import Problem
    from workbench.triage.live.import_loop import ImportLoop
    from workbench.triage.traces.spans import TraceFileError

    fake = Flaky(TraceFileError([Problem("otlp-http", None, None, "no trace with a retriever or LLM span was understood")]))
    changes = Changes()
    c = ImportLoop(Spool(tmp_path / ".workbench" / "c" / "spool.sqlite", tmp_path), fake, settle_s=0.0, on_change=changes)
    c.start()
    try:
        c.accept([span("a", "1", None)], 0)
        s = changes.wait(lambda s: s.import_failures == 1)
    finally:
        c.stop()
    assert s.traces_not_understood == 1 and s.pending_traces == 0 and fake.calls == [["a"]]
    assert "no trace with a retriever or LLM span was understood" in s.last_error


def test_protobuf_read_straight_into_spans_equals_the_json_reading_on_edge_values():
    """proto_spans (the receiver's fast path) against the OTLP JSON reader on what the SDK rarely
    makes: nested kv-lists and arrays past the nesting bound, bytes, non-finite doubles, empty
    values, missing and all-zero ids (skipped the same way, with the same words)."""
    from pathlib import Path

    import msgspec
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
    from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

    from workbench.triage.live.decode import MAX_NESTING, proto_document, proto_spans
    from workbench.triage.traces.otlp import read_otlp

    def nested(depth: int) -> AnyValue:
        v = AnyValue(string_value="bottom")
        for i in range(depth):
            v = AnyValue(kvlist_value={"values": [KeyValue(key=f"k{i}", value=v)]}) if i % 2 else \
                AnyValue(array_value={"values": [v, AnyValue(int_value=i)]})
        return v

    request = ExportTraceServiceRequest()
    spans = request.resource_spans.add().scope_spans.add().spans
    good = spans.add(trace_id=bytes(range(1, 17)), span_id=bytes(range(1, 9)), name="r", start_time_unix_nano=5)
    for key, value in [("deep", nested(MAX_NESTING + 4)), ("ok", nested(3)), ("b", AnyValue(bytes_value=b"\x00\xff")),
                       ("nan", AnyValue(double_value=float("nan"))), ("inf", AnyValue(double_value=float("inf"))),
                       ("d", AnyValue(double_value=-0.5)), ("empty", AnyValue()), ("t", AnyValue(bool_value=False)),
                       ("dup", AnyValue(int_value=1)), ("dup", AnyValue(int_value=2))]:
        good.attributes.append(KeyValue(key=key, value=value))
    good.events.add(name="gen_ai.content.completion").attributes.append(KeyValue(key="gen_ai.completion", value=AnyValue(string_value="c")))
    spans.add(trace_id=b"", span_id=bytes(range(1, 9)), name="no trace")
    spans.add(trace_id=bytes(range(1, 17)), span_id=bytes(8), name="zero span")
    spans.add(trace_id=bytes(range(1, 17)), span_id=bytes(range(2, 10)), parent_span_id=bytes(range(1, 9)), name="child")

    mine_skipped: list = []
    mine = proto_spans(request, "req", mine_skipped)
    problems: list = []
    theirs_skipped: list = []
    theirs = read_otlp(Path("req"), msgspec.json.encode(proto_document(request)), problems, theirs_skipped)
    assert not problems
    assert len(mine) == 2 and len(mine_skipped) == 2
    assert msgspec.json.encode(mine) == msgspec.json.encode(theirs)  # NaN-safe equality, key order included
    assert mine_skipped == theirs_skipped
    assert mine[0].attributes["gen_ai.completion"] == "c" and mine[0].attributes["nan"] is None
