"""The core stays headless: importable without textual; index imports nothing of ours; screens/
reaches the core only through the application layer (workbench.session)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from conftest import REPO

CORE_MODULES = [
    "workbench.cli", "workbench.project", "workbench.importers", "workbench.ladder", "workbench.metrics",
    "workbench.indexing", "workbench.retrievers", "workbench.evaluate", "workbench.runs", "workbench.trec",
    "workbench.inspect", "workbench.worddiff", "workbench.evidence", "workbench.llm.tasks", "workbench.llm.report",
    "workbench.query_sets", "workbench.collide.run", "workbench.collide.truth", "workbench.collide.export",
    "workbench.session", "workbench.names", "workbench.errors", "workbench.progress",
    "workbench.sweeps.runner", "workbench.sweeps.report", "workbench.sweeps.charts", "workbench.sweeps.cli",
]
CORE_MODULES += ["workbench.diagnosis_cli", "workbench.diagnosis.overview", "workbench.diagnosis.compare", "workbench.report.html",
                 "workbench.report.markdown"]
# What screens/ may import of the core (see pyproject.toml's contract of the same name).
SCREENS_MAY_IMPORT = {"workbench.session", "workbench.display", "workbench.safe_text"}


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
    assert "Contracts: 3 kept, 0 broken" in result.stdout


def _core_imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "workbench":
            names = {f"{node.module}.{a.name}" for a in node.names} if node.module == "workbench" else {node.module}
            out |= names
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "workbench"}
    return out


def test_screens_import_only_the_application_layer():
    found = {(p.name, m) for p in (REPO / "screens").glob("*.py") for m in _core_imports(p)}
    assert found, "the parser found no import at all"
    bad = sorted((f, m) for f, m in found if m not in SCREENS_MAY_IMPORT)
    assert not bad, f"screens/ must import the core through workbench.session: {bad}"
