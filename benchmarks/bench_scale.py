"""Issue 24 (production scale), run by hand: value, reference, ratio and pass/fail per target.

    nice -n 5 python benchmarks/bench_scale.py                 # the small default run (shared machine)
    nice -n 5 python benchmarks/bench_scale.py --sizes '' --startup-docs 200000 --pool-docs 4500,45000

1. dense: batched exact search (search_many: one float32 matrix product per block of queries, the
   evaluation path) vs per-query exact search, over 10K / 100K vectors made from real MiniLM
   embeddings of the hotpotqa-100 chunks plus small noise, the 100 real hotpotqa queries, depth 100
   (eval's); the rankings must be identical. Plus, at the smallest size, a tier's dense build with
   no HNSW graph (what the workbench now does below `hnsw_min_chunks`) vs the same build with one.
   Also the client's own cost of reading an endpoint's answer, base64 vs float lists.
2. start-up: checking every tier's indexes as a repeat `eval --retrievers bm25` does, on a synthetic
   project (sparse indexes from Tantivy, dense ones from random vectors), vs hashing every file;
   then, each as a process (median of --repeat runs, alternating with the reference): a repeat
   `eval` (every run stored) at that size and on the sample corpus, and `workbench --help`, against
   the 0.5 s target and against `python -c "import click"` (the interpreter plus click: the least a
   click command costs) measured in the same run.
3. pool: the pipeline (import, ladder, sparse and dense indexes with embeddings from a loopback
   endpoint, eval bm25/dense/hybrid, then the same eval repeated) at each --pool-docs size: wall
   time, peak RSS and disk per step, and the growth exponent between the sizes (time ∝ size^b).
   The issue's 10M-token pool is --pool-docs 45000 (~220 tokens a synthetic document; the line
   prints the full tier's real token count). Then one query's inspection (the TUI's open-a-query
   core call, cold: nothing decoded yet) at the largest pool vs on the sample corpus.

Everything built is kept under --work (default $NEARMISS_BENCH_CACHE/scale, with
NEARMISS_BENCH_CACHE default /tmp/nearmiss-bench-cache): a rerun skips the steps already measured
(printed with "stored") and rebuilds nothing; --redo eval (a comma list of step names) measures
those steps again, --fresh starts from nothing. MiniLM chunk vectors are cached there too.
"""

from __future__ import annotations

import argparse
import base64
import compileall
import hashlib
import itertools
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from index import DenseIndex, EmbeddingCache, SentenceTransformerEmbedder, embed_with_cache  # noqa: E402
from workbench.access import indexing  # noqa: E402

HOTPOT = ROOT.parent / "shared" / "datasets" / "hotpotqa-100"
CACHE = Path(os.environ.get("NEARMISS_BENCH_CACHE", "/tmp/nearmiss-bench-cache"))
DEPTH = 100


def line(name: str, value: float, reference: float, unit: str, ok: bool, note: str = "") -> None:
    ratio = reference / value if value else float("inf")
    print(f"{name:<46} {value:>10.4g} {unit:<6} ref {reference:>10.4g} {unit:<6} "
          f"ratio {ratio:>7.2f}x  {'PASS' if ok else 'FAIL'}  {note}", flush=True)


# --------------------------------------------------------------------------- 1. dense
def minilm_chunks() -> tuple[np.ndarray, np.ndarray]:
    """(chunk vectors, query vectors) of hotpotqa-100 with the workbench's default chunking."""
    emb = SentenceTransformerEmbedder()
    texts = []
    for row in (json.loads(x) for x in (HOTPOT / "corpus.jsonl").open(encoding="utf-8")):
        texts += emb.chunk(f"{row['title']}\n{row['text']}", 200, 32)
    queries = [json.loads(x)["query"] for x in (HOTPOT / "queries.jsonl").open(encoding="utf-8")]
    CACHE.mkdir(parents=True, exist_ok=True)
    with EmbeddingCache(CACHE / "minilm.sqlite", emb.name, emb.dims) as cache:
        return embed_with_cache(emb, cache, texts), embed_with_cache(emb, cache, queries)


