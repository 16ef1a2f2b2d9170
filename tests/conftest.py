"""Shared fixtures: a small real project cut from hotpotqa-100, indexed once per session."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from typing import Callable

import pytest

from support.build_cache import cached_build
from support.paths import REPO, hotpot_rows

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

# Fixtures of the use-side tests (tiny project, fault server, the real local server).
pytest_plugins = ["support.llm_project"]



def write_hotpot_subset(folder: Path, n_queries: int = 30) -> tuple[Path, Path]:
    """The first n queries with all their gold and negative paragraphs, with two domains
    (the question category) so the ladder has base, mix, shared and global tiers."""
    queries = hotpot_rows("queries.jsonl")[:n_queries]
    domain_of: dict[str, str] = {}
    for q in queries:
        for d in q["gold_doc_ids"] + q["negative_doc_ids"]:
            domain_of.setdefault(d, q["category"])
    docs = [dict(d, domain=domain_of[d["doc_id"]]) for d in hotpot_rows("corpus.jsonl") if d["doc_id"] in domain_of]
    for q in queries:
        q["domain"] = q["category"]
    folder.mkdir(parents=True, exist_ok=True)
    doc_path, query_path = folder / "docs.jsonl", folder / "queries.jsonl"
    doc_path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    query_path.write_text("".join(json.dumps(q) + "\n" for q in queries))
    return doc_path, query_path


SMALL_LADDER = """name = "hotpot-small"
[ladder]
seed = 7
base_budget = 6000
prompt_overhead = 200
mixing_budgets = [12000]
global_budgets = [24000]
"""


@pytest.fixture(scope="session")
def source_files(tmp_path_factory) -> tuple[Path, Path]:
    return write_hotpot_subset(tmp_path_factory.mktemp("hotpot-src"))


def _build_hotpot(source_files: tuple[Path, Path], evaluate_too: bool) -> Callable[[Path], None]:
    def build(root: Path) -> None:
        from workbench.project.importers import import_dataset
        from workbench.access.indexing import build_indexes
        from workbench.access.ladder import write_ladder
        from workbench.project.files import init_project
        from workbench.project.load import load_project
        from workbench.access.evaluate import evaluate
        from workbench.access.retrievers import make_retrievers

        init_project(root)
        (root / "workbench.toml").write_text(SMALL_LADDER)
        import_dataset(root, *source_files)
        project = load_project(root)
        tiers = write_ladder(project).tiers
        build_indexes(project, tiers)
        if evaluate_too:
            evaluate(project, tiers, make_retrievers(project))

    return build


def _hotpot_inputs(source_files: tuple[Path, Path]) -> list[bytes]:
    return [SMALL_LADDER.encode(), *(p.read_bytes() for p in source_files)]


@pytest.fixture(scope="session")
def built_project(tmp_path_factory, source_files) -> Path:
    """Imported, laddered and indexed once (tests/support/build_cache.py); tests that change it must copy it first."""
    dest = tmp_path_factory.mktemp("proj") / "hotpot-small"
    return cached_build("hotpot-built", "hotpot", _hotpot_inputs(source_files), _build_hotpot(source_files, False), dest)


@pytest.fixture(scope="session")
def evaluated(tmp_path_factory, source_files) -> Path:
    """built_project with every retriever run stored (what the TUI and inspector read); read-only."""
    dest = tmp_path_factory.mktemp("tui") / "hotpot-small"
    return cached_build("hotpot-evaluated", "hotpot", _hotpot_inputs(source_files), _build_hotpot(source_files, True), dest)


@pytest.fixture
def evaluated_copy(evaluated, tmp_path) -> Path:
    """A private copy of `evaluated` for a test that writes (a model run stores its results)."""
    dst = tmp_path / "hotpot-small"
    shutil.copytree(evaluated, dst)
    return dst


@pytest.fixture
def project_copy(built_project, tmp_path) -> Path:
    dst = tmp_path / "copy"
    shutil.copytree(built_project, dst)
    return dst


SAMPLE_FILES = ("workbench.toml", "documents.jsonl", "queries.jsonl")


def _build_sample(root: Path) -> None:
    from workbench.access.indexing import build_indexes
    from workbench.access.ladder import write_ladder
    from workbench.project.load import load_project
    from workbench.access.evaluate import evaluate
    from workbench.access.retrievers import make_retrievers

    for name in SAMPLE_FILES:
        shutil.copy2(REPO / "sample_corpus" / name, root / name)
    project = load_project(root)
    tiers = write_ladder(project).tiers
    build_indexes(project, tiers)
    evaluate(project, tiers, make_retrievers(project))


@pytest.fixture(scope="session")
def sample_project(tmp_path_factory) -> Path:
    """The bundled demo project, laddered, indexed and evaluated (built once: tests/support/build_cache.py)."""
    dest = tmp_path_factory.mktemp("demo") / "sample_corpus"
    inputs = [(REPO / "sample_corpus" / name).read_bytes() for name in SAMPLE_FILES]
    return cached_build("sample", "sample", inputs, _build_sample, dest)


@pytest.hookimpl(trylast=True)  # after -m / -k deselection: only when the test will run
def pytest_collection_modifyitems(config, items) -> None:
    """Start mypy now if its test is selected, so it runs beside the suite (tests/support/checks.py),
    and collect its result last."""
    if not hasattr(config, "workerinput") and any(item.name == "test_mypy_passes" for item in items):
        from support.checks import start_mypy

        start_mypy()
        items.sort(key=lambda item: item.name == "test_mypy_passes")  # stable: the rest keep their order


def pytest_sessionfinish(session, exitstatus) -> None:
    from support.checks import stop_mypy

    stop_mypy()  # a run stopped early (-x, Ctrl+C) leaves no mypy behind
