"""Shared helpers for the TUI and inspection tests (not tests themselves).

The evaluated project is a copy of conftest's `built_project` with every retriever run stored,
made once per process (a module-level cache, so importing the fixture into several test modules
does not rebuild it)."""

from __future__ import annotations

import shutil
from pathlib import Path

_CACHE: dict[str, Path] = {}


def evaluated_copy(built_project: Path, tmp_path_factory) -> Path:
    if "root" not in _CACHE:
        from workbench.evaluate import evaluate
        from workbench.ladder import load_tiers
        from workbench.project import load_project
        from workbench.retrievers import make_retrievers

        root = tmp_path_factory.mktemp("tui") / "hotpot-small"
        shutil.copytree(built_project, root)
        p = load_project(root)
        evaluate(p, load_tiers(p).tiers, make_retrievers(p, ["bm25", "dense", "hybrid"]))
        _CACHE["root"] = root
    return _CACHE["root"]


def first_near_miss_case(root: Path):
    """(query, tier, inspection) of the first multi-source query with a near miss, largest tier first."""
    from workbench.inspect import inspect_stored
    from workbench.ladder import load_tiers
    from workbench.project import load_project

    p = load_project(root)
    tiers = load_tiers(p).tiers
    for tier in reversed(tiers):
        for qid in tier.query_ids:
            q = p.query(qid)
            ins = inspect_stored(p, tier, q)
            if q.is_multi_source and ins.near_misses:
                return p, q, tier, ins
    raise AssertionError("no near miss in the fixture project")
