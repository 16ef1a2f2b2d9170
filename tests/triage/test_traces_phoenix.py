"""import-traces from Phoenix: the exports its real client wrote (tests/triage/data/phoenix/README.md)
import exactly like the OTLP spans they were made from; a Phoenix URL is read page by page."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import threading
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.project.load import load_project

DATA = Path(__file__).parent / "data" / "phoenix"
EXPORTS = ["phoenix-spans.jsonl", "phoenix-spans.parquet", "phoenix-rest-spans.jsonl"]


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def imported(root: Path, name: str) -> dict:
    """Everything an import-traces stored, comparable across sources."""
    from workbench.triage.answers import load_answers
    from workbench.triage.runs import load_imported
    from workbench.triage.traces.store import load_traces

    project = load_project(root)
    rankings = {n: {r.query_id: [(h.doc_id, h.score) for h in r.hits] for r in load_imported(project, n).rankings["*"]}
                for n in (name, f"{name}>rerank")}
    answers = {a.query_id: (a.answer, a.context_doc_ids) for a in load_answers(project, name).answers}
    traces = {t.query_id: (t.trace_id, t.matched, t.prompt, t.answer) for t in load_traces(project, name).queries}
    latency = {t.query_id: t.llm_latency_s for t in load_traces(project, name).queries}
    return {"rankings": rankings, "answers": answers, "traces": traces, "latency": latency}


def same_rankings(got: dict, want: dict) -> None:
    """The same documents in the same order; scores as written (Parquet may hold them as float32)."""
    for name, runs in want["rankings"].items():
        assert set(got["rankings"][name]) == set(runs)
        for q, hits in runs.items():
            assert [d for d, _ in got["rankings"][name][q]] == [d for d, _ in hits]
            assert [s for _, s in got["rankings"][name][q]] == pytest.approx([s for _, s in hits], rel=1e-6)


@pytest.fixture(scope="module")
def from_otlp(evaluated, tmp_path_factory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("otlp") / "proj"
    shutil.copytree(evaluated, root)
    result = cli("import-traces", root, DATA / "sent.otlp.jsonl", "--name", "prod", "--no-judge")
    assert result.exit_code == 0, result.output
    return root, imported(root, "prod")


@pytest.mark.parametrize("export", EXPORTS)
def test_a_phoenix_export_imports_like_the_spans_it_was_made_from(from_otlp, evaluated_copy, export):
    _, want = from_otlp
    result = cli("import-traces", evaluated_copy, DATA / export, "--name", "prod", "--no-judge")
    assert result.exit_code == 0, result.output
    assert "imported 3 queries: 3 matched by id" in result.output
    got = imported(evaluated_copy, "prod")
    same_rankings(got, want)
    assert got["answers"] == want["answers"] and got["traces"] == want["traces"]
    # Phoenix keeps times to the microsecond (the dataframe as JSON: to the millisecond)
    assert all(abs(got["latency"][q] - want["latency"][q]) < 2e-3 for q in want["latency"])


class ReplayPhoenix(BaseHTTPRequestHandler):
    """Phoenix's spans endpoint answering from the recorded `get_spans` rows, two spans a page."""

    spans: list[dict] = []
    pages: list[str] = []

    def do_GET(self):  # noqa: N802 (http.server's name)
        url = urllib.parse.urlparse(self.path)
        q = urllib.parse.parse_qs(url.query)
        self.pages.append(self.path)
        if url.path != "/v1/projects/prod3/spans":
            self.send_error(404, "project not found")
            return
        start = int(q.get("cursor", ["0"])[0])
        body = {"data": self.spans[start:start + 2], "next_cursor": str(start + 2) if start + 2 < len(self.spans) else None}
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def test_a_phoenix_url_is_read_page_by_page(from_otlp, evaluated_copy):
    _, want = from_otlp
    ReplayPhoenix.spans = [json.loads(line) for line in (DATA / "phoenix-rest-spans.jsonl").read_text().splitlines()]
    ReplayPhoenix.pages = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), ReplayPhoenix)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        result = cli("import-traces", evaluated_copy, url, "--name", "prod", "--phoenix-project", "prod3", "--no-judge")
        assert result.exit_code == 0, result.output
        assert len(ReplayPhoenix.pages) == 6  # 12 spans, 2 a page
        got = imported(evaluated_copy, "prod")
        same_rankings(got, want)
        assert got["answers"] == want["answers"]
        wrong = cli("import-traces", evaluated_copy, url, "--name", "prod", "--phoenix-project", "nope", "--no-judge")
        assert wrong.exit_code == 1 and "Phoenix did not answer" in wrong.output and "404" in wrong.output
    finally:
        server.shutdown()


def test_no_phoenix_at_the_url_is_an_external_error(evaluated_copy):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens there once closed
    result = cli("import-traces", evaluated_copy, f"http://127.0.0.1:{port}", "--name", "prod", "--no-judge")
    assert result.exit_code == 1 and "Phoenix did not answer" in result.output
    assert not (evaluated_copy / ".workbench" / "imports" / "traces").exists()


PHOENIX = os.environ.get("WORKBENCH_PHOENIX")  # a `phoenix` executable (its own virtualenv: see data/phoenix/README.md)


