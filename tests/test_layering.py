"""The core stays headless: importable without textual; index imports nothing of ours."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import REPO

CORE_MODULES = [
    "workbench.cli", "workbench.project", "workbench.importers", "workbench.ladder", "workbench.metrics",
    "workbench.indexing", "workbench.retrievers", "workbench.evaluate", "workbench.runs", "workbench.trec",
    "workbench.inspect", "workbench.worddiff", "workbench.evidence", "workbench.llm.tasks", "workbench.llm.report",
    "workbench.sweeps.runner", "workbench.sweeps.report", "workbench.sweeps.charts", "workbench.sweeps.cli",
]


def test_core_imports_without_textual():
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in CORE_MODULES)
        + "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'screens'))\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def test_import_contracts_hold():
    lint = Path(sys.executable).parent / "lint-imports"  # installed with the test extra
    result = subprocess.run([str(lint), "--no-cache"], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 2 kept, 0 broken" in result.stdout
