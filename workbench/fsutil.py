"""Derived state on disk: files appear whole or not at all (atomic writes, build folders swapped
in), and what does not load is set aside and rebuilt, never fatal; the build folders of killed
processes are removed on the next start. Every recovery says so in one line naming the file
(logger "workbench.recovery"; the CLI prints it on stderr)."""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import tempfile
from pathlib import Path

log = logging.getLogger("workbench.recovery")

# fresh_temp_dir names build folders ".<target>.<pid>.<random>.building"
_BUILDING = re.compile(r"^\..+\.(\d+)\.[^.]+\.building$")


def _umask() -> int:
    # os.umask can only be read by setting it; set it straight back (process-wide, so keep it short).
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # mkstemp creates 0600; a file the user asked for gets the mode any other program would give it.
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def fresh_temp_dir(beside: Path) -> Path:
    """A new empty directory next to ``beside`` (same filesystem, so rename is atomic)."""
    beside.parent.mkdir(parents=True, exist_ok=True)
    # the pid in the name lets the next start remove the folders of killed builds (remove_dead_builds)
    return Path(tempfile.mkdtemp(dir=beside.parent, prefix=f".{beside.name}.{os.getpid()}.", suffix=".building"))


def atomic_replace_dir(built: Path, target: Path) -> None:
    """Swap a fully built directory into place; the old one stays usable until the swap."""
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}.old-{os.getpid()}")
        os.replace(target, old)
    os.replace(built, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


_PLAIN_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,79}")
MAX_NAME_STEM = 60


def safe_name(name: str) -> str:
    """A tier, system or query ID as one file name, injectively and at most ~72 characters.

    A plain name (letters, digits, `_ . -`, not starting with a dot, ≤ 80 characters) is kept as is;
    any other gets a readable stem plus `~` and a hash of the whole name ("base:finance" →
    "base_finance~1b2c3d4e5f"). `~` never occurs in a kept name, so two names never share a file.
    """
    if _PLAIN_NAME.fullmatch(name):
        return name
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).lstrip(".")[:MAX_NAME_STEM]
    return f"{stem}~{sha256_bytes(name.encode('utf-8'))[:10]}"


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# ---------------------------------------------------------------- recovery


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
