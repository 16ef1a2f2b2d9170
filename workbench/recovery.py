"""Derived state that does not load is set aside and rebuilt, never fatal; leftovers of killed
processes are removed on the next start. Every recovery says so in one line naming the file
(logger "workbench.recovery"; the CLI prints it on stderr)."""

from __future__ import annotations

import logging
import os
import re
import shutil
from pathlib import Path

log = logging.getLogger("workbench.recovery")

# fsutil.fresh_temp_dir names build folders ".<target>.<pid>.<random>.building"
_BUILDING = re.compile(r"^\..+\.(\d+)\.[^.]+\.building$")


def set_aside(path: Path, why: str) -> Path:
    """Move a damaged file out of the way (kept as <name>.damaged for a post-mortem)."""
    dest = path.with_name(path.name + ".damaged")
    try:
        os.replace(path, dest)
    except OSError:
        path.unlink(missing_ok=True)
    log.warning("%s: %s; set aside as %s, rebuilding", path, why, dest.name)
    return dest


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    return True


def remove_dead_builds(folder: Path) -> list[Path]:
    """Remove `.<name>.<pid>.*.building` folders in ``folder`` whose process is gone (kill -9 mid-build)."""
    removed: list[Path] = []
    if not folder.is_dir():
        return removed
    for p in folder.iterdir():
        m = _BUILDING.match(p.name)
        if m and p.is_dir() and not pid_alive(int(m.group(1))):
            shutil.rmtree(p, ignore_errors=True)
            removed.append(p)
    if removed:
        log.info("removed %d unfinished build folder(s) of killed processes in %s", len(removed), folder)
    return removed
