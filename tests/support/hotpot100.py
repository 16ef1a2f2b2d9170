"""hotpotqa-100 built as the README's worked example (import, ladder, index, eval), cached across
runs (support/build_cache.py): the project production traces are imported into, beside bm25/dense/hybrid."""

from __future__ import annotations

import shutil
from pathlib import Path

from support.build_cache import cached_build
from support.paths import HOTPOT


def _build(root: Path) -> None:
    from workbench.access.evaluate import evaluate
    from workbench.access.indexing import build_indexes
    from workbench.access.ladder import write_ladder
    from workbench.access.retrievers import make_retrievers
    from workbench.project.files import init_project
    from workbench.project.importers import import_dataset
    from workbench.project.load import load_project

    init_project(root)
    import_dataset(root, HOTPOT / "corpus.jsonl", HOTPOT / "queries.jsonl")
    project = load_project(root)
    tiers = write_ladder(project).tiers
    build_indexes(project, tiers)
    evaluate(project, tiers, make_retrievers(project))


def evaluated_hotpot100(dest: Path) -> Path:
    """A private copy at ``dest`` of hotpotqa-100 built and evaluated."""
    inputs = [(HOTPOT / n).read_bytes() for n in ("corpus.jsonl", "queries.jsonl")]
    built = cached_build("hotpot100-evaluated", "hotpot", inputs, _build, dest.parent / f"{dest.name}-built")
    shutil.copytree(built, dest)
    return dest
