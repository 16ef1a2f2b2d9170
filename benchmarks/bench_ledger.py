"""What one batch of production traces costs as the ledger grows (issue 38; run by hand).

    python benchmarks/bench_ledger.py [--sizes 1000,10000] [--batch 100]

Builds a project from hotpotqa-100 in a temp folder, traces its queries once with the real
OpenTelemetry SDK (tests/support/traces.py), then clones those traces (new trace ids, new query ids
and texts: each clone a production query of its own, added unlabelled) and hands them to the
import operation as the live collector does (`session.production.import_traces(spans=…)`, no
judge), until the ledger holds each size. At each size it times one more batch, whole and by step.
Reference, measured in the same run: the same batch at the start (the first batch after the traced
ones). Before the ledger, every live import re-imported the union of everything collected: a batch
at 10,000 traces cost about 100× the first (quadratic over a collection); here the ratio is what the
table prints.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

HOTPOT = ROOT.parent / "shared" / "datasets" / "hotpotqa-100"
LADDER = 'name = "bench-ledger"\n[ladder]\nseed = 7\nbase_budget = 6000\nprompt_overhead = 200\nmixing_budgets = [12000]\nglobal_budgets = [24000]\n'


def clone_batch(template: str, queries, start: int, n: int, out: Path) -> Path:
    """``n`` traces cloned from the traced template file (one line per export batch), numbered from ``start``."""
    import hashlib

    docs = [json.loads(line) for line in template.splitlines() if line.strip()]
    spans_by_trace: dict[str, list] = {}
    for doc in docs:
        for rs in doc["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                for s in ss["spans"]:
                    spans_by_trace.setdefault(s["traceId"], []).append((rs["resource"], ss["scope"], s))
    traces = list(spans_by_trace.values())
    lines = []
    for i in range(start, start + n):
        spans = traces[i % len(traces)]
        text = json.dumps(spans, ensure_ascii=False)
        q = next(q for q in queries if q.query_id in text)
        said = json.dumps(q.query, ensure_ascii=False)[1:-1]
        text = text.replace(said, json.dumps(f"{q.query} (production #{i})", ensure_ascii=False)[1:-1])
        text = text.replace(q.query_id, f"prod-{i:07d}")
        trace_id = hashlib.sha256(f"{i}".encode()).hexdigest()[:32]
        cloned = json.loads(text)
        for _, _, s in cloned:
            s["traceId"] = trace_id
        lines.append(json.dumps({"resourceSpans": [{"resource": cloned[0][0], "scopeSpans": [
            {"scope": cloned[0][1], "spans": [s for _, _, s in cloned]}]}]}))
    out.write_text("\n".join(lines) + "\n")
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--profile", action="store_true", help="cProfile the last batch: where its time goes")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    from support.traces import write_traces
    from workbench.access.ladder import write_ladder
    from workbench.project.files import init_project
    from workbench.project.importers import import_dataset
    from workbench.project.load import load_project
    from workbench.session.production import import_traces
    from workbench.triage.traces.importer import read_spans

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "proj"
        init_project(root)
        (root / "workbench.toml").write_text(LADDER)
        import_dataset(root, HOTPOT / "corpus.jsonl", HOTPOT / "queries.jsonl")
        project = load_project(root)
        write_ladder(project)
        template = write_traces(root, Path(tmp) / "template.jsonl", project.queries, with_ids=True).read_text()
        queries = project.queries
        stored = 0

        def batch(n: int) -> tuple[float, float]:
            nonlocal stored
            path = clone_batch(template, queries, stored, n, Path(tmp) / "batch.jsonl")
            kind, spans, skipped = read_spans(str(path), "auto", "default", 512)  # the receiver parses before it hands over
            t0 = time.perf_counter()
            import_traces(root, "collector", "live", judge=False, spans=(spans, skipped, kind))
            stored += n
            return time.perf_counter() - t0, 0.0

        first, _ = batch(args.batch)
        print(f"batch of {args.batch} at {args.batch} stored (reference): {first:.2f} s", flush=True)
        rows = []
        for size in sizes:
            while stored < size - args.batch:
                batch(min(1000, size - args.batch - stored))
            if args.profile and size == sizes[-1]:
                import cProfile
                import pstats

                prof = cProfile.Profile()
                prof.enable()
            took, _ = batch(args.batch)
            if args.profile and size == sizes[-1]:
                prof.disable()
                pstats.Stats(prof).sort_stats("cumulative").print_stats(35)
            rows.append((size, took))
            print(f"batch of {args.batch} at {size:,} stored: {took:.2f} s ({took / first:.1f}× the reference)", flush=True)
        print("ledger: " + "; ".join(f"{size:,} stored: {took:.2f} s per {args.batch}-trace batch ({took / first:.1f}×)"
                                      for size, took in rows))


if __name__ == "__main__":
    main()
