"""Fixtures of the rerank tests: a real CrossEncoder made once per session, and the tiny project
laddered and BM25-indexed with rerankers configured over it."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.llm_project import make_tiny_project
from support.rerank import configure


@pytest.fixture(scope="session")
def cross_encoder(tmp_path_factory) -> Path:
    from support.rerank import make_cross_encoder

    return make_cross_encoder(tmp_path_factory.mktemp("ce") / "minilm-ce")


@pytest.fixture
def rerank_project(tmp_path, cross_encoder) -> Path:
    from workbench.access.indexing import build_indexes
    from workbench.access.ladder import write_ladder
    from workbench.project.load import load_project

    root = make_tiny_project(tmp_path / "tiny")
    configure(root, ce={"backend": "cross-encoder", "model": str(cross_encoder), "batch_size": 2})
    build_indexes(load_project(root), write_ladder(load_project(root)).tiers, kinds=("sparse",))
    return root
