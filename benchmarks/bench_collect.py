"""`workbench collect` (run by hand): how many spans a second the live receiver takes on this
machine, and how long after the last acknowledgement every trace is imported, against writing the
same spans to an OTLP JSON file and importing it once (`import-traces`).

    python benchmarks/bench_collect.py [--repeats 10] [--clients 2] [--settle-s 0.5] [PROJECT_DIR]

Builds hotpotqa-100 (import + ladder; no index is needed to import traces) in PROJECT_DIR (default: a
temp folder), runs the tests' production pipeline (tests/support/traces.py: retrieve, rerank, read;
4 spans a trace) over every query REPEATS times, captured as the real SDK's OTLP protobuf export
requests (batches of 64 spans) and as the OTLP JSON file. Then: the requests posted by CLIENTS
threads (keep-alive, like the exporter) to a collector on a free loopback port; the receiving rate
(spans acknowledged a second, spooled and fsynced), the import latency (last acknowledgement →
every trace imported), the imports it took and the last one's duration; and the file's one import.
"""

from __future__ import annotations

import argparse
import os
import shutil
import http.client
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Sequence
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the production pipeline the tests trace

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans  # noqa: E402
from opentelemetry.sdk.trace import ReadableSpan  # noqa: E402
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult  # noqa: E402

import support.traces as traces  # noqa: E402
from workbench.access.ladder import write_ladder  # noqa: E402
from workbench.project.files import init_project  # noqa: E402
from workbench.project.importers import import_dataset  # noqa: E402
from workbench.project.load import load_project  # noqa: E402

HOTPOT = ROOT.parent / "shared" / "datasets" / "hotpotqa-100"
FileExporter = traces.OtlpJsonFileExporter


class Capture(SpanExporter):
    """Each export batch kept as the protobuf body OTLPSpanExporter would POST, and written to the file."""

    bodies: list[bytes] = []

    def __init__(self, path: Path) -> None:
        self.file = FileExporter(path)

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        Capture.bodies.append(encode_spans(spans).SerializeToString())
        return self.file.export(spans)

    def shutdown(self) -> None:
        pass


def build(root: Path) -> None:
    if (root / "workbench.toml").exists():
        return
    init_project(root)
    import_dataset(root, HOTPOT / "corpus.jsonl", HOTPOT / "queries.jsonl")
    write_ladder(load_project(root))


def post_all(url: str, bodies: list[bytes], clients: int) -> tuple[float, dict[int, int]]:
    u = urlparse(url)
    codes: dict[int, int] = {}
    lock = threading.Lock()

    def client(part: list[bytes]) -> None:
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
        for body in part:
            while True:
                conn.request("POST", "/v1/traces", body, {"Content-Type": "application/x-protobuf"})
                r = conn.getresponse()
                r.read()
                with lock:
                    codes[r.status] = codes.get(r.status, 0) + 1
                if r.status != 429:
                    break
                time.sleep(float(r.getheader("Retry-After") or 1))  # as the exporter backs off
        conn.close()

    threads = [threading.Thread(target=client, args=(bodies[i::clients],)) for i in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - start, codes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("project", nargs="?", type=Path)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--clients", type=int, default=2)
    ap.add_argument("--settle-s", type=float, default=0.5)
    args = ap.parse_args()
    from workbench.session import import_traces, start_collect

    root = args.project or Path(tempfile.mkdtemp(prefix="bench-collect-")) / "hotpot"
    build(root)
    file = root.parent / "prod.otlp.jsonl"
    file.unlink(missing_ok=True)
    traces.OtlpJsonFileExporter = Capture  # type: ignore[misc, assignment]
    t0 = time.perf_counter()
    for _ in range(args.repeats):
        traces.write_traces(root, file)
    made = time.perf_counter() - t0
    n_spans = len(traces.all_spans(file))
    n_traces = len({s["traceId"] for s in traces.all_spans(file)})
    print(f"{n_spans} spans in {n_traces} traces, {len(Capture.bodies)} requests "
          f"({sum(map(len, Capture.bodies)) / 2**20:.1f} MiB protobuf); the pipeline made them in {made:.1f} s")

    done = threading.Event()
    imports: list[float] = []

    def changed(s) -> None:
        imports.append(s.last_import_s or 0.0)
        if s.traces_imported == n_traces and s.pending_traces == 0:
            done.set()

    from workbench.triage.live.spool import spool_path

    shutil.rmtree(spool_path(load_project(root).state_dir, "live").parent, ignore_errors=True)  # an earlier run's collection
    live = start_collect(root, "live", port=0, settle_s=args.settle_s, on_change=changed)
    try:
        receive_s, codes = post_all(live.url, Capture.bodies, args.clients)
        acked = time.perf_counter()
        if not done.wait(float(os.environ.get("BENCH_WAIT_S", 600))):
            print("not every trace imported within 600 s:", live.status())
        latency = time.perf_counter() - acked
        status = live.status()
    finally:
        live.stop()
    total_live = receive_s + latency
    print(f"collect: {n_spans / receive_s:,.0f} spans/s received ({receive_s:.2f} s, {args.clients} clients, codes {codes}); "
          f"every trace imported {latency:.2f} s after the last acknowledgement; {len(imports)} imports, "
          f"the last {status.last_import_s:.2f} s; {status.queries_imported} queries")

    t0 = time.perf_counter()
    imported = import_traces(root, str(file), "file", judge=False)
    once = time.perf_counter() - t0
    print(f"import-traces of the file once: {once:.2f} s ({imported.imported.imported} queries, "
          f"{n_spans / once:,.0f} spans/s)")
    print(f"ratio: collect's receive + import {total_live:.2f} s / file import {once:.2f} s = {total_live / once:.2f}")


if __name__ == "__main__":
    main()
