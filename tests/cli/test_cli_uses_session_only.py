"""The CLI is a client of workbench.session (issue 41): its modules import, of the core, only the
operations layer and the four foundations a front end writes with, lazy imports included. The
import-linter contract says so (tests/test_checks.py runs it); this test reads the files itself, so
a contract that matched nothing could not pass unseen."""

from __future__ import annotations

import ast
import tomllib

from support.paths import REPO

ALLOWED = ("workbench.cli", "workbench.session", "workbench.display", "workbench.safe_text", "workbench.errors",
           "workbench.progress")


def _imports(path) -> list[tuple[int, str]]:
    """Every module a file imports (at any depth of the code), `from workbench import x` as workbench.x."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out += [(node.lineno, f"{node.module}.{a.name}" if node.module == "workbench" else node.module) for a in node.names]
    return out


def _allowed(module: str) -> bool:
    return any(module == a or module.startswith(a + ".") for a in ALLOWED)


def test_the_cli_imports_the_core_only_through_the_session():
    files = sorted((REPO / "workbench" / "cli").glob("*.py"))
    assert len(files) > 10
    wrong = [f"{p.relative_to(REPO)}:{line}: {m}" for p in files for line, m in _imports(p)
             if (m == "workbench" or m.startswith("workbench.")) and not _allowed(m)]
    assert wrong == []


def test_the_contract_forbids_every_core_package_by_wildcard():
    contracts = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    cli = next(c for c in contracts if c.get("source_modules") == ["workbench.cli"])
    # `workbench` itself would contain the source: import-linter skips such a pair, and checks nothing
    assert cli["type"] == "forbidden" and cli["forbidden_modules"] == ["workbench.*"]
    allowed = {i.split(" -> ")[1].removesuffix(".**") for i in cli["ignore_imports"]}
    assert allowed == set(ALLOWED) - {"workbench.cli"}
    assert all(i.split(" -> ")[0] in ("workbench.cli", "workbench.cli.**") for i in cli["ignore_imports"])
