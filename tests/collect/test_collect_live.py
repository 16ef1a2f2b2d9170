"""Done-when of `workbench collect`: production's unchanged OTLPSpanExporter (protobuf, gzip) sends
the traces of a pipeline over a hotpotqa slice through the SDK's BatchSpanProcessor; every trace is
imported, and the collected system's figures equal `import-traces` of the same spans from a file."""

from __future__ import annotations

import base64

import msgspec
from click.testing import CliRunner

from collect_helpers import FEEDBACK_KEY, Changes, get_status, protobuf, sdk_traces, send_traces
from workbench.cli import main
from workbench.project.load import load_project


def test_collected_traces_equal_import_traces_of_the_same_spans(project_copy, tmp_path, monkeypatch):
    from workbench.access.ladder import ensure_tiers
    from workbench.session import collected_feedback, imported_figures, start_collect
    from workbench.triage.traces.store import load_traces

    root = project_copy
    project = load_project(root)
    queries = project.queries[:12]
    unhappy = {queries[1].query: "thumbs_down", queries[4].query: -1, queries[5].query: "thumbs_up"}
    changes = Changes()
    live = start_collect(root, "live", port=0, settle_s=0.05, feedback_key=FEEDBACK_KEY, on_change=changes)
    try:
        tees = send_traces(monkeypatch, root, tmp_path / "prod.otlp.jsonl", live.url + "/v1/traces", queries, unhappy)
        assert tees and all(r.name == "SUCCESS" for t in tees for r in t.results)
        changes.wait(lambda s: s.traces_imported == len(queries) and s.pending_traces == 0)
        status = get_status(live.url)
    finally:
        final = live.stop()
    assert status["traces_received"] == status["traces_imported"] == len(queries)
    assert status["queries_imported"] == len(queries) and status["pending_traces"] == 0
    assert status["spans_received"] == len(queries) * 4 and status["spans_rejected"] == 0 and not status["skipped"]
    assert final.traces_imported == len(queries)

    result = CliRunner().invoke(main, ["import-traces", str(root), str(tmp_path / "prod.otlp.jsonl"), "--name", "file",
                                       "--no-judge"])
    assert result.exit_code == 0, result.output
    project = load_project(root)
    tiers = list(ensure_tiers(project).tiers)
    live_rows = imported_figures(project, tiers, ["live", "live>rerank"])
    file_rows = imported_figures(project, tiers, ["file", "file>rerank"])
    assert [r.tier.name for r in live_rows] == [r.tier.name for r in file_rows] and live_rows
    assert [r.summaries for r in live_rows] == [r.summaries for r in file_rows]
    live_traces, file_traces = load_traces(project, "live"), load_traces(project, "file")
    assert live_traces is not None and file_traces is not None  # the same traces behind each query, however they came
    assert sorted((q.query_id, q.trace_id) for q in live_traces.queries) == sorted((q.query_id, q.trace_id) for q in file_traces.queries)

    feedback = collected_feedback(project, "live")
    assert feedback is not None and feedback.key == FEEDBACK_KEY
    by_id = {q.query_id: q for q in queries}
    negative = sorted(by_id[qid].query for qid, f in feedback.queries.items() if f.negative)
    assert negative == sorted([queries[1].query, queries[4].query])
    assert {by_id[qid].query: f.score for qid, f in feedback.queries.items()} == {
        queries[1].query: 0.0, queries[4].query: -1.0, queries[5].query: 1.0}