def noisy_set(base: np.ndarray, n: int, seed: int = 0, sigma: float = 0.02) -> np.ndarray:
    rng = np.random.default_rng(seed)
    vecs = base[rng.integers(0, len(base), n)] + rng.normal(0, sigma, (n, base.shape[1])).astype(np.float32)
    return (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype(np.float32)


def bench_dense(sizes: list[int], tmp: Path) -> None:
    chunks, queries = minilm_chunks()
    print(f"# dense: {len(chunks)} real MiniLM chunk vectors of hotpotqa-100, {len(queries)} queries, depth {DEPTH}")
    for n in sizes:
        vecs = noisy_set(chunks, n)
        ids = np.arange(n, dtype=np.int64) // 2  # two chunks a document
        t = time.perf_counter()
        DenseIndex.build(tmp / f"exact-{n}", ids, vecs)
        exact_build = time.perf_counter() - t
        idx = DenseIndex.open(tmp / f"exact-{n}")
        idx.exact_search(queries[0], DEPTH)  # unit vectors made once, outside the timings
        t = time.perf_counter()
        per_query = [idx.exact_search(q, DEPTH) for q in queries]
        single = time.perf_counter() - t
        t = time.perf_counter()
        batched = idx.search_many(queries, DEPTH)
        many = time.perf_counter() - t
        same = batched == per_query
        line(f"batched exact vs per-query exact, {n // 1000}K", 1e3 * many / len(queries),
             1e3 * single / len(queries), "ms/q", same and many <= single,
             f"identical rankings: {same}; path {idx.search_path(batched=True)}")
        if n == min(sizes):
            t = time.perf_counter()
            DenseIndex.build(tmp / f"hnsw-{n}", ids, vecs, hnsw_min_chunks=0)
            hnsw_build = time.perf_counter() - t
            line(f"tier build without HNSW vs with, {n // 1000}K", exact_build, hnsw_build, "s",
                 exact_build < hnsw_build, f"({n / hnsw_build:.0f} vectors/s with the graph)")


def bench_decode(batches: int = 40, batch: int = 128, dims: int = 384) -> None:
    """The client's own cost of reading an embedding answer: base64 vs float lists (JSON parse
    and decode to float32, as OpenAIEmbedder does per batch; no network)."""
    from index.embedders import OpenAIEmbedder

    vecs = np.random.default_rng(0).standard_normal((batch, dims)).astype("<f4")
    bodies = {
        fmt: json.dumps({"data": [{"index": i, "embedding": base64.b64encode(v.tobytes()).decode() if fmt == "base64"
                                   else v.tolist()} for i, v in enumerate(vecs)]})
        for fmt in ("base64", "float")
    }
    took = {}
    for fmt, body in bodies.items():
        emb = OpenAIEmbedder("bench", "http://127.0.0.1:9/v1")
        emb._request = lambda texts, body=body: json.loads(body)  # type: ignore[method-assign]
        texts = ["x"] * batch
        t = time.perf_counter()
        for _ in range(batches):
            out = emb._embed_batch(texts)
        took[fmt] = (time.perf_counter() - t) / (batches * batch) * 1e6
        assert out.shape == (batch, dims)
    line("endpoint answer read: base64 vs float lists", took["base64"], took["float"], "us/vec",
         took["base64"] < took["float"], f"{dims}-d, batches of {batch}")


# --------------------------------------------------------------------------- 2. start-up
WORDS = [f"w{i}" for i in range(20_000)]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def synthetic_files(folder: Path, n_docs: int, n_queries: int = 100, words: int = 110, seed: int = 1) -> tuple[Path, Path]:
    """Documents of ~words Zipf-ish words (~220 tokens) in four domains; queries from a gold doc's words."""
    docs, queries = folder / "docs.jsonl", folder / "queries.jsonl"
    if docs.exists() and queries.exists():
        return docs, queries
    rng = random.Random(seed)
    cum = list(itertools.accumulate(1 / (i + 1) for i in range(len(WORDS))))  # what choices(weights=) makes per call
    folder.mkdir(parents=True, exist_ok=True)
    texts = []
    with (folder / "docs.tmp").open("w") as fh:
        for i in range(n_docs):
            text = " ".join(rng.choices(WORDS, cum_weights=cum, k=words))
            texts.append(text)
            fh.write(json.dumps({"doc_id": f"d{i}", "title": f"doc {i}", "text": text, "domain": f"dom{i % 4}"}) + "\n")
    with (folder / "queries.tmp").open("w") as fh:
        for q in range(n_queries):
            gold = rng.randrange(n_docs)
            fh.write(json.dumps({"query_id": f"q{q}", "query": " ".join(texts[gold].split()[:8]), "answer": "a",
                                 "gold_doc_ids": [f"d{gold}"], "domain": f"dom{gold % 4}"}) + "\n")
    os.replace(folder / "queries.tmp", queries)
    os.replace(folder / "docs.tmp", docs)
    return docs, queries


def make_project(root: Path, n_docs: int, embedding: str = "") -> tuple[Path, Path]:
    """The synthetic project's config (rewritten each run: the loopback endpoint's port changes,
    nothing derived depends on it) and its source files (made once)."""
    from workbench.project.files import init_project

    files = synthetic_files(root.parent / f"{root.name}-src", n_docs)
    if not (root / "workbench.toml").exists():
        init_project(root)
    pool = n_docs * 220  # tokens (cl100k): ~2 a synthetic word
    # global tiers between the shared tier (4 bases + mixes, ~30K tokens) and the full pool
    budgets = [b for b in (pool // 10, pool // 3) if 60_000 <= b <= pool * 0.9]
    (root / "workbench.toml").write_text(
        f'name = "{root.name}"\n[ladder]\nseed = 7\nbase_budget = 6000\nprompt_overhead = 200\n'
        f"mixing_budgets = [12000]\nglobal_budgets = {budgets}\n{embedding}")
    return files


def check_all(project, tiers, kinds) -> float:
    indexing._verified.clear()  # as a new process starts
    t = time.perf_counter()
    for tier in tiers:
        states = indexing.index_states(project, tier, kinds)
        assert all(s == "ok" for s, _ in states.values()), states
    return time.perf_counter() - t


def process_time(cmd: list[str]) -> tuple[float, float]:
    """(wall s, CPU s: user + system) of one process. On this shared machine the wall time waits for
    a core; the CPU time is what the process itself costs (its wall time on a quiet machine)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def startup_line(name: str, cmd: list[str], repeat: int, target: float = 0.5) -> None:
    """Median wall and CPU time of ``cmd`` vs `python -c "import click"` (the interpreter plus click:
    the least a click command costs), runs alternating so that the others' load falls on both alike."""
    reference = [sys.executable, "-c", "import click"]
    got, ref = [], []
    for _ in range(repeat):
        got.append(process_time(cmd))
        ref.append(process_time(reference))
    for i, what in ((0, "wall"), (1, "CPU")):
        value, base = statistics.median(g[i] for g in got), statistics.median(r[i] for r in ref)
        line(f"{name} ({what})", value, base, "s", value <= target,
             f"target {target} s; ref = python -c 'import click'; +{value - base:.2f} s; median of {repeat}")


def build_startup_project(root: Path, n_docs: int) -> None:
    """Imported, laddered, sparse indexes from Tantivy, dense ones from random vectors (once)."""
    from workbench.access.indexing import ChunkTable, build_dense, build_indexes
    from workbench.access.ladder import ensure_tiers
    from workbench.project.importers import import_dataset
    from workbench.project.load import load_project

    if (root / ".built").exists():
        project = load_project(root)
        tiers = ensure_tiers(project).tiers
        if all(indexing.index_status(project, t, ("dense",))["dense"] == "ok" for t in tiers):
            return
    else:  # a dense side of an older format is rebuilt alone (the sparse side and the import stand)
        shutil.rmtree(root, ignore_errors=True)
        docs, queries = make_project(root, n_docs)
        import_dataset(root, docs, queries)
        project = load_project(root)
        tiers = ensure_tiers(project).tiers
        build_indexes(project, tiers, kinds=("sparse",))
    ids = np.asarray(sorted(project.documents), dtype=np.int64)
    table = ChunkTable(ids, noisy_set(np.eye(384, dtype=np.float32), len(ids)))
    for tier in tiers:
        build_dense(project, tier, table)
    (root / ".built").write_text("")


def sample_project(work: Path) -> Path | None:
    """A copy of the test suite's built sample corpus (.test-cache/sample-*), evaluated once."""
    built = sorted((ROOT / ".test-cache").glob("sample-*"), key=lambda p: p.stat().st_mtime)
    dest = work / "sample"
    if not (dest / ".evaluated").exists():
        if not built:
            return None
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(built[-1], dest, symlinks=True)
        subprocess.run([sys.executable, "-m", "workbench", "eval", str(dest), "--json"], check=True,
                       stdout=subprocess.DEVNULL, env=ENV)
        (dest / ".evaluated").write_text("")
    return dest


def bench_startup(n_docs: int, work: Path, repeat: int) -> None:
    from workbench.access.ladder import load_tiers
    from workbench.project.load import load_project

    root = work / f"startup-{n_docs}"
    build_startup_project(root, n_docs)
    project = load_project(root)
    tiers = load_tiers(project).tiers
    size = sum(p.stat().st_size for p in (root / ".workbench" / "index").rglob("*") if p.is_file())
    print(f"# start-up: synthetic project, {n_docs:,} docs ({tiers[-1].tokens / 1e6:.1f}M tokens), "
          f"{len(tiers)} tiers, {size / 1e6:.0f} MB of index files", flush=True)
    real_read, real_write = indexing._read_verified, indexing._write_verified
    indexing._read_verified, indexing._write_verified = (lambda folder: {}), (lambda folder, v: None)
    try:
        before = check_all(project, tiers, ("sparse", "dense"))  # every file of both kinds hashed
    finally:
        indexing._read_verified, indexing._write_verified = real_read, real_write
    check_all(project, tiers, ("sparse",))  # first check after the build: nothing left to hash
    after = check_all(project, tiers, ("sparse",))
    line("index check of a bm25 eval vs hashing all", after, before, "s", after < before)
    workbench = [sys.executable, "-m", "workbench"]
    cmd = [*workbench, "eval", str(root), "--retrievers", "bm25", "--no-models", "--json"]
    process_time(cmd)  # computes and stores the runs (and the corpus record) if not yet
    startup_line(f"repeat `eval --retrievers bm25`, {n_docs // 1000}K docs", cmd, repeat)
    sample = sample_project(work)
    if sample is None:
        print("  (no built sample corpus in .test-cache: run the tests once; sample lines skipped)")
    else:
        startup_line("repeat `eval` (all systems), sample corpus", [*workbench, "eval", str(sample), "--json"], repeat)
    startup_line("`workbench --help`", [*workbench, "--help"], repeat)


# --------------------------------------------------------------------------- 3. pool
class LoopbackEmbeddings:
    """An OpenAI-compatible /v1/embeddings endpoint answering at once with a fixed vector per
    text (base64 when asked): the workbench's own cost of a dense build, not a model's."""

    def __init__(self, dims: int = 384) -> None:
        self.dims = dims
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                req = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                texts = req["input"] if isinstance(req["input"], list) else [req["input"]]
                b64 = req.get("encoding_format") == "base64"
                data = []
                for i, text in enumerate(texts):
                    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
                    vec = np.random.default_rng(seed).standard_normal(outer.dims).astype("<f4")
                    data.append({"index": i, "embedding": base64.b64encode(vec.tobytes()).decode() if b64 else vec.tolist()})
                body = json.dumps({"object": "list", "data": data}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


# The command's own peak (VmHWM of its memory after exec; ru_maxrss would count the pages it was
# forked with from this process, which holds the dense sets and the model).
PEAK = ("import atexit, sys\n"
        "def peak():\n"
        "    hwm = [x for x in open('/proc/self/status') if x.startswith('VmHWM')][0].split()[1]\n"
        "    sys.stderr.write(f'\\nPEAK_KB {hwm}\\n')\n"
        "atexit.register(peak)\n"
        "sys.argv = ['workbench', *sys.argv[1:]]\n"
        "from workbench.cli import main\n"
        "main()\n")


def run_step(args: list[str]) -> tuple[float, float]:
    """(wall s, peak RSS MiB) of one `workbench` command in its own process."""
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", PEAK, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    wall = time.perf_counter() - t
    err = proc.stderr.decode(errors="replace")
    if proc.returncode:
        raise SystemExit(f"workbench {' '.join(args)} failed:\n{err[-2000:]}")
    return wall, int(err.rsplit("PEAK_KB", 1)[1].split()[0]) / 1024


def disk_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


POOL_STEPS = ("import", "ladder", "index sparse", "index dense", "eval", "eval repeat")


def pool_steps(root: Path, docs: Path, queries: Path) -> dict[str, list[str]]:
    evaluate = ["eval", str(root), "--no-models", "--json"]
    return {"import": ["import", str(root), "--documents", str(docs), "--queries", str(queries)],
            "ladder": ["ladder", str(root)],
            "index sparse": ["index", str(root), "--only", "sparse"],
            "index dense": ["index", str(root), "--only", "dense"],
            "eval": evaluate,  # bm25, dense, hybrid on every tier: computed and stored
            "eval repeat": evaluate}  # the same, every run stored


def full_tokens(root: Path) -> int | None:
    """The full tier's tokens (the pool's, as the ladder counts them), once laddered."""
    from workbench.access.ladder import TIERS_FILE

    path = root / ".workbench" / TIERS_FILE
    if not path.exists():
        return None
    return next(t["tokens"] for t in json.loads(path.read_bytes())["tiers"] if t["name"] == "full")


def bench_pool(sizes: list[int], work: Path, redo: set[str]) -> list[Path]:
    """Each size's steps, measured once and stored (a rerun prints them); returns the pools."""
    endpoint = LoopbackEmbeddings()
    embedding = f'[embedding]\nbackend = "openai"\nmodel = "loopback"\nbase_url = "{endpoint.base_url}"\nbatch_size = 128\n'
    print("# pool: step, wall s, peak RSS MiB, disk MB of .workbench (embeddings from a loopback endpoint)", flush=True)
    measured: dict[int, dict[str, list[float]]] = {}
    tokens: dict[int, int] = {}
    roots = []
    for n in sizes:
        root = work / f"pool-{n}"
        roots.append(root)
        record = work / f"pool-{n}.steps.json"
        done: dict[str, list[float]] = json.loads(record.read_text()) if record.exists() else {}
        docs, queries = make_project(root, n, embedding)
        for name, args in pool_steps(root, docs, queries).items():
            stored = name in done and name not in redo
            if not stored:
                wall, rss = run_step(args)
                done[name] = [wall, rss, disk_mb(root / ".workbench")]
                record.write_text(json.dumps(done))
            wall, rss, disk = done[name]
            print(f"  {n:>7,} docs  {name:<13} {wall:8.2f} s  {rss:7.0f} MiB  {disk:8.1f} MB{'  (stored)' if stored else ''}",
                  flush=True)
        measured[n] = done
        tokens[n] = full_tokens(root) or n * 220
        print(f"  {n:>7,} docs = {tokens[n] / 1e6:.2f}M tokens (the full tier); documents.jsonl "
              f"{(root / 'documents.jsonl').stat().st_size / 1e6:.0f} MB", flush=True)
    ordered = sorted(sizes)
    for small, large in zip(ordered, ordered[1:]):
        scale = tokens[large] / tokens[small]
        print(f"# growth {small:,} -> {large:,} docs ({scale:.1f}x tokens): ratio per step and exponent b "
              "(value ∝ size^b; 1 = linear)", flush=True)
        for name in POOL_STEPS:
            a, b = measured[small][name], measured[large][name]
            parts = []
            for what, i in (("time", 0), ("RSS", 1), ("disk", 2)):
                if a[i] and b[i]:
                    r = b[i] / a[i]
                    parts.append(f"{what} {r:6.2f}x b={np.log(r) / np.log(scale):5.2f}")
                else:  # nothing written yet (import: documents.jsonl is the project's, not .workbench)
                    parts.append(f"{what}      -          ")
            print(f"  {name:<13} " + "   ".join(parts), flush=True)
    if ordered:
        large = ordered[-1]
        peak = max(v[1] for v in measured[large].values())
        line(f"peak RSS of any step, {large:,} docs", peak / 1024, 4.0, "GiB", peak / 1024 < 4.0, "target < 4 GiB")
    return roots


# --------------------------------------------------------------------------- 4. inspection
def inspect_once(root: Path) -> tuple[float, str, str]:
    """(s, query, tier) of the TUI's core call for opening one query, in a fresh process's state:
    the project open (as the TUI has it), nothing of the runs decoded yet; the largest tier."""
    from workbench.access import runs
    from workbench.session import inspect, open_session

    session, _ = open_session(root)
    tier = max(session.tiers, key=lambda t: len(t.doc_ids))
    query_id = tier.query_ids[len(tier.query_ids) // 2]
    runs._DECODED.clear()
    t = time.perf_counter()
    ins = inspect(session, query_id, tier.name)
    took = time.perf_counter() - t
    assert ins.systems, f"no stored runs for {query_id} on {tier.name}"
    return took, query_id, tier.name


def bench_inspect(pools: list[Path], sample: Path | None, repeat: int) -> None:
    at_sample = statistics.median(inspect_once(sample)[0] for _ in range(repeat)) if sample is not None else None
    for pool in pools:
        at_pool = statistics.median(inspect_once(pool)[0] for _ in range(repeat))
        if at_sample is None:
            print(f"  one query's inspection at {pool.name}: {at_pool * 1e3:.1f} ms (no sample corpus to compare)")
            continue
        line(f"inspect one query (core), {pool.name} vs sample", at_pool, at_sample, "s", at_pool <= 0.5,
             f"target 0.5 s at the pool; the largest tier, every stored system; median of {repeat}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000", help="dense set sizes (vectors; '' to skip)")
    ap.add_argument("--startup-docs", type=int, default=20000, help="synthetic project for the start-up check (0: skip)")
    ap.add_argument("--pool-docs", default="1000,5000", help="pool sizes in documents ('' to skip); 45000 is ~10M tokens")
    ap.add_argument("--repeat", type=int, default=5, help="runs per start-up and inspection timing (median)")
    ap.add_argument("--work", type=Path, default=CACHE / "scale", help="where the projects are kept between runs")
    ap.add_argument("--redo", default="", help=f"pool steps to measure again, comma-separated, of: {', '.join(POOL_STEPS)}")
    ap.add_argument("--fresh", action="store_true", help="remove --work first")
    args = ap.parse_args()
    if args.fresh:
        shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True, exist_ok=True)
    # an installed package has its bytecode; a checkout under PYTHONDONTWRITEBYTECODE=1 would compile
    # every module at every start, and the start-up lines would time the compiler
    for package in ("workbench", "index"):
        compileall.compile_dir(ROOT / package, quiet=1)
    scratch = args.work / "scratch"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir()
    try:
        if args.sizes:
            bench_dense([int(x) for x in args.sizes.split(",")], scratch)
            bench_decode()
        if args.startup_docs:
            bench_startup(args.startup_docs, args.work, args.repeat)
        if args.pool_docs:
            pools = bench_pool([int(x) for x in args.pool_docs.split(",")], args.work,
                               {s.strip() for s in args.redo.split(",") if s.strip()})
            print("# inspection: one query, cold (the TUI's open-a-query core call)", flush=True)
            bench_inspect(pools, sample_project(args.work), args.repeat)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
