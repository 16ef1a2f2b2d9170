"""Benchmark `workbench eval` end to end on hotpotqa-100 (run by hand).

    python benchmarks/bench_eval.py

Builds a project in a temp folder (import, ladder, index), then times evaluating every query on
every tier with bm25, dense and hybrid: first computed (indexes already built, embedder loaded),
then again with nothing changed (every run reused from the store). Reference, measured in the same
run on the same tiers and queries: pure-Python BM25 built per tier plus NumPy brute-force cosine over
the same chunk vectors — what a hand-written evaluation script would do.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from index import ReferenceBM25  # noqa: E402
from workbench.access.evaluate import evaluate  # noqa: E402
from workbench.project.importers import import_dataset  # noqa: E402
from workbench.access.indexing import build_indexes, embed_pool  # noqa: E402
from workbench.access.ladder import write_ladder  # noqa: E402
from workbench.project.files import init_project  # noqa: E402
from workbench.project.load import load_project  # noqa: E402
from workbench.access.retrievers import make_retrievers  # noqa: E402

HOTPOT = ROOT.parent / "shared" / "datasets" / "hotpotqa-100"


def reference_eval(project, tiers, retriever) -> float:
    """The same rankings by brute force: per-tier pure-Python BM25 and NumPy cosine."""
    table = embed_pool(project, sorted(project.documents), embedder=retriever.embedder)
    start = time.perf_counter()
    for tier in tiers:
        bm25 = ReferenceBM25([(i, project.documents[i].title, project.documents[i].text) for i in tier.doc_ids])
        mask = np.isin(table.doc_ids, np.asarray(tier.doc_ids))
        ids, vecs = table.doc_ids[mask], table.vectors[mask]
        for qid in tier.query_ids:
            text = project.query(qid).query
            bm25.search(text, 100)
            scores = vecs @ retriever._qvec[text]
            best: dict[int, float] = {}
            for d, s in zip(ids.tolist(), scores.tolist()):
                if s > best.get(d, -2.0):
                    best[d] = s
            sorted(best.items(), key=lambda kv: -kv[1])[:100]
    return time.perf_counter() - start


def main() -> None:
    console = Console()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "hotpot"
        init_project(root)
        import_dataset(root, HOTPOT / "corpus.jsonl", HOTPOT / "queries.jsonl")
        project = load_project(root)
        tiers = write_ladder(project).tiers
        t0 = time.perf_counter()
        build_indexes(project, tiers)
        build_s = time.perf_counter() - t0

        retrievers = make_retrievers(project, ["bm25", "dense", "hybrid"])
        retrievers["dense"].prepare([q.query for q in project.queries])  # load the embedder outside the timing
        t0 = time.perf_counter()
        results = evaluate(project, tiers, retrievers, include_models=False)
        fresh_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        evaluate(load_project(root), tiers, make_retrievers(load_project(root), ["bm25", "dense", "hybrid"]), include_models=False)
        reused_s = time.perf_counter() - t0
        ref_s = reference_eval(project, tiers, retrievers["dense"])

    n_rankings = sum(len(t.query_ids) for t in tiers) * 3
    table = Table(title=f"eval: {len(project.queries)} queries × {len(tiers)} tiers × 3 retrievers ({n_rankings} rankings)")
    for col in ("what", "seconds", "rankings/s", "reference ÷ ours"):
        table.add_column(col, justify="left" if col == "what" else "right")
    table.add_row("index build (all tiers, incl. embedding)", f"{build_s:.1f}", "", "")
    table.add_row("eval, computed", f"{fresh_s:.2f}", f"{n_rankings / fresh_s:,.0f}", f"{ref_s / fresh_s:.2f}")
    table.add_row("eval, nothing changed (reused)", f"{reused_s:.2f}", f"{n_rankings / reused_s:,.0f}", f"{ref_s / reused_s:.2f}")
    table.add_row("reference (pure-Python BM25 + NumPy cosine, bm25+dense only)", f"{ref_s:.2f}", "", "1.00")
    console.print(table)
    console.print(f"{len(results)} tier × retriever results; target: seconds, not minutes")


if __name__ == "__main__":
    main()
