"""ruff and mypy pass, configured in pyproject.toml (CI runs the suite, so CI runs them)."""

from __future__ import annotations

import subprocess

from support.checks import BIN, mypy_result
from support.paths import REPO


def test_ruff_passes():
    result = subprocess.run([str(BIN / "ruff"), "check", "--no-cache", "."], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_passes():
    code, out = mypy_result()
    assert code == 0 and "Success: no issues found" in out, out
