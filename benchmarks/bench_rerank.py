"""Rerank stage overhead beyond the model (run by hand): target ≤ 1.1× the model's own scoring time.

    python benchmarks/bench_rerank.py PROJECT_DIR [DEPTH]

PROJECT_DIR: a built project (e.g. the one benchmarks/bench_fix_loop.py keeps). A CrossEncoder is
made from the bundled MiniLM with a fresh head (its scores mean nothing; its cost is a real
cross-encoder's of that size). Reference, in the same run on the same pairs: CrossEncoder.predict
called once per query on that query's top DEPTH documents of bm25 at `full`, with the same batch
size. Measured: the whole stage (document texts, content hashes, the score cache read and written,
sorting, the run stored) with a cold cache, the model already loaded in both. Then the same stage
on a tier containing smaller ones' pairs: how many pairs the cache answered.

    python benchmarks/bench_rerank.py PROJECT_DIR --llm PAIRS

The `llm` backend's cost per call on the embedded model: PAIRS (query, document) pairs of bm25's
top 2 at `full`, each asked both ways, uncached: one token with its top log-probabilities (what the
reranker sends) and the parsed three-token answer (what it sent before). The two alternate which
goes first per pair, and only the first of each pair is timed: the server's prompt cache makes the
second nearly free.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from support.rerank import configure, make_cross_encoder  # noqa: E402
from workbench.access.ladder import load_tiers  # noqa: E402
from workbench.access.runs import RunStore  # noqa: E402
from workbench.project.load import load_project  # noqa: E402
from workbench.rerank.cache import CACHE_DIR, document_text  # noqa: E402
from workbench.rerank.run import Reranking  # noqa: E402
from workbench.rerank.stage import parse_reranked  # noqa: E402


def main(root: Path, depth: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = make_cross_encoder(Path(tmp) / "ce")
        configure(root, bench={"backend": "cross-encoder", "model": str(model_dir), "batch_size": 32, "device": "cpu"})
        project = load_project(root)
        tiers = load_tiers(project).tiers
        full = next(t for t in tiers if t.name == "full")
        for p in (project.state_dir / CACHE_DIR).glob("*"):
            p.unlink()
        name = parse_reranked(f"bm25>rerank:bench@{depth}")
        job = Reranking(project)
        base = job.base_run(full, "bm25", depth)
        scorer = job.scorer("bench")
        model = scorer.model  # type: ignore[attr-defined]
        model.predict([("warm", "up")], batch_size=32, show_progress_bar=False)
        pairs = [[(project.original_query(r.query_id).query, document_text(project.documents[h.doc_id])) for h in r.hits[:depth]]
                 for r in base.rankings]
        t0 = time.perf_counter()
        for qp in pairs:
            model.predict(qp, batch_size=32, show_progress_bar=False)
        ref = time.perf_counter() - t0
        store = RunStore(project)
        for p in store.path(str(name), "full").parent.glob("bm25_rerank_bench*"):
            p.unlink()
        t0 = time.perf_counter()
        job.run(full, name)
        stage = time.perf_counter() - t0
        n = sum(len(qp) for qp in pairs)
        print(f"{len(pairs)} queries × top {depth} = {n} pairs on full")
        print(f"  model alone (CrossEncoder.predict): {ref:.2f} s")
        print(f"  rerank stage, cold cache:           {stage:.2f} s  → {stage / ref:.3f}× (target ≤ 1.1×)")
        smaller = [t for t in tiers if t.name != "full"]
        before = job.stats.scored
        for t in smaller:
            job.run(t, name)
        print(f"  {len(smaller)} smaller tiers afterwards: {job.stats.scored - before} new pairs scored, "
              f"{job.stats.cached} answered by the score cache")
        job.close()


def llm_calls(root: Path, n_pairs: int) -> None:
    import asyncio
    import statistics

    from workbench.llm.providers import open_client, resolve_model
    from workbench.rerank.pointwise import TOP_LOGPROBS, relevance, relevance_prompt

    project = load_project(root)
    full = next(t for t in load_tiers(project).tiers if t.name == "full")
    base = Reranking(project).base_run(full, "bm25", 2)
    pairs = [(project.original_query(r.query_id).query, document_text(project.documents[h.doc_id]))
             for r in base.rankings for h in r.hits[:2]][:n_pairs]
    modes = {"logprobs, 1 token": {"max_tokens": 1, "top_logprobs": TOP_LOGPROBS}, "text, 3 tokens": {"max_tokens": 3}}
    timed: dict[str, list[float]] = {m: [] for m in modes}
    graded = 0

    async def run() -> None:
        nonlocal graded
        name, model = resolve_model(project, "local")
        async with open_client(project, name, model, use_cache=False) as client:
            for i, (q, d) in enumerate(pairs):
                order = list(modes) if i % 2 == 0 else list(reversed(modes))
                for j, mode in enumerate(order):
                    c = await client.complete(relevance_prompt(q, d), temperature=0.0, **modes[mode])
                    if j == 0:
                        timed[mode].append(c.latency_s)
                    if c.top_logprobs and relevance(c) not in (0.0, 0.5, 1.0):
                        graded += 1

    asyncio.run(run())
    for mode, xs in timed.items():
        print(f"  {mode:18} {len(xs)} calls timed first: median {statistics.median(xs):.2f} s, mean {statistics.mean(xs):.2f} s")
    print(f"  {graded} of {len(pairs)} log-probability answers gave a graded score (not 0 / 0.5 / 1)")


if __name__ == "__main__":
    if "--llm" in sys.argv:
        llm_calls(Path(sys.argv[1]), int(sys.argv[sys.argv.index("--llm") + 1]))
    else:
        main(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 20)
