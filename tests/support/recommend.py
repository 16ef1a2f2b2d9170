"""A tiny project (tests/support/llm_project.py) whose access fails: K = 1, so the multi-source
query cannot have both gold documents in its top K and the diagnosis recommends the access fixes;
a reranker configured over it (a real CrossEncoder the test makes, or the embedded model)."""

from __future__ import annotations

from pathlib import Path

import msgspec

from support.llm_project import make_tiny_project
from support.rerank import configure


def failing_project(root: Path, **rerankers: dict) -> Path:
    from workbench.project.files import load_config, write_config

    make_tiny_project(root)
    config = load_config(root)
    write_config(root, msgspec.structs.replace(config, retrievers=msgspec.structs.replace(config.retrievers, k=1)))
    configure(root, **rerankers)
    return root
