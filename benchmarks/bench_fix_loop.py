"""The fix loop (run by hand): bm25 / dense / hybrid, then hard-negative fine-tuning of the
embedder, judged on held-out queries with the paired test and rank movement.

    python benchmarks/bench_fix_loop.py [--corpus sample|hotpot] [--reference] [PROJECT_DIR]

Builds the project once in PROJECT_DIR (default: a temp folder; give one to keep it): the demo's
sample corpus (default) or hotpotqa-100; evaluates the three retrievers on every tier; then runs the
tune job (workbench/tune/run.py, what `workbench tune` and the Diagnosis tab's t run) on the largest
level with the current defaults, timed in wall and CPU seconds, training and indexing apart (the
target: ≤ 5 minutes on 2 cores). With --reference it first trains with the previous defaults
(3 negatives per gold, the model's whole 256-token window) in the same run, so the two can be
read as a ratio and their held-out figures side by side. For each: FR@10 at the largest level of
each tuned system against its base on the held-out queries (intervals, p, n, rank movement).
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.access.evaluate import evaluate  # noqa: E402
from workbench.access.indexing import build_indexes  # noqa: E402
from workbench.access.ladder import load_tiers, write_ladder  # noqa: E402
from workbench.access.retrievers import make_retrievers  # noqa: E402
from workbench.diagnosis.verdicts import VerdictReader, level_of  # noqa: E402
from workbench.project.demo import bundled_corpus, prepare_demo  # noqa: E402
from workbench.project.files import init_project  # noqa: E402
from workbench.project.importers import import_dataset  # noqa: E402
from workbench.project.load import load_project  # noqa: E402
from workbench.report.fixes import fix_effects  # noqa: E402
from workbench.tune.run import tune_project  # noqa: E402
from workbench.tune.train import TuneOptions  # noqa: E402

HOTPOT = ROOT.parent / "shared" / "datasets" / "hotpotqa-100"
REFERENCE = TuneOptions(negatives_per_gold=3, max_seq_length=0)  # the defaults before this benchmark


def cpu_seconds() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


class Timer:
    def __init__(self):
        self.marks: dict[str, tuple[float, float]] = {}
        self.stage = ""
        self.start = (time.perf_counter(), cpu_seconds())

    def progress(self, stage: str, done: int, total: int) -> None:
        """Splits the job at its first non-training report: training, then indexing and ranking."""
        phase = "train" if stage == "tune" else "index"
        if phase != self.stage:
            self.lap()
            self.stage = phase

    def lap(self) -> None:
        if self.stage:
            wall, cpu = time.perf_counter(), cpu_seconds()
            w0, c0 = self.marks.get(self.stage, (0.0, 0.0))
            self.marks[self.stage] = (w0 + wall - self.start[0], c0 + cpu - self.start[1])
        self.start = (time.perf_counter(), cpu_seconds())


def build(root: Path, corpus: str):
    if not (root / "workbench.toml").exists():
        if corpus == "sample":
            prepare_demo(bundled_corpus(), root)
        else:
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
    return project, tiers


def run(project, tiers, options: TuneOptions, label: str) -> None:
    largest = [t for t in tiers if level_of(t) == level_of(tiers[-1])]
    timer = Timer()
    record, _ = tune_project(project, largest, options, retrain=True, progress=timer.progress)
    timer.lap()
    train_w, train_c = timer.marks.get("train", (0.0, 0.0))
    index_w, index_c = timer.marks.get("index", (0.0, 0.0))
    print(f"[{label}] {options}")
    print(f"[{label}] {record.examples} triples ({record.left_out} left out), {len(record.split.train)} training queries: "
          f"training {train_w:.0f} s wall / {train_c:.0f} s CPU, indexing + ranking {index_w:.0f} s wall / {index_c:.0f} s CPU, "
          f"whole job {train_w + index_w:.0f} s wall (target ≤ 300 s on 2 cores)")
    for f in fix_effects(project, tiers, VerdictReader(project)):
        if "@tuned" in f.system:
            print(f"[{label}] report: {f.line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("project", nargs="?", type=Path)
    parser.add_argument("--corpus", choices=("sample", "hotpot"), default="sample")
    parser.add_argument("--reference", action="store_true", help="first train with the previous defaults, in the same run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project, tiers = build(args.project or Path(tmp) / args.corpus, args.corpus)
        if args.reference:
            run(project, tiers, REFERENCE, "reference")
        run(project, tiers, TuneOptions(), "defaults")


if __name__ == "__main__":
    main()
