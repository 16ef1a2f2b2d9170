"""The README stays true: its configuration examples are valid workbench.toml files."""

from __future__ import annotations

import re

import msgspec
import pytest

from support.paths import REPO
from workbench.records import ProjectConfig

TOML_BLOCKS = re.findall(r"```toml\n(.*?)```", (REPO / "README.md").read_text(), re.S)


def test_readme_has_config_examples():
    assert len(TOML_BLOCKS) >= 2


@pytest.mark.parametrize("block", TOML_BLOCKS)
def test_readme_config_examples_decode(block):
    msgspec.toml.decode(block.encode(), type=ProjectConfig)
