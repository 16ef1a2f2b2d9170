"""Issue 40: a full disk during `run` (24 KB free, and the disk filling at later moments of the
run) is one message naming the file and what to do, never a traceback; nothing half-written is
kept (no temp file, every stored file whole) and, with space freed, the same `run` completes.

The project lives on a real small tmpfs when this machine lets the test mount one; otherwise
the full disk is injected where the run writes (SQLite's own "database or disk is full" and
ENOSPC from the writes of its files)."""

from __future__ import annotations

import errno
import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from support.llm_project import make_tiny_project
from workbench.cli import main
from workbench.records import ModelConfig

DISK_BYTES = 1 << 20


@pytest.fixture
def small_disk(tmp_path):
    """(folder, mounted): a 1 MiB tmpfs when mountable, else a plain folder (faults injected)."""
    folder = tmp_path / "disk"
    folder.mkdir()
    mounted = shutil.which("mount") is not None and subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={DISK_BYTES}", "tmpfs", str(folder)], capture_output=True).returncode == 0
    yield folder, mounted
    if mounted:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def _fill(folder: Path, leave: int) -> Path:
    st = os.statvfs(folder)
    filler = folder / "filler"
    filler.write_bytes(b"\0" * max(0, st.f_bavail * st.f_frsize - leave))
    return filler


def _inject_full_disk(monkeypatch, after_writes: int) -> None:
    """No tmpfs: the writes of the run's files fail with ENOSPC after ``after_writes`` of them, and
    the response cache's database is full (SQLite's SQLITE_FULL) from the start when 0."""
    from workbench import fsutil
    from workbench.llm import client

    calls = {"n": 0}
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        calls["n"] += 1
        if calls["n"] > after_writes:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(fsutil.os, "fsync", fsync)
    real_setup = client._setup_responses

    def full(db: sqlite3.Connection) -> None:
        db.execute("PRAGMA max_page_count = 1")
        real_setup(db)

    if after_writes == 0:
        monkeypatch.setattr(client, "_setup_responses", full)


def _stored_files_whole(root: Path) -> None:
    state = root / ".workbench"
    leftovers = [p for p in state.rglob("*") if p.name.endswith((".tmp", ".building")) or ".old-" in p.name]
    assert leftovers == []
    for p in state.rglob("*.json"):
        json.loads(p.read_bytes())  # every stored record is whole


# the free space left before `run`: 24 KB (the issue's), then enough for the run to get further
@pytest.mark.parametrize("leave", [24 * 1024, 60 * 1024, 140 * 1024])
def test_a_full_disk_during_run_is_one_message_and_nothing_half_written(small_disk, fault_server, monkeypatch, leave):
    folder, mounted = small_disk
    cfg = ModelConfig(model="fault", base_url=fault_server.base_url, timeout_s=5, max_retries=0)
    root = make_tiny_project(folder / "tiny", models={"fault": cfg}, judge="fault")
    assert CliRunner().invoke(main, ["ladder", str(root)]).exit_code == 0
    args = ["run", str(root), "--task", "localize,qa", "--model", "fault", "--judge-samples", "1"]
    if mounted:
        filler = _fill(folder, leave)
    else:
        _inject_full_disk(monkeypatch, {24 * 1024: 0, 60 * 1024: 1, 140 * 1024: 6}[leave])

    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    # no exception of ours escaped (the stub server's own thread may print a dropped connection's)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    said = " ".join(result.output.split())
    assert "no space left on the device" in said and "Free some disk space and rerun" in said
    assert f"{root}/" in said  # the message names the file it could not write
    _stored_files_whole(root)

    if mounted:
        filler.unlink()
    else:
        monkeypatch.undo()
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0, again.output
    _stored_files_whole(root)


def _inject_full_disk_while_indexing(monkeypatch, where: str) -> None:
    """No tmpfs: the disk fills where `index` writes — Tantivy's commit (its own ValueError naming
    os error 28), the embedding cache (SQLite's "database or disk is full"), the dense index's arrays."""
    import numpy as np

    from index import dense, embedding_cache, sparse

    if where == "sparse":
        def commit(*args, **kwargs):
            raise ValueError("An IO error occurred: 'No space left on device (os error 28)'")

        monkeypatch.setattr(sparse.SparseIndex, "_write", staticmethod(commit))
    elif where == "cache":
        real_setup = embedding_cache._setup

        def full(conn: sqlite3.Connection) -> None:
            real_setup(conn)
            conn.execute("PRAGMA max_page_count = 1")

        monkeypatch.setattr(embedding_cache, "_setup", full)
    else:
        def save(*args, **kwargs):
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(dense.np, "save", save)
        assert np.save is save  # (the same module: restored by monkeypatch)


@pytest.mark.parametrize(("leave", "where"), [(24 * 1024, "sparse"), (180 * 1024, "cache"), (300 * 1024, "dense")])
def test_a_full_disk_during_index_is_one_message_and_nothing_half_built(small_disk, monkeypatch, leave, where):
    folder, mounted = small_disk
    root = make_tiny_project(folder / "tiny")
    assert CliRunner().invoke(main, ["ladder", str(root)]).exit_code == 0
    if mounted:
        filler = _fill(folder, leave)
    else:
        _inject_full_disk_while_indexing(monkeypatch, where)

    result = CliRunner().invoke(main, ["index", str(root)])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    said = " ".join(result.output.split())
    assert "no space left on the device" in said and f"{root}/.workbench/" in said and ".building" not in said
    _stored_files_whole(root)

    if mounted:
        filler.unlink()
    else:
        monkeypatch.undo()
    again = CliRunner().invoke(main, ["index", str(root)])
    assert again.exit_code == 0, again.output
    _stored_files_whole(root)
