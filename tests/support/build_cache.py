"""Built test projects, kept across runs in a cache folder keyed by content hash (not a test).

Building a project means embedding its corpus: minutes on 2 CPU cores. The session fixtures
(tests/conftest.py) build each project once into ``$NEARMISS_TEST_CACHE`` (default
``<repo>/.test-cache``, git-ignored) under a key that hashes the project's inputs AND every
source file of index/ and workbench/: a change to either builds afresh, so a cached build is
always what the code under test makes. xdist workers share one build (a file lock per corpus).
Chunk embeddings are kept apart, one store per corpus, content-addressed (model + chunk text), so
a rebuild after a code change re-embeds nothing it has seen.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Callable

from filelock import FileLock
from support.paths import REPO

CACHE = Path(os.environ.get("NEARMISS_TEST_CACHE", REPO / ".test-cache"))
EMBEDDINGS = Path(".workbench") / "embeddings"


def code_hash() -> str:
    # Several developers editing one tree at once: NEARMISS_TEST_FROZEN_BUILD=1 keeps the last build
    # whatever the code (for iterating only; CI and the final run never set it).
    if os.environ.get("NEARMISS_TEST_FROZEN_BUILD") == "1":
        return "frozen"
    h = hashlib.sha256()
    for package in ("index", "workbench"):
        for path in sorted((REPO / package).rglob("*.py")):
            h.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def cached_build(name: str, corpus: str, inputs: list[bytes], build: Callable[[Path], None], dest: Path) -> Path:
    """A copy at ``dest`` of the project that ``build(root)`` makes in an empty folder ``root``.

    Builds of one ``corpus`` take turns (the later one reuses the earlier one's embeddings);
    builds of different corpora run side by side."""
    h = hashlib.sha256(code_hash().encode())
    for part in inputs:
        h.update(hashlib.sha256(part).digest())
    entry = CACHE / f"{name}-{h.hexdigest()[:16]}"
    CACHE.mkdir(parents=True, exist_ok=True)
    with FileLock(str(CACHE / f"{corpus}.lock")):
        if not entry.is_dir():
            tmp = CACHE / f".building-{name}-{os.getpid()}"
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir()
            shared = CACHE / f"embeddings-{corpus}"
            if shared.is_dir():
                shutil.copytree(shared, tmp / EMBEDDINGS)
            build(tmp)
            if (tmp / EMBEDDINGS).is_dir():  # keep what was embedded for the next build
                fresh = CACHE / f".embeddings-{corpus}-new"
                shutil.rmtree(fresh, ignore_errors=True)
                shutil.copytree(tmp / EMBEDDINGS, fresh)
                shutil.rmtree(shared, ignore_errors=True)
                os.replace(fresh, shared)
            for old in CACHE.glob(f"{name}-*"):  # older builds of this project are stale now
                shutil.rmtree(old, ignore_errors=True)
            os.replace(tmp, entry)
    shutil.copytree(entry, dest)
    return dest
