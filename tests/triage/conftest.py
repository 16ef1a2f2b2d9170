"""Fixtures shared by the trace tests: hotpotqa-100 imported as it is (no ladder, no indexes: the
traces bring production's ranking), once per session; a private copy per test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from support.paths import HOTPOT


@pytest.fixture(scope="session")
def hotpot_imported(tmp_path_factory) -> Path:
    from workbench.project.files import init_project
    from workbench.project.importers import import_dataset

    root = tmp_path_factory.mktemp("h100-imported") / "proj"
    init_project(root)
    import_dataset(root, HOTPOT / "corpus.jsonl", HOTPOT / "queries.jsonl")
    return root


@pytest.fixture
def hotpot_copy(hotpot_imported, tmp_path) -> Path:
    dst = tmp_path / "proj"
    shutil.copytree(hotpot_imported, dst)
    return dst
