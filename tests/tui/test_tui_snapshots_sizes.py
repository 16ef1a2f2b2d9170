"""Issue 42, any size: SVG snapshots (pytest-textual-snapshot) of the query list, the inspector
(each of its tabs) and the Diagnosis tab at 80×24 and 120×40, on the demo project.

The screens print the commands they suggest with the project's absolute path, so the project is
copied to a fixed folder (not pytest's numbered one) and its runs carry rank-derived scores
(support/tui.py: with_fixed_scores): nothing in a snapshot depends on the run, the clock or a pid.
The Why tab is shown on a query and tier without near misses: the explain of one would print
cosines whose third decimal moves with the BLAS build."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from filelock import FileLock

from screens.app import make_app
from support.tui import open_inspector, settle, with_fixed_scores

SIZES = [(80, 24), (120, 40)]
SIZE_IDS = ["80x24", "120x40"]


def fixed_folder(src: Path, name: str = "sample_corpus") -> Path:
    """The fixed-scores copy of ``src`` at a path that is the same in every run (one per
    content of the built project, made once under a lock: xdist workers share it). /tmp itself,
    not $TMPDIR, nor the user's name: the path is printed in the snapshots."""
    key = hashlib.sha256()
    for path in sorted(p for p in src.rglob("*") if p.is_file()):
        key.update(str(path.relative_to(src)).encode() + b"\0" + str(path.stat().st_size).encode() + b"\0")
    home = Path("/tmp/nearmiss-snapshots")
    home.mkdir(exist_ok=True)
    dest = home / name
    with FileLock(str(home / "lock")):
        marker = home / f"{name}.made-from"
        if not (dest.is_dir() and marker.is_file() and marker.read_text() == key.hexdigest()):
            shutil.rmtree(dest, ignore_errors=True)
            with_fixed_scores(src, dest)
            marker.write_text(key.hexdigest())
    return dest


@pytest.fixture(scope="session")
def fixed_demo(sample_project) -> Path:
    return fixed_folder(sample_project)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_query_list(snap_compare, fixed_demo, size):
    assert snap_compare(make_app(fixed_demo), terminal_size=size, run_before=settle)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_diagnosis_tab(snap_compare, fixed_demo, size):
    async def before(pilot):
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)

    assert snap_compare(make_app(fixed_demo), terminal_size=size, run_before=before)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("tab", ["1", "2", "3"], ids=["rankings", "nearmiss", "model"])
def test_inspector_on_the_last_tier(snap_compare, fixed_demo, size, tab):
    """finance-05 on full, the ladder's last tier (its gold Shaeda Trust document out of the hybrid top 10)."""

    async def before(pilot):
        await open_inspector(pilot, "finance-05", "full")
        await pilot.press(tab)
        await settle(pilot)

    assert snap_compare(make_app(fixed_demo), terminal_size=size, run_before=before)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_inspector_why_tab(snap_compare, fixed_demo, size):
    """hr-06 on full: ACCESS? on a larger tier, no near miss here (nothing to explain)."""

    async def before(pilot):
        await open_inspector(pilot, "hr-06", "full")
        await pilot.press("4")
        await settle(pilot)

    assert snap_compare(make_app(fixed_demo), terminal_size=size, run_before=before)
