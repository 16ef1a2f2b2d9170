"""Installed as users install it (issue 10): the demo's corpus ships in the wheel, its derived
state lives in the user's data folder, and `workbench demo` opens the TUI at once."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

import workbench.cli
import workbench.cli.tui
from workbench.project.demo import SOURCE_FILES, bundled_corpus, prepare_demo
from support.paths import REPO



def test_demo_copy_and_its_state_live_in_the_user_data_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    home = prepare_demo()
    assert home.is_relative_to(tmp_path / "data")
    for name in SOURCE_FILES:
        assert (home / name).read_bytes() == (bundled_corpus() / name).read_bytes()
    (home / "documents.jsonl").write_text("stale\n")  # an upgrade brings a new corpus: the copy follows
    prepare_demo()
    assert (home / "documents.jsonl").read_bytes() == (bundled_corpus() / "documents.jsonl").read_bytes()


def test_demo_opens_the_tui_at_once(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    opened = []
    monkeypatch.setattr(workbench.cli.tui, "tui_available", lambda: True)
    monkeypatch.setattr(workbench.cli.tui, "open_tui", lambda root, auto_build=False: opened.append((root, auto_build)))
    result = CliRunner().invoke(workbench.cli.main, ["demo"])
    assert result.exit_code == 0, result.output
    [(root, auto_build)] = opened
    assert auto_build  # the background build starts without a question
    assert root.is_relative_to(tmp_path / "data")
    assert not (root / ".workbench" / "index").exists()  # nothing was built before the TUI opened


def test_every_third_party_import_is_a_declared_dependency():
    """What the wheel's requirements must cover: each top-level module that `workbench/`, `index/`
    and `screens/` import from outside the standard library belongs to a distribution named in
    pyproject's dependencies (so `pip install` of the wheel resolves everything the code needs)."""
    import ast
    import importlib.metadata as md
    import re
    import tomllib

    declared = {re.split(r"[\[<>=!~ ]", d, maxsplit=1)[0].lower().replace("_", "-")
                for d in tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]}
    ours = {"workbench", "index", "screens"}
    imported: dict[str, str] = {}
    for pkg in sorted(ours):
        for path in sorted((REPO / pkg).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else [])
                for name in names:
                    top = name.split(".")[0]
                    if top not in ours and top not in sys.stdlib_module_names:
                        imported.setdefault(top, str(path.relative_to(REPO)))
    dists = md.packages_distributions()
    undeclared = {top: (where, dists.get(top)) for top, where in imported.items()
                  if not {d.lower().replace("_", "-") for d in dists.get(top, [])} & declared}
    assert imported and not undeclared, f"imported but not declared in pyproject dependencies: {undeclared}"


@pytest.mark.slow
def test_built_wheel_installs_and_runs_the_demo(tmp_path):
    """Proves: the wheel built from this tree holds the sample corpus, and the *installed* package
    (not this checkout) runs `workbench demo --no-tui` from another folder, writing its state to the
    user data folder. The fresh venv gets the third-party dependencies through a .pth naming the main
    venv's site-packages (torch alone is gigabytes): `pip check` then proves that every requirement
    the wheel declares is met there, at a compatible version, and the test above that the
    requirements cover every import."""
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(dist), str(REPO)], check=True)
    [wheel] = dist.glob("nearmiss_workbench-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "workbench/sample_corpus/documents.jsonl" in names
    assert not any("/.workbench/" in n for n in names)

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    vpy = venv / "bin" / "python"
    site = Path(subprocess.run([str(vpy), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    main_site = next(p for p in map(Path, sys.path) if p.name == "site-packages" and (p / "textual").is_dir())
    (site / "_deps_from_main_venv.pth").write_text(f"{main_site}\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(vpy), "install", "--no-deps", "--quiet", str(wheel)], check=True)

    check = subprocess.run([sys.executable, "-m", "pip", "--python", str(vpy), "check"], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(XDG_DATA_HOME=str(tmp_path / "data"), HF_HUB_OFFLINE="1")
    where = subprocess.run([str(vpy), "-c", "import workbench; print(workbench.__file__)"], cwd=tmp_path,
                           env=env, capture_output=True, text=True, check=True).stdout
    assert where.startswith(str(site)), where  # the installed copy, not this checkout
    result = subprocess.run([str(venv / "bin" / "workbench"), "demo", "--no-tui"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=3600)  # ~11 min at load 12 on 2 cores
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Evidence access" in result.stdout and "global:128000" in result.stdout
    assert (tmp_path / "data" / "nearmiss-workbench" / "demo" / ".workbench" / "index").is_dir()
    assert not (site / "workbench" / "sample_corpus" / ".workbench").exists()
