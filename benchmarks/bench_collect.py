"""`workbench collect` at production's volume (run by hand): N traces sent by the real OpenTelemetry
SDK's exporter to a collector on loopback, until every one is imported.

    python benchmarks/bench_collect.py --firehose 2000 [--distinct] [--producers 1] [--settle-s 0.2] [PROJECT_DIR]

Builds hotpotqa-100 (import + ladder; no index is needed to import traces) in PROJECT_DIR (default: a
temp folder) once, and runs on a fresh copy of it (no earlier run's ledger). Production is one or more separate processes (`--send`, as an app's replicas): the
tests' pipeline (tests/support/traces.py: retrieve, rerank, read — 4 spans a trace, the retriever's
and the reranker's documents with their text) over the project's queries in turn (with their ids), or with ``--distinct`` each trace a query of its
own (a project query's text numbered, no id: production's queries, each added to the project
unlabelled, so the project grows to N queries as a real collection does), traced by the SDK
(TracerProvider, BatchSpanProcessor, batches of 512 spans) and exported by OTLPSpanExporter (protobuf
over HTTP); each records when each export was acknowledged. The collector runs in this process
(`start_collect`, the code of `workbench collect`) and records when each trace's import returned,
i.e. when its verdict is readable.

Figures: the received rate (spans acknowledged / the time from the first export to the last
acknowledgement); the import latency per trace (its last span acknowledged → its import returned),
p95 over the first and the last 10 % of the traces (in the order they were acknowledged) — a
collection whose cost grows with what it holds shows a last 10 % slower than the first; this
process's peak RSS (the collector's, before the file import); and, as the reference measured in the
same run, the same spans — read back from the collector's spool, written as the Collector's OTLP JSON
file — imported once (`import-traces`). The last line printed is exactly:

    firehose N traces: received R spans/s; import p95 first 10% A s, last 10% B s; peak RSS M MiB; file import F s
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Sequence

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the production pipeline the tests trace

HOTPOT = ROOT.parent / "shared" / "datasets" / "hotpotqa-100"


def build(root: Path) -> None:
    from workbench.access.ladder import write_ladder
    from workbench.project.files import init_project
    from workbench.project.importers import import_dataset
    from workbench.project.load import load_project

    if (root / "workbench.toml").exists():
        return
    init_project(root)
    import_dataset(root, HOTPOT / "corpus.jsonl", HOTPOT / "queries.jsonl")
    write_ladder(load_project(root))


# ---------------------------------------------------------------- production (the --send process)

def send(root: Path, endpoint: str, n: int, offset: int, acks_out: Path, distinct: bool = False) -> None:
    """N traces of the tests' pipeline (support.traces.write_traces, its SDK set-up) through
    OTLPSpanExporter to ``endpoint``; each export's acknowledgement time per trace id to ``acks_out``."""
    from functools import lru_cache

    import msgspec
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

    import support.traces as traces
    from workbench.project.load import load_project

    acks: dict[str, float] = {}
    lock = threading.Lock()
    first: list[float] = []
    spent = [0.0]  # seconds in the OTLP export (encode, send, wait for the 200)

    class Acked(SpanExporter):
        """OTLPSpanExporter, the acknowledgement's time kept per trace."""

        def __init__(self, path: Path) -> None:
            self.otlp = OTLPSpanExporter(endpoint=endpoint, timeout=60)

        def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
            t1 = time.monotonic()
            if not first:
                first.append(t1)
            result = self.otlp.export(spans)
            now = time.monotonic()  # CLOCK_MONOTONIC: the same clock in the collector's process
            spent[0] += now - t1
            if result is SpanExportResult.SUCCESS:
                with lock:
                    for s in spans:
                        acks[format(s.context.trace_id, "032x")] = now
            return result

        def shutdown(self) -> None:
            self.otlp.shutdown()

    class Cached(traces.Pipeline):
        """The same pipeline; a query asked again is ranked as before without ranking it again."""

        ranked = lru_cache(maxsize=None)(traces.Pipeline.retrieve)

        def retrieve(self, text: str) -> list[tuple[int, float]]:  # --distinct: ranked as the query it numbers
            return self.ranked(text.split(" (case ", 1)[0])

    class Processor(BatchSpanProcessor):
        """The SDK's processor as exporters run it (batches of 512), sized so it never drops a span, and
        flushing all at shutdown (the SDK's shutdown stops after 30 s): the benchmark waits for every trace."""

        def __init__(self, exporter, max_export_batch_size: int = 64) -> None:
            super().__init__(exporter, max_queue_size=max(2048, 4 * n + 512), max_export_batch_size=512,
                             schedule_delay_millis=200)

        def shutdown(self) -> None:
            self.force_flush()
            super().shutdown()

    queries = load_project(root).queries
    traces.OtlpJsonFileExporter, traces.BatchSpanProcessor, traces.Pipeline = Acked, Processor, Cached  # type: ignore[misc]
    started = time.monotonic()
    asked = [queries[(offset + i) % len(queries)] for i in range(n)]
    if distinct:  # each its own query: production's text, numbered, matched to no project query
        asked = [msgspec.structs.replace(q, query_id=f"{q.query_id}-{offset + i}", query=f"{q.query} (case {offset + i})")
                 for i, q in enumerate(asked)]
        traces.write_traces(root, acks_out, asked, with_ids=False)
    else:
        traces.write_traces(root, acks_out, asked, with_ids=True)
    print(f"  production: {n} traces in {time.monotonic() - started:.1f} s, {spent[0]:.1f} s of it in "
          "OTLPSpanExporter.export", file=sys.stderr, flush=True)
    use = resource.getrusage(resource.RUSAGE_SELF)
    acks_out.write_text(json.dumps({"first": first[0] if first else None, "acks": acks, "cpu_s": use.ru_utime + use.ru_stime}))


