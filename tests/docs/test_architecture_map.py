"""docs/ARCHITECTURE.md's two maps stay true (issue 41: a newcomer's one guess finds the file):
the feature → package table names modules that exist and every module of each package it describes,
and the command → file table gives every command the file that defines it."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import click

from support.paths import REPO

TEXT = (REPO / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
PROSE_ROWS = {"workbench/cli", "workbench/session", "screens", "workbench"}  # described in sections of their own


def rows(heading: str) -> list[list[str]]:
    section = TEXT[TEXT.index(heading):]
    section = section[:section.index("\n## ", 1)]
    return [[c.strip() for c in line.strip().strip("|").split("|")] for line in section.splitlines()
            if line.startswith("| ") and not line.startswith("| ---")][1:]


def top_level_items(text: str) -> list[str]:
    """`a, b (x, y), c + d` -> a, b (x, y), c, d: commas and `+` outside parentheses separate."""
    items, depth, current = [], 0, ""
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if ch in ",+" and depth == 0:
            items.append(current)
            current = ""
        else:
            current += ch
    return [i.strip() for i in [*items, current] if i.strip()]


def test_the_feature_table_names_every_module_of_each_package_and_no_other():
    checked, wrong = 0, []
    for feature, package, what in rows("## Feature → package"):
        folder = REPO / re.findall(r"`([^`]+)`", package)[0]
        if not folder.exists():
            wrong.append(f"{feature}: {folder.relative_to(REPO)} does not exist")
            continue
        if folder.is_file() or folder.relative_to(REPO).as_posix().rstrip("/") in PROSE_ROWS:
            continue
        named = {item.split(" ")[0].strip("`") for item in top_level_items(what)}
        there = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
        there |= {p.name for p in folder.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
        if named - there:
            wrong.append(f"{feature}: names {sorted(named - there)}, not in {folder.relative_to(REPO)}")
        if there - named:
            wrong.append(f"{feature}: {folder.relative_to(REPO)} has {sorted(there - named)}, not named")
        checked += 1
    assert checked >= 12 and not wrong, "\n".join(wrong)


def commands(group: click.Group, prefix: str = "") -> dict[str, str]:
    out = {}
    for name, cmd in group.commands.items():
        full = f"{prefix} {name}".strip()
        if isinstance(cmd, click.Group):
            out |= commands(cmd, full)
        else:
            out[full] = inspect.getsourcefile(inspect.unwrap(cmd.callback))  # type: ignore[arg-type]
    return out


def test_the_command_table_gives_every_command_its_file():
    import workbench.cli

    table = {}
    for names, file, _operation, logic in rows("## Command → file"):
        for name in re.findall(r"`([^`]+)`", names):
            table[name] = file.strip("`")
        for path in re.findall(r"`(workbench/[^`]+|screens/[^`]*|index/[^`]*)`", logic):
            assert (REPO / path.split(" ")[0]).exists(), path
    actual = {name: Path(f).relative_to(REPO).as_posix() for name, f in commands(workbench.cli.main).items()}
    assert table == actual


def test_the_operations_layer_names_every_session_module():
    section = TEXT[TEXT.index("## The operations layer"):]
    section = section[:section.index("\n## ", 1)]
    named_flat = set(re.findall(r"`(\w+)`:", section))  # each module is introduced as `name`: what it does
    there = {p.stem for p in (REPO / "workbench" / "session").glob("*.py") if p.stem != "__init__"}
    assert there - named_flat == set(), f"workbench/session/ modules the page does not name: {sorted(there - named_flat)}"
    assert named_flat - there == set(), f"named on the page, not in workbench/session/: {sorted(named_flat - there)}"


def test_every_path_the_page_names_exists():
    paths = set(re.findall(r"`((?:workbench|screens|index|tests|benchmarks|sample_corpus)/[\w/.]*)`", TEXT))
    assert len(paths) >= 40
    assert sorted(p for p in paths if not (REPO / p).exists()) == []


def session_modules_imported(cli_file: Path) -> set[str]:
    """The workbench/session/ modules a CLI file calls: imported by path, or by name through the
    facade (workbench/session/__init__.py's name -> module map)."""
    import ast

    import workbench.session

    home = workbench.session._HOME
    out = set()
    for node in ast.walk(ast.parse(cli_file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "workbench.session":
            out |= {home.get(a.name, f"workbench.session.{a.name}") for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("workbench.session."):
            out.add(node.module)
    return {m.split(".")[-1] for m in out if m.startswith("workbench.session.")}


def test_the_command_table_names_the_operations_each_cli_file_calls():
    said: dict[str, set[str]] = {}
    for _, file, operation, _ in rows("## Command → file"):
        said.setdefault(file.strip("`"), set()).update(re.findall(r"`workbench/session/(\w+)\.py`", operation))
    assert len(said) >= 14
    wrong = {f: (sorted(ops), sorted(session_modules_imported(REPO / f))) for f, ops in said.items()
             if ops != session_modules_imported(REPO / f)}
    assert not wrong, f"file: (the table's operations, the modules it calls) {wrong}"
