"""Atomic writes: derived files appear whole or not at all."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from pathlib import Path


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
    # the pid in the name lets the next start remove the folders of killed builds (workbench.recovery)
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