# ---------------------------------------------------------------- the collector (this process)

def any_value(v) -> dict:
    """A span attribute as OTLP JSON's AnyValue."""
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, (list, tuple)):
        return {"arrayValue": {"values": [any_value(x) for x in v]}}
    if isinstance(v, dict):
        return {"kvlistValue": {"values": [{"key": k, "value": any_value(x)} for k, x in v.items()]}}
    return {"stringValue": str(v)}


def write_spooled(spool_file: Path, out: Path, per_line: int = 512) -> int:
    """The spans the collector acknowledged, from its spool, as the Collector's OTLP JSON file (hex ids,
    one resourceSpans document per line): the same spans, for import-traces. Returns the spans written."""
    import sqlite3

    import msgspec

    from workbench.triage.traces.spans import Span

    decoder = msgspec.msgpack.Decoder(Span)
    db = sqlite3.connect(f"file:{spool_file}?mode=ro", uri=True)
    n = 0
    with out.open("wb") as f:
        batch: list[dict] = []
        for (blob,) in db.execute("SELECT span FROM spans"):
            sp = decoder.decode(blob)
            batch.append({"traceId": sp.trace_id, "spanId": sp.span_id, **({"parentSpanId": sp.parent_id} if sp.parent_id else {}),
                          "name": sp.name, "startTimeUnixNano": str(sp.start_ns or 0), "endTimeUnixNano": str(sp.end_ns or 0),
                          "attributes": [{"key": k, "value": any_value(v)} for k, v in sp.attributes.items() if v is not None]})
            if len(batch) == per_line:
                f.write(msgspec.json.encode({"resourceSpans": [{"scopeSpans": [{"spans": batch}]}]}) + b"\n")
                n, batch = n + len(batch), []
        if batch:
            f.write(msgspec.json.encode({"resourceSpans": [{"scopeSpans": [{"spans": batch}]}]}) + b"\n")
            n += len(batch)
    db.close()
    return n


