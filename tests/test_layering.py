"""The core stays headless: importable without textual; index imports nothing of ours; screens/
reaches the core only through the application layer (workbench.session); no module of the core
imports another that imports it back (lazy imports inside functions included)."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import workbench
from support.paths import REPO

# What screens/ may import of the core (see pyproject.toml's contract of the same name).
SCREENS_MAY_IMPORT = {"workbench.session", "workbench.display", "workbench.safe_text"}


def core_modules() -> list[str]:
    """Every module of workbench/, found on disk: a module added later is covered too."""
    return sorted(m.name for m in pkgutil.walk_packages(workbench.__path__, "workbench.") if m.name != "workbench.__main__")


def test_every_core_module_is_found():
    found = core_modules()
    assert "workbench.cli.common" in found and "workbench.access.metrics" in found and "workbench.session" in found
    assert len(found) > 50, found


def test_core_imports_without_textual():
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in core_modules())
        + "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'screens'))\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def test_import_contracts_hold():
    lint = Path(sys.executable).parent / "lint-imports"  # installed with the test extra
    result = subprocess.run([str(lint), "--no-cache"], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 5 kept, 0 broken" in result.stdout  # index, the TUI, the stack, screens, the CLI


def test_the_core_is_one_layered_stack_naming_every_package_and_ignoring_nothing():
    """Issue 29: the layers contract holds no ignored (upward) import, and every top-level module or
    package of workbench/ has its level, so a new one must be placed, not left unconstrained."""
    import tomllib

    contracts = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (stack,) = [c for c in contracts if c["type"] == "layers"]
    assert stack["containers"] == ["workbench"] and not stack.get("ignore_imports")
    placed = {name.strip() for layer in stack["layers"] for name in layer.replace(":", "|").split("|")}
    top = {m.name for m in pkgutil.iter_modules(workbench.__path__)}
    assert top == placed, (sorted(top - placed), sorted(placed - top))


def _imports(path: Path, package: str, module: str = "") -> set[str]:
    """Modules of `package` that this file (the module named `module`, for relative imports)
    imports anywhere: at module level or inside a function."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:  # relative: from .x import y
            base = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
            base = base[: len(base) - node.level + 1]
            prefix = ".".join(base + ([node.module] if node.module else []))
            out |= {f"{prefix}.{a.name}" for a in node.names} | {prefix}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == package:
            names = {f"{node.module}.{a.name}" for a in node.names} if node.module == package else {node.module}
            out |= names
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == package}
    return out


def test_screens_import_only_the_application_layer():
    found = {(str(p.relative_to(REPO)), m) for p in (REPO / "screens").rglob("*.py") for m in _imports(p, "workbench")}
    assert found, "the parser found no import at all"
    bad = sorted((f, m) for f, m in found if m not in SCREENS_MAY_IMPORT)
    assert not bad, f"screens/ must import the core through workbench.session: {bad}"


def _module_graph(package: str) -> dict[str, set[str]]:
    root = REPO / package
    files = {}
    for p in root.rglob("*.py"):
        parts = list(p.relative_to(REPO).with_suffix("").parts)
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p

    def resolve(name: str) -> str:
        while name not in files and "." in name:
            name = name.rsplit(".", 1)[0]
        return name if name in files else ""

    return {m: {resolve(d) for d in _imports(p, package, m)} - {m, ""} for m, p in files.items()}


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_the_top_level_holds_the_foundations_only():
    """A feature's code lives in its package: workbench/ itself keeps at most 12 modules."""
    top = sorted(p.stem for p in (REPO / "workbench").glob("*.py") if p.stem != "__init__")
    assert "correctness" in top and len(top) <= 12, top


def test_no_module_shadows_the_standard_library():
    ours = [p for package in ("workbench", "index", "screens") for p in (REPO / package).rglob("*.py")]
    assert len(ours) > 50
    shadowing = sorted(str(p.relative_to(REPO)) for p in ours if p.stem in sys.stdlib_module_names)
    assert not shadowing, shadowing


def test_the_cycle_finder_finds_a_cycle():
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_between_modules():
    for package in ("workbench", "index"):
        graph = _module_graph(package)
        assert len(graph) > 5 and any(graph.values()), package
        assert import_cycles(graph) == [], package
