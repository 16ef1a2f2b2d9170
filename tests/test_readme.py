"""The documentation stays true: every configuration example (a ```toml block of README.md or of a
page under docs/) is a valid workbench.toml file."""

from __future__ import annotations

import re

import msgspec
import pytest

from support.paths import REPO
from workbench.records import ProjectConfig

PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
TOML_BLOCKS = [(page.relative_to(REPO).as_posix(), block) for page in PAGES
               for block in re.findall(r"^```toml\n(.*?)^```", page.read_text(encoding="utf-8"), re.S | re.M)]


def test_the_docs_have_config_examples():
    pages = {page for page, _ in TOML_BLOCKS}
    assert "docs/reference/project-format.md" in pages  # the page with every key and its default
    assert len(TOML_BLOCKS) >= 5


@pytest.mark.parametrize("page,block", TOML_BLOCKS, ids=[f"{p}#{i}" for i, (p, _) in enumerate(TOML_BLOCKS)])
def test_config_examples_decode(page, block):
    msgspec.toml.decode(block.encode(), type=ProjectConfig)