def vm_hwm_kib(pid: int) -> int:
    """A process's peak resident memory (Linux /proc), in KiB."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:  # already gone
        return 0
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def p95(values: list[float]) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(0.95 * (len(s) - 1))))] if s else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("project", nargs="?", type=Path)
    ap.add_argument("--firehose", type=int, default=2000, metavar="N", help="traces to send (4 spans each)")
    ap.add_argument("--settle-s", type=float, default=0.2, help="the collector's --settle-s")
    ap.add_argument("--max-pending", type=int, default=10_000, help="the collector's --max-pending")
    ap.add_argument("--producers", type=int, default=1,
                    help="production's processes, each with its own SDK pipeline and exporter (N split between them)")
    ap.add_argument("--distinct", action="store_true",
                    help="each trace a query of its own (added to the project unlabelled), not the project's queries in turn")
    ap.add_argument("--send", nargs=3, metavar=("ENDPOINT", "OFFSET", "ACKS"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    root = args.project or Path(tempfile.mkdtemp(prefix="bench-collect-")) / "hotpot"
    if args.send:
        send(root, args.send[0], args.firehose, int(args.send[1]), Path(args.send[2]), args.distinct)
        return

    import shutil

    from workbench.project.load import load_project
    from workbench.session import import_traces, start_collect
    from workbench.triage.live.spool import spool_path

    build(root)
    n = args.firehose
    work = root.parent / "firehose"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    # each run on a fresh copy of the built project: no earlier run's ledger or spool behind its figures
    root = Path(shutil.copytree(root, work / "project", ignore=shutil.ignore_patterns("ledger.sqlite*", "collect")))
    done_at: dict[str, float] = {}
    all_in = threading.Event()
    lock = threading.Lock()

    def imported(trace_ids: list[str]) -> None:
        now = time.monotonic()
        with lock:
            for t in trace_ids:
                done_at[t] = now
            if len(done_at) >= n:
                all_in.set()

    def changed(s) -> None:
        print(f"  collect: {s.spans_received} spans received, {s.traces_imported} traces imported "
              f"(last import {s.last_import_s:.2f} s), pending {s.pending_traces}", file=sys.stderr, flush=True)

    live = start_collect(root, "live", port=0, settle_s=args.settle_s, max_pending=args.max_pending, on_change=changed,
                         on_imported=imported)
    try:
        k = max(1, args.producers)
        shares = [n // k + (1 if i < n % k else 0) for i in range(k)]
        producers = [subprocess.Popen([sys.executable, __file__, str(root), "--firehose", str(share),
                                       *(["--distinct"] if args.distinct else []), "--send",
                                       live.url + "/v1/traces", str(sum(shares[:i])), str(work / f"acks{i}.json")],
                                      env={**os.environ, "PYTHONPATH": str(ROOT)}) for i, share in enumerate(shares)]
        for i, production in enumerate(producers):
            if production.wait() != 0:
                sys.exit(f"production (--send process {i}) failed: exit {production.returncode}")
        sent = [json.loads((work / f"acks{i}.json").read_text()) for i in range(len(producers))]
        acks = {t: when for one in sent for t, when in one["acks"].items()}
        if len(acks) < n:
            sys.exit(f"production had only {len(acks)} of its {n} traces acknowledged (see its log above)")
        if not all_in.wait(float(os.environ.get("BENCH_WAIT_S", 1800))):
            print("not every trace imported in time:", live.status(), file=sys.stderr)
        status = live.status()
        import_peak_kib = sum(vm_hwm_kib(pid) for pid in live.importer.pids())
    finally:
        live.stop()
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    # the receiver's process and the import's, each at its peak (an upper bound of the two together)
    peak_mib = (own.ru_maxrss + import_peak_kib) / 1024  # before the file import below
    production_cpu = sum(one["cpu_s"] for one in sent)
    print(f"CPU: receiver process {own.ru_utime + own.ru_stime:.1f} s, import process "
          f"{children.ru_utime + children.ru_stime - production_cpu:.1f} s, production {production_cpu:.1f} s")
    order = sorted(acks, key=acks.__getitem__)  # the traces in the order their last span was acknowledged
    received_s = max(acks.values()) - min(one["first"] for one in sent)
    rate = status.spans_received / received_s
    latency = [done_at[t] - acks[t] for t in order if t in done_at and t in acks]
    tenth = max(1, len(order) // 10)
    first = [done_at[t] - acks[t] for t in order[:tenth] if t in done_at and t in acks]
    last = [done_at[t] - acks[t] for t in order[-tenth:] if t in done_at and t in acks]
    print(f"collect: {status.spans_received} spans in {status.traces_received} traces received in {received_s:.1f} s; "
          f"{status.traces_imported} imported in {status.imports} imports ({status.queries_imported} queries); "
          f"{len(latency)} latencies, median {sorted(latency)[len(latency) // 2] if latency else float('nan'):.2f} s; "
          f"refused {status.refused}; failures {status.import_failures}")

    written = write_spooled(spool_path(load_project(root).state_dir, "live"), work / "prod.otlp.jsonl")
    assert written == status.spans_received, (written, status.spans_received)
    size = (work / "prod.otlp.jsonl").stat().st_size
    t0 = time.perf_counter()
    once = import_traces(root, str(work / "prod.otlp.jsonl"), "file", judge=False, max_mb=size // 2**20 + 1)
    file_s = time.perf_counter() - t0
    print(f"import-traces of the same spans from the file ({size / 2**20:.0f} MiB): {file_s:.2f} s, "
          f"{once.imported.imported} queries")
    print(f"firehose {n} traces: received {rate:,.0f} spans/s; import p95 first 10% {p95(first):.2f} s, "
          f"last 10% {p95(last):.2f} s; peak RSS {peak_mib:,.0f} MiB; file import {file_s:.2f} s")


if __name__ == "__main__":
    main()
