"""mypy, started in the background when the session collects its test (not a test).

mypy takes tens of seconds and one core; started at collection it overlaps the rest of the
suite instead of adding to it. Under xdist each worker starts it when the test runs instead.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support.build_cache import CACHE, REPO

BIN = Path(sys.executable).parent  # ruff and mypy come with the test extra
_mypy: subprocess.Popen[str] | None = None


def start_mypy() -> None:
    global _mypy
    if _mypy is None:
        CACHE.mkdir(parents=True, exist_ok=True)
        _mypy = subprocess.Popen([str(BIN / "mypy"), "--cache-dir", str(CACHE / "mypy")], cwd=REPO,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def mypy_result() -> tuple[int, str]:
    start_mypy()
    assert _mypy is not None
    out, _ = _mypy.communicate()
    return _mypy.returncode, out


def stop_mypy() -> None:
    if _mypy is not None and _mypy.poll() is None:
        _mypy.kill()
        _mypy.communicate()
