"""Atomic writes: derived files appear whole or not at all."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from pathlib import Path


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
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
    return Path(tempfile.mkdtemp(dir=beside.parent, prefix=f".{beside.name}.", suffix=".building"))


def atomic_replace_dir(built: Path, target: Path) -> None:
    """Swap a fully built directory into place; the old one stays usable until the swap."""
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}.old-{os.getpid()}")
        os.replace(target, old)
    os.replace(built, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def safe_name(name: str) -> str:
    """A tier or system name as a file name ("base:finance" → "base_finance")."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
