"""A virtualenv of its own for an instrumentation library that conflicts with the test extras (DSPy
brings litellm; OpenLIT pins its own openai and OpenTelemetry ranges): built once from its pinned
requirements file (tests/triage/requirements/LIB.txt) under the test cache, keyed by the file's
hash and the Python version, so a changed pin builds afresh and an unchanged one costs nothing.
The pipeline runs there in a subprocess and writes OTLP JSON for the product to import."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from filelock import FileLock
from support.build_cache import CACHE
from support.paths import REPO

REQUIREMENTS = REPO / "tests" / "triage" / "requirements"
PIPELINES = REPO / "tests" / "triage" / "pipelines"
DONE = ".complete"


def lib_python(lib: str) -> Path:
    """The interpreter of LIB's virtualenv, built if it is not there yet (pip: a minute or so)."""
    req = REQUIREMENTS / f"{lib}.txt"
    key = hashlib.sha256(req.read_bytes() + sys.version.encode()).hexdigest()[:16]
    entry = CACHE / f"venv-{lib}-{key}"
    CACHE.mkdir(parents=True, exist_ok=True)
    with FileLock(str(CACHE / f"venv-{lib}.lock")):
        if not (entry / DONE).exists():
            tmp = CACHE / f".building-venv-{lib}-{os.getpid()}"
            shutil.rmtree(tmp, ignore_errors=True)
            base = getattr(sys, "_base_executable", sys.executable)
            subprocess.run([base, "-m", "venv", str(tmp)], check=True, capture_output=True)
            done = subprocess.run([str(tmp / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps", "-r", str(req)],
                                  capture_output=True, text=True)
            if done.returncode != 0:
                shutil.rmtree(tmp, ignore_errors=True)
                raise RuntimeError(f"pip could not build {lib}'s virtualenv from {req}:\n{done.stderr[-3000:]}")
            (tmp / DONE).write_text(req.read_text())
            for old in CACHE.glob(f"venv-{lib}-*"):  # earlier pins are stale now
                shutil.rmtree(old, ignore_errors=True)
            os.replace(tmp, entry)
    return entry / "bin" / "python"


def run_lib_pipeline(lib: str, script: str, shape: str, out: Path, n: int | None = None) -> Path:
    """``script`` (tests/triage/pipelines/) run with SHAPE in LIB's virtualenv; its OTLP file at ``out``."""
    args = [str(lib_python(lib)), str(PIPELINES / script), shape, str(out)] + ([str(n)] if n else [])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "PYTHON"))}
    done = subprocess.run(args, capture_output=True, text=True, timeout=900, env=env, cwd=out.parent)
    if done.returncode != 0:
        raise RuntimeError(f"{script} {shape} failed in {lib}'s virtualenv:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
    return out
