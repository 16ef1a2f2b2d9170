"""ruff and mypy pass, configured in pyproject.toml (CI runs the suite, so CI runs them)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

BIN = Path(sys.executable).parent  # installed with the test extra


def test_ruff_passes():
    result = subprocess.run([str(BIN / "ruff"), "check", "--no-cache", "."], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_mypy_passes():
    result = subprocess.run([str(BIN / "mypy"), "--no-incremental"], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout
