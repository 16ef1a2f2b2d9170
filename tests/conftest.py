"""Shared fixtures: a small real project cut from hotpotqa-100, indexed once per session."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

# Fixtures of the use-side tests (tiny project, fault server, the real local server).
pytest_plugins = ["conftest_llm"]

REPO = Path(__file__).resolve().parent.parent
HOTPOT = REPO.parent / "shared" / "datasets" / "hotpotqa-100"


def hotpot_rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (HOTPOT / name).read_text().splitlines() if line.strip()]


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


@pytest.fixture(scope="session")
def built_project(tmp_path_factory, source_files) -> Path:
    """Imported, laddered and indexed once; tests that change it must copy it first."""
    from workbench.importers import import_dataset
    from workbench.indexing import build_indexes
    from workbench.ladder import write_ladder
    from workbench.project import init_project, load_project

    root = tmp_path_factory.mktemp("proj") / "hotpot-small"
    init_project(root)
    (root / "workbench.toml").write_text(SMALL_LADDER)
    import_dataset(root, *source_files)
    project = load_project(root)
    build_indexes(project, write_ladder(project).tiers)
    return root


@pytest.fixture(scope="session")
def evaluated(built_project, tmp_path_factory) -> Path:
    """A copy of built_project with every retriever run stored (what the TUI and inspector read)."""
    from workbench.evaluate import evaluate
    from workbench.ladder import load_tiers
    from workbench.project import load_project
    from workbench.retrievers import make_retrievers

    root = tmp_path_factory.mktemp("tui") / "hotpot-small"
    shutil.copytree(built_project, root)
    project = load_project(root)
    evaluate(project, load_tiers(project).tiers, make_retrievers(project, ["bm25", "dense", "hybrid"]))
    return root


@pytest.fixture
def project_copy(built_project, tmp_path) -> Path:
    dst = tmp_path / "copy"
    shutil.copytree(built_project, dst)
    return dst


@pytest.fixture(scope="session")
def sample_project(tmp_path_factory) -> Path:
    """A copy of the bundled demo project, laddered, indexed and evaluated once per session."""
    from workbench.evaluate import evaluate
    from workbench.indexing import build_indexes
    from workbench.ladder import write_ladder
    from workbench.project import load_project
    from workbench.retrievers import make_retrievers

    root = tmp_path_factory.mktemp("demo") / "sample_corpus"
    shutil.copytree(REPO / "sample_corpus", root, ignore=shutil.ignore_patterns(".workbench", "exports", "trec", "reports", "__pycache__"))
    project = load_project(root)
    tiers = write_ladder(project).tiers
    build_indexes(project, tiers)
    evaluate(project, tiers, make_retrievers(project, ["bm25", "dense", "hybrid"]))
    return root
