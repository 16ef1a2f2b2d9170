"""Benchmark the index package against its pure-Python / numpy references (run by hand).

    python benchmarks/bench_index.py                 # --docs 1000,100000
    python benchmarks/bench_index.py --docs 1000 --queries 100 --no-embed

Synthetic pool: N documents of ~60 words (3-word title + 57-word text) drawn from a seeded
vocabulary of 5,000 pseudo-words with Zipf frequencies (s=1.07). Queries: 4 words drawn from the
same Zipf law, skipping the 10 most frequent ("stopword-like") words. Dense side: one random
normalised 384-d vector per document (isolates the index from the embedder), drawn around n/20
random centroids; queries are indexed vectors plus the same noise. DenseIndex.search is timed
with its default policy (exact up to dense.EXACT_MAX_CELLS, else HNSW) and with HNSW forced
(exact_max_chunks=0); recall@10 is against exact_search on the same queries. MiniLM throughput
is measured separately on 500 real hotpot documents. Latency = wall time of one search(k=10).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from index import DenseIndex, ReferenceBM25, SentenceTransformerEmbedder, SparseIndex  # noqa: E402

HOTPOT = ROOT.parent / "shared" / "datasets" / "hotpotqa-100" / "corpus.jsonl"
VOCAB = 5_000
ZIPF_S = 1.07
DIMS = 384
K = 10
TARGET_P95_MS = 20.0
TARGET_AT = 100_000
TARGET_RECALL = 0.99
NOISE = 0.6


def make_vocab(rng: np.random.Generator) -> list[str]:
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words: set[str] = set()
    out: list[str] = []
    while len(out) < VOCAB:
        w = "".join(rng.choice(letters, size=int(rng.integers(3, 10))))
        if w not in words:
            words.add(w)
            out.append(w)
    return out


def zipf_p() -> np.ndarray:
    p = 1.0 / np.arange(1, VOCAB + 1) ** ZIPF_S
    return p / p.sum()


def make_docs(n: int, seed: int = 0) -> list[tuple[int, str, str]]:
    rng = np.random.default_rng(seed)
    vocab = np.array(make_vocab(rng))
    words = vocab[rng.choice(VOCAB, size=(n, 60), p=zipf_p())]
    return [(i, " ".join(row[:3]), " ".join(row[3:])) for i, row in enumerate(words)]


def make_queries(nq: int, seed: int = 1) -> list[str]:
    vocab = np.array(make_vocab(np.random.default_rng(0)))
    rng = np.random.default_rng(seed)
    p = zipf_p()
    p[:10] = 0
    p /= p.sum()
    return [" ".join(vocab[rng.choice(VOCAB, size=4, p=p)]) for _ in range(nq)]


def clustered_vectors(rng: np.random.Generator, n: int) -> np.ndarray:
    """Random normalised vectors around n/20 random centroids (embedding-like structure;
    i.i.d. uniform 384-d vectors have no meaningful nearest neighbours)."""
    centroids = rng.standard_normal((max(1, n // 20), DIMS)).astype(np.float32)
    vecs = centroids[rng.integers(0, len(centroids), n)]
    vecs += NOISE * rng.standard_normal((n, DIMS)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    return vecs


def latencies(fn, items) -> np.ndarray:
    out = []
    for it in items:
        t = time.perf_counter()
        fn(it)
        out.append(time.perf_counter() - t)
    return np.array(out) * 1000.0


def pct(ms: np.ndarray) -> tuple[float, float]:
    return float(np.percentile(ms, 50)), float(np.percentile(ms, 95))


def run_size(n: int, nq: int, tmp: Path, console: Console) -> dict:
    res: dict = {"n": n}
    console.print(f"[bold]N = {n:,}[/]: generating …")
    docs = make_docs(n)
    queries = make_queries(nq)

    t = time.perf_counter()
    SparseIndex.build(tmp / f"sparse-{n}", docs)
    res["bm25_build_s"] = time.perf_counter() - t
    sparse = SparseIndex.open(tmp / f"sparse-{n}")
    t = time.perf_counter()
    ref = ReferenceBM25(docs)
    res["ref_build_s"] = time.perf_counter() - t

    # warm-up, then agreement check on top-10 sets (same run, same queries)
    for q in queries[:5]:
        sparse.search(q, K)
    agree = np.mean(
        [{d for d, _ in sparse.search(q, K)} == {d for d, _ in ref.search(q, K)} for q in queries]
    )
    res["bm25_agree"] = float(agree)
    res["bm25"] = pct(latencies(lambda q: sparse.search(q, K), queries))
    res["bm25_ref"] = pct(latencies(lambda q: ref.search(q, K), queries))
    ref = None  # free its memory before the dense part

    rng = np.random.default_rng(2)
    vecs = clustered_vectors(rng, n)
    ids = np.arange(n, dtype=np.int64)
    t = time.perf_counter()
    DenseIndex.build(tmp / f"dense-{n}", ids, vecs, hnsw_min_chunks=0)
    res["dense_build_s"] = time.perf_counter() - t
    dense = DenseIndex.open(tmp / f"dense-{n}")
    hnsw = DenseIndex.open(tmp / f"dense-{n}", exact_max_chunks=0)
    res["dense_path"] = "exact" if dense.num_chunks <= dense.exact_max_chunks else "HNSW"
    qv = vecs[rng.integers(0, n, nq)] + NOISE * rng.standard_normal((nq, DIMS)).astype(np.float32)
    qv /= np.linalg.norm(qv, axis=1, keepdims=True)
    dense.exact_search(qv[0], K)  # loads vectors for the brute-force reference
    exact = [{d for d, _ in dense.exact_search(q, K)} for q in qv]
    for key, idx in (("dense", dense), ("dense_hnsw", hnsw)):
        for q in qv[:5]:
            idx.search(q, K)
        res[key] = pct(latencies(lambda q, idx=idx: idx.search(q, K), qv))
        res[key + "_recall"] = float(
            np.mean([len({d for d, _ in idx.search(q, K)} & e) / K for q, e in zip(qv, exact, strict=True)])
        )
        res[key + "_ref"] = pct(latencies(lambda q: dense.exact_search(q, K), qv))
    return res


def embed_throughput(console: Console, n_docs: int = 500) -> dict | None:
    if not HOTPOT.is_file():
        console.print(f"[yellow]{HOTPOT} missing: skipping MiniLM throughput[/]")
        return None
    rows = [json.loads(line) for line in HOTPOT.open(encoding="utf-8")][:n_docs]
    texts = [f"{r['title']}\n{r['text']}" for r in rows]
    emb = SentenceTransformerEmbedder()
    t = time.perf_counter()
    emb.embed(["warm up"])
    load_s = time.perf_counter() - t
    tokens = sum(emb.count_tokens(x) for x in texts)
    t = time.perf_counter()
    emb.embed(texts)
    s = time.perf_counter() - t
    return {"docs": len(texts), "tokens": tokens, "s": s, "load_s": load_s}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--docs", default="1000,100000", help="comma-separated pool sizes")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--no-embed", action="store_true", help="skip the MiniLM throughput line")
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.docs.split(",") if x.strip()]
    console = Console(width=200)
    t0 = time.perf_counter()
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-index-") as d:
        for n in sizes:
            results.append(run_size(n, args.queries, Path(d), console))
    emb = None if args.no_embed else embed_throughput(console)

    build = Table(title="Build throughput")
    for col in ("N", "what", "seconds", "docs/s"):
        build.add_column(col, justify="right" if col != "what" else "left")
    for r in results:
        n = r["n"]
        build.add_row(f"{n:,}", "BM25 (Tantivy) build", f"{r['bm25_build_s']:.2f}", f"{n / r['bm25_build_s']:,.0f}")
        build.add_row(f"{n:,}", "BM25 reference (Python) build", f"{r['ref_build_s']:.2f}", f"{n / r['ref_build_s']:,.0f}")
        build.add_row(f"{n:,}", "dense (USearch HNSW, 384-d) build", f"{r['dense_build_s']:.2f}", f"{n / r['dense_build_s']:,.0f}")
    if emb:
        build.add_row(
            f"{emb['docs']:,}",
            f"MiniLM embed, real hotpot docs ({emb['tokens'] / emb['docs']:.0f} tok/doc; load {emb['load_s']:.1f}s)",
            f"{emb['s']:.2f}",
            f"{emb['docs'] / emb['s']:,.1f}",
        )  # fmt: skip
    console.print(build)

    lat = Table(title=f"Query latency, k={K}, {args.queries} queries (ms)")
    for col in ("N", "system", "p50", "p95", "reference", "ref p50", "ref p95", "speed-up p95", "quality", "target"):
        lat.add_column(col, justify="left" if col in ("system", "reference", "quality", "target") else "right")
    for r in results:
        n = r["n"]
        for key, name, refname, quality in (
            ("bm25", "SparseIndex.search", "ReferenceBM25", f"top-10 sets equal {r['bm25_agree']:.0%}"),
            ("dense", f"DenseIndex.search (default: {r['dense_path']})", "numpy brute force",
             f"recall@10 {r['dense_recall']:.4f}"),
            ("dense_hnsw", "DenseIndex.search (HNSW forced)", "numpy brute force",
             f"recall@10 {r['dense_hnsw_recall']:.4f}"),
        ):  # fmt: skip
            p50, p95 = r[key]
            rp50, rp95 = r[key + "_ref"]
            if n == TARGET_AT:
                checks = [(p95 < TARGET_P95_MS, f"p95<{TARGET_P95_MS:.0f}ms")]
                if key != "bm25":
                    checks.append((r[key + "_recall"] >= TARGET_RECALL, f"recall>={TARGET_RECALL}"))
                target = ", ".join(
                    f"[{'green' if ok else 'red'}]{label} {'OK' if ok else 'MISS'}[/]" for ok, label in checks
                )
            else:
                target = ""
            lat.add_row(
                f"{n:,}", name, f"{p50:.2f}", f"{p95:.2f}", refname, f"{rp50:.2f}", f"{rp95:.2f}",
                f"{rp95 / p95:.1f}x", quality, target,
            )  # fmt: skip
    console.print(lat)
    console.print(f"total {time.perf_counter() - t0:.0f}s")


if __name__ == "__main__":
    main()
