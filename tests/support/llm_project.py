"""Shared fixtures of the use-side tests (imported by tests/conftest.py).

- ``tiny_project``: 6 short documents, 2 domains, 3 queries (one multi-source), built in tmp_path.
- ``fault_server``: the scripted OpenAI-compatible stub (tests/support/fault_server.py), per test.
- ``local_server``: the real embedded SmolLM2 llama.cpp server, once per session (@pytest.mark.llm).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.project.files import write_config, write_project_files
from workbench.records import Document, LadderConfig, ProjectConfig, Query

TINY_DOCS = [
    Document(1, "Paris", "Paris is the capital of France. The Eiffel Tower was completed in 1889.", "geo"),
    Document(2, "Lyon", "Lyon is the third-largest city of France, known for its cuisine.", "geo"),
    Document(3, "Berlin", "Berlin is the capital of Germany. The Berlin Wall fell in 1989.", "geo"),
    Document(4, "Apple pie", "Apple pie is baked with apples, sugar and cinnamon in a pastry crust.", "food"),
    Document(5, "Pear tart", "A pear tart is baked with pears and almond cream.", "food"),
    Document(6, "Cherry pie", "Cherry pie is baked with sour cherries; it is popular in Michigan.", "food"),
]
TINY_QUERIES = [
    Query("q1", "What is the capital of France?", "Paris", [1], [3], "geo", "single-hop"),
    Query("q2", "Which fruit is in apple pie?", "apples", [4], [6], "food", "single-hop"),
    Query("q3", "Which two pies are baked with fruit from trees, apples or cherries?", "apple pie and cherry pie", [4, 6], [5], "food", "multi"),
]


def make_tiny_project(root: Path, models: dict | None = None, judge: str = "") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    cfg = ProjectConfig(name="tiny", ladder=LadderConfig(seed=7, base_budget=600, prompt_overhead=100), models=models or {}, judge=judge)
    write_config(root, cfg)
    write_project_files(root, TINY_DOCS, TINY_QUERIES)
    return root


@pytest.fixture
def tiny_project(tmp_path) -> Path:
    return make_tiny_project(tmp_path / "tiny")


@pytest.fixture
def fault_server():
    from support.fault_server import FaultServer

    with FaultServer() as s:
        yield s


@pytest.fixture(scope="session")
def local_server():
    """The real embedded server (SmolLM2 via llama.cpp), shared by every @pytest.mark.llm test."""
    from workbench.llm import server

    s = server.default_server()
    yield s
    s.stop()