@pytest.mark.skipif(not PHOENIX, reason="arize-phoenix cannot share the project's environment; set WORKBENCH_PHOENIX")
def test_a_real_phoenix_server(from_otlp, evaluated_copy, tmp_path):
    import base64

    from google.protobuf.json_format import ParseDict
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    _, want = from_otlp
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, PHOENIX_WORKING_DIR=str(tmp_path / "phx"), PHOENIX_HOST="127.0.0.1", PHOENIX_PORT=str(port),
               PHOENIX_GRPC_PORT="0")
    server = subprocess.Popen([PHOENIX, "serve"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        assert server.stdout is not None
        for raw in server.stdout:  # wait for the event: the server says it is up
            if b"Uvicorn running" in raw or b"Application startup complete" in raw:
                break
        threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()  # type: ignore[union-attr]
        base = f"http://127.0.0.1:{port}"
        for line in (DATA / "sent.otlp.jsonl").read_text().splitlines():
            doc = json.loads(line)
            for rs in doc["resourceSpans"]:
                rs["resource"]["attributes"].append({"key": "openinference.project.name", "value": {"stringValue": "prod3"}})
                for ss in rs["scopeSpans"]:
                    for sp in ss["spans"]:
                        for k in ("traceId", "spanId", "parentSpanId"):
                            if k in sp:
                                sp[k] = base64.b64encode(bytes.fromhex(sp[k])).decode()
            body = ParseDict(doc, ExportTraceServiceRequest()).SerializeToString()
            req = urllib.request.Request(f"{base}/v1/traces", data=body, headers={"Content-Type": "application/x-protobuf"})
            assert urllib.request.urlopen(req).status == 200
        while True:  # ingestion is asynchronous: poll until every span is stored (404 until the project exists)
            try:
                page = json.loads(urllib.request.urlopen(f"{base}/v1/projects/prod3/spans?limit=100").read())
            except urllib.error.HTTPError as exc:
                assert exc.code == 404
                page = {"data": []}
            if len(page["data"]) >= 12:
                break
            threading.Event().wait(0.2)
        result = cli("import-traces", evaluated_copy, base, "--name", "prod", "--phoenix-project", "prod3", "--no-judge")
        assert result.exit_code == 0, result.output
        got = imported(evaluated_copy, "prod")
        same_rankings(got, want)
        assert got["answers"] == want["answers"] and got["traces"] == want["traces"]
    finally:
        server.terminate()
        server.wait(timeout=60)


def _truncated_jsonl(tmp_path: Path) -> Path:
    raw = (DATA / "phoenix-spans.jsonl").read_bytes()
    path = tmp_path / "cut.jsonl"
    path.write_bytes(raw[: len(raw) // 2])
    return path


def _damaged_parquet(tmp_path: Path) -> Path:
    raw = (DATA / "phoenix-spans.parquet").read_bytes()
    path = tmp_path / "cut.parquet"
    path.write_bytes(raw[: len(raw) // 2])
    return path


def _not_spans_parquet(tmp_path: Path) -> Path:
    import subprocess
    import sys

    path = tmp_path / "table.parquet"  # a Parquet table, but not of spans (pyarrow in a child, as the reader)
    code = "import sys, pyarrow as pa, pyarrow.parquet as pq; pq.write_table(pa.table({'x': [1, 2]}), sys.argv[1])"
    subprocess.run([sys.executable, "-c", code, str(path)], check=True)
    return path


@pytest.mark.parametrize("make, message", [
    (_truncated_jsonl, "malformed JSON"),
    (_damaged_parquet, "not a readable Parquet file"),
    (_not_spans_parquet, "not a Phoenix spans table (no context.span_id column)"),
], ids=["truncated JSONL", "truncated Parquet", "a Parquet table of something else"])
def test_a_damaged_phoenix_export_is_refused_whole(evaluated_copy, tmp_path, make, message):
    path = make(tmp_path)
    result = cli("import-traces", evaluated_copy, path, "--name", "prod", "--no-judge")
    assert result.exit_code == 2, result.output
    assert str(path) in result.output and message in result.output
    assert not (evaluated_copy / ".workbench" / "imports" / "traces").exists()
    assert not (evaluated_copy / ".workbench" / "imports" / "runs").exists()


@pytest.mark.parametrize("as_json", [False, True])
def test_doc_id_key_reads_the_id_from_phoenix_s_document_metadata(from_otlp, evaluated_copy, tmp_path, as_json):
    """Phoenix's dataframe keeps `document.metadata` as an object (or OpenInference's JSON string):
    the real export with each document's id moved there reads the same with --doc-id-key."""
    _, want = from_otlp
    rows = [json.loads(line) for line in (DATA / "phoenix-spans.jsonl").read_text().splitlines() if line.strip()]
    moved = 0
    for row in rows:
        for key, docs in row.items():
            if key.endswith("documents") and isinstance(docs, list):
                for d in docs:
                    meta = {"source_id": d.pop("document.id"), "title": "x"}
                    d["document.metadata"] = json.dumps(meta) if as_json else meta
                    d.pop("document.content", None)  # nothing else to resolve it by
                    moved += 1
    assert moved
    path = tmp_path / "meta.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = cli("import-traces", evaluated_copy, path, "--name", "prod", "--no-judge", "--doc-id-key", "source_id")
    assert result.exit_code == 0, result.output
    assert "by metadata" in result.output
    same_rankings(imported(evaluated_copy, "prod"), want)