def test_a_second_collection_keeps_the_first_and_resent_spans_are_idempotent(project_copy, tmp_path, monkeypatch):
    """Imports accumulate under one name: a restart reads the spool back, new traces join the old;
    the same spans sent again change nothing."""
    from workbench.session import start_collect
    from workbench.triage import ledger
    from workbench.triage.traces.store import load_traces

    root = project_copy
    queries = load_project(root).queries[:6]
    changes = Changes()
    live = start_collect(root, "live", port=0, settle_s=0.05, on_change=changes)
    try:
        send_traces(monkeypatch, root, tmp_path / "a.jsonl", live.url + "/v1/traces", queries[:3], compression=None)
        changes.wait(lambda s: s.traces_imported == 3)
    finally:
        live.stop()
    first = load_traces(load_project(root), "live")
    assert first is not None and len(first.queries) == 3

    changes = Changes()
    live = start_collect(root, "live", port=0, settle_s=0.05, on_change=changes)
    try:
        restored = live.status()  # the spool read back: what it imported is not imported again
        assert restored.traces_imported == 3 and restored.pending_traces == 0 and restored.imports == 0
        send_traces(monkeypatch, root, tmp_path / "b.jsonl", live.url + "/v1/traces", queries[3:])
        changes.wait(lambda s: s.traces_imported == 6 and s.pending_traces == 0)
        # the first batch again, as an exporter's retry would: nothing new
        import urllib.request

        from google.protobuf.json_format import ParseDict
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

        doc = msgspec.json.decode((tmp_path / "a.jsonl").read_text().splitlines()[0])
        for rs in doc["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                for sp in ss["spans"]:  # the file has ids as hex (as the Collector writes); protobuf's JSON wants base64
                    for k in ("traceId", "spanId", "parentSpanId"):
                        if k in sp:
                            sp[k] = base64.b64encode(bytes.fromhex(sp[k])).decode()
        resent = sum(len(ss["spans"]) for rs in doc["resourceSpans"] for ss in rs["scopeSpans"])
        body = ParseDict(doc, ExportTraceServiceRequest()).SerializeToString()
        req = urllib.request.Request(live.url + "/v1/traces", body, {"Content-Type": "application/x-protobuf"})
        with urllib.request.urlopen(req, timeout=30) as r:
            assert r.status == 200
        status = get_status(live.url)
    finally:
        live.stop()
    assert status["spans_duplicate"] == resent > 0 and status["traces_received"] == 6 and status["pending_traces"] == 0
    both = load_traces(load_project(root), "live")
    assert both is not None
    assert sorted(q.query_id for q in both.queries) == sorted(q.query_id for q in queries)
    assert len(ledger.parsed_traces(load_project(root), "live")) == 6  # the restart and the resend added nothing twice


def test_a_trace_not_understood_is_counted_never_fatal(project_copy, tmp_path, monkeypatch):
    import urllib.request

    from workbench.session import start_collect

    root = project_copy
    changes = Changes()
    live = start_collect(root, "live", port=0, settle_s=0.05, on_change=changes)
    try:
        req = urllib.request.Request(live.url + "/v1/traces", protobuf(sdk_traces(1)[0]),
                                     {"Content-Type": "application/x-protobuf"})
        with urllib.request.urlopen(req, timeout=30) as r:
            assert r.status == 200  # acknowledged: it is valid OTLP, only not a RAG trace
        failed = changes.wait(lambda s: s.import_failures == 1)
        assert "no trace with a retriever or LLM span was understood" in failed.last_error
        send_traces(monkeypatch, root, tmp_path / "a.jsonl", live.url + "/v1/traces", load_project(root).queries[:2])
        done = changes.wait(lambda s: s.queries_imported == 2 and s.pending_traces == 0)
    finally:
        live.stop()
    assert done.traces_imported == 2 and done.traces_not_understood == 1 and done.last_error is None


def test_a_restart_keeps_what_import_traces_added_under_the_same_name(project_copy, tmp_path, monkeypatch):
    """collect --name live, import-traces --name live, restart collect: the file's traces stay in run:live
    (the restart imports only what its spool had not, and an import adds, never rewrites)."""
    from workbench.session import start_collect
    from workbench.triage.traces.store import load_traces

    root = project_copy
    queries = load_project(root).queries[:7]
    changes = Changes()
    live = start_collect(root, "live", port=0, settle_s=0.05, on_change=changes)
    try:
        send_traces(monkeypatch, root, tmp_path / "a.jsonl", live.url + "/v1/traces", queries[:3])
        changes.wait(lambda s: s.traces_imported == 3 and s.pending_traces == 0)
    finally:
        live.stop()
    from support.traces import write_traces

    write_traces(root, tmp_path / "file.jsonl", queries[3:6])
    result = CliRunner().invoke(main, ["import-traces", str(root), str(tmp_path / "file.jsonl"), "--name", "live", "--no-judge"])
    assert result.exit_code == 0, result.output
    changes = Changes()
    live = start_collect(root, "live", port=0, settle_s=0.05, on_change=changes)
    try:
        assert live.status().imports == 0  # nothing of the spool is imported again
        send_traces(monkeypatch, root, tmp_path / "b.jsonl", live.url + "/v1/traces", queries[6:])
        changes.wait(lambda s: s.traces_imported == 4 and s.pending_traces == 0)
    finally:
        live.stop()
    kept = load_traces(load_project(root), "live")
    assert kept is not None and sorted(q.query_id for q in kept.queries) == sorted(q.query_id for q in queries)


def test_doc_id_key_reads_production_s_ids_from_the_document_metadata_as_import_traces_does(project_copy, tmp_path, monkeypatch):
    """Production's documents named only by its own chunk ids, the corpus id in their metadata (`src`):
    collected with --doc-id-key src they resolve, as `import-traces --doc-id-key src` of the same spans."""
    import json

    import support.traces as traces
    from openinference.semconv.trace import DocumentAttributes

    from workbench.access.ladder import ensure_tiers
    from workbench.session import imported_figures, start_collect

    def chunk_attrs(prefix, p, ranked):
        out = {}
        for i, (d, s) in enumerate(ranked):
            out[f"{prefix}.{i}.{DocumentAttributes.DOCUMENT_ID}"] = f"chunk-{d}-a"  # production's own id
            out[f"{prefix}.{i}.{DocumentAttributes.DOCUMENT_SCORE}"] = s
            out[f"{prefix}.{i}.{DocumentAttributes.DOCUMENT_METADATA}"] = json.dumps({"src": p.doc_key(d)})
        return out

    root = project_copy
    queries = load_project(root).queries[:6]
    for name, key in (("keyed", "src"), ("plain", None)):
        changes = Changes()
        live = start_collect(root, name, port=0, settle_s=0.05, doc_id_key=key, on_change=changes)
        try:
            monkeypatch.setattr(traces, "_doc_attrs", chunk_attrs)
            send_traces(monkeypatch, root, tmp_path / f"{name}.jsonl", live.url + "/v1/traces", queries)
            changes.wait(lambda s: s.traces_imported == len(queries) and s.pending_traces == 0)
        finally:
            live.stop()
    result = CliRunner().invoke(main, ["import-traces", str(root), str(tmp_path / "keyed.jsonl"), "--name", "file",
                                       "--doc-id-key", "src", "--no-judge"])
    assert result.exit_code == 0, result.output
    project = load_project(root)
    tiers = list(ensure_tiers(project).tiers)
    keyed, file, plain = (imported_figures(project, tiers, [n]) for n in ("keyed", "file", "plain"))
    assert keyed and [r.summaries for r in keyed] == [r.summaries for r in file]
    assert [r.summaries for r in plain] != [r.summaries for r in keyed]  # without the key: production's ids only
