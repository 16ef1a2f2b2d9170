"""The fix loop on hotpotqa-100 (run by hand): bm25 / dense / hybrid, then hard-negative fine-tuning
of the embedder, judged on held-out queries with the paired test and rank movement.

    python benchmarks/bench_fix_loop.py [PROJECT_DIR]

Builds the project once in PROJECT_DIR (default: a temp folder; give one to keep it), evaluates the
three retrievers on every tier, runs `workbench tune` with its defaults (timed: the target is ≤ 5
minutes on 2 cores), and prints for the largest level (full): FR@10 of each system, the tuned
systems against their base on the held-out queries (mean difference, interval, p) and their rank
movement. Reference in the same run: the base embedder on the same held-out queries.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.access.evaluate import DEFAULT_DEPTH, evaluate  # noqa: E402
from workbench.access.indexing import build_indexes  # noqa: E402
from workbench.access.ladder import load_tiers, write_ladder  # noqa: E402
from workbench.access.retrievers import make_retrievers  # noqa: E402
from workbench.diagnosis.collect import Collector  # noqa: E402
from workbench.diagnosis.compare import compare  # noqa: E402
from workbench.diagnosis.movement import movement_line  # noqa: E402
from workbench.project.files import init_project  # noqa: E402
from workbench.project.importers import import_dataset  # noqa: E402
from workbench.project.load import load_project  # noqa: E402
from workbench.report.fixes import fix_effects  # noqa: E402
from workbench.tune.retrieval import rank_held_out  # noqa: E402
from workbench.tune.split import split_queries  # noqa: E402
from workbench.tune.train import TuneOptions, load_record, train  # noqa: E402

HOTPOT = ROOT.parent / "shared" / "datasets" / "hotpotqa-100"


def main(root: Path) -> None:
    if not (root / "workbench.toml").exists():
        init_project(root)
        import_dataset(root, HOTPOT / "corpus.jsonl", HOTPOT / "queries.jsonl")
    project = load_project(root)
    tiers = load_tiers(project).tiers if (root / ".workbench" / "tiers").exists() else write_ladder(project).tiers
    t0 = time.perf_counter()
    build_indexes(project, tiers)
    results = evaluate(project, tiers, make_retrievers(project), include_models=False)
    print(f"indexed and evaluated {len(tiers)} tiers in {time.perf_counter() - t0:.0f} s")
    for r in results:
        if r.tier == tiers[-1].name:
            s = r.summary
            print(f"  {r.tier:8} {r.system:8} SR@10 {s.sr_at_k:.3f}  FR@10 {s.fr_at_k:.3f}  (n = {s.n_multi} multi-source)")

    options = TuneOptions()
    split = split_queries(project.queries, options.train_share, options.seed)
    record = load_record(project)
    if record is None or record.split != split or record.options != options:
        t0 = time.perf_counter()
        record = train(project, split, options)
        print(f"tune: {record.examples} triples, {len(split.train)} training queries, "
              f"{time.perf_counter() - t0:.0f} s (target ≤ 300 s on 2 cores)")
    rank_held_out(project, tiers, DEFAULT_DEPTH)
    print(record.split.caption())
    held = set(record.split.held_out)
    for base, tuned in (("dense", "dense@tuned"), ("hybrid", "hybrid@tuned")):
        c = compare(project, [tiers[-1]], base, tuned, held)
        t = c.test
        print(f"{tuned} vs {base} at {tiers[-1].name}, {t.n} held-out queries, {c.metric}: {c.mean_b:.3f} vs {c.mean_a:.3f}; "
              f"{base} − {tuned} = {t.mean_diff:+.3f} [{t.ci.low:+.3f}, {t.ci.high:+.3f}], p = {t.p_value:.4f}")
        if c.movement is not None:
            print("  " + movement_line(c.movement.counts, tuned))
    for f in fix_effects(project, tiers, Collector(project)):
        print("report: " + f.line)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(Path(sys.argv[1]))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            main(Path(tmp) / "hotpot")
