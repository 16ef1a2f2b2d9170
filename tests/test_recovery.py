"""Derived state that is corrupt is detected, reported in one line naming the file, and rebuilt;
leftovers of killed builds and servers are cleaned on the next start (issue 10)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys

from click.testing import CliRunner

from workbench.cli import main
from workbench.access.indexing import build_indexes, dense_store_dir, index_status, sparse_dir
from workbench.access.ladder import ensure_tiers, load_tiers
from workbench.project.load import load_project


def _full(project):
    return next(t for t in load_tiers(project).tiers if t.name == "full")


def test_truncated_tiers_file_is_named_and_rebuilt(project_copy):
    path = project_copy / ".workbench" / "tiers" / "tiers.json"
    good = path.read_bytes()
    path.write_bytes(good[: len(good) // 2])
    result = CliRunner().invoke(main, ["tiers", str(project_copy), "--json"])
    assert result.exit_code == 0, result.output
    assert str(path) in result.stderr and result.stderr.count("\n") == 1  # one line naming the file
    assert [t["name"] for t in json.loads(result.stdout)][-1] == "full"
    assert path.read_bytes() == good  # rebuilt byte for byte (the ladder is deterministic)


def test_truncated_vectors_with_intact_manifest_is_rebuilt(project_copy, caplog):
    project = load_project(project_copy)
    tier = _full(project)
    vectors = dense_store_dir(project) / "vectors.npy"  # the pool's store, whose rows every tier lists
    vectors.write_bytes(vectors.read_bytes()[:1000])
    assert index_status(project, tier)["dense"] == "damaged"
    result = CliRunner().invoke(main, ["index", str(project_copy), "--only", "dense"])
    assert result.exit_code == 0, result.output
    assert "built 1 index(es)" in result.stdout  # not "already current"
    assert str(vectors) in result.stderr
    assert index_status(load_project(project_copy), tier)["dense"] == "ok"


def test_damaged_tantivy_index_is_rebuilt(project_copy):
    project = load_project(project_copy)
    tier = _full(project)
    segment = max((p for p in sparse_dir(project, tier).iterdir() if p.name != "manifest.json"), key=lambda p: p.stat().st_size)
    data = bytearray(segment.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, one byte flipped
    segment.write_bytes(bytes(data))
    assert index_status(project, tier)["sparse"] == "damaged"
    result = CliRunner().invoke(main, ["eval", str(project_copy), "--retrievers", "bm25", "--tiers", "full", "--json", "--no-models"])
    assert result.exit_code == 0, result.output
    assert segment.name in result.stderr
    assert index_status(load_project(project_copy), tier)["sparse"] == "ok"


def test_damaged_embedding_cache_is_set_aside_and_started_afresh(project_copy, caplog):
    project = load_project(project_copy)
    cache = project.state_dir / "embeddings" / "cache.sqlite"
    for extra in ("-wal", "-shm"):
        cache.with_name(cache.name + extra).unlink(missing_ok=True)
    cache.write_bytes(b"this is not a database" * 100)
    tier = next(t for t in load_tiers(project).tiers if t.kind == "base")
    with caplog.at_level(logging.WARNING):
        build_indexes(project, [tier], kinds=("dense",), force=True)
    assert any(str(cache) in r.getMessage() for r in caplog.records)
    assert cache.with_name("cache.sqlite.damaged").exists()
    assert index_status(project, tier)["dense"] == "ok"


def test_leftover_building_folders_are_removed_on_next_build(project_copy):
    project = load_project(project_copy)
    tier = _full(project)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    leftover = sparse_dir(project, tier).parent / f".full.{dead_pid}.x1y2.building"
    leftover.mkdir()
    (leftover / "meta.json").write_text("{}")
    live = sparse_dir(project, tier).parent / f".full.{os.getpid()}.live.building"
    live.mkdir()  # a build in progress in a live process is left alone
    build_indexes(project, ensure_tiers(project).tiers, kinds=("sparse",))
    assert not leftover.exists() and live.exists()


def test_leftover_llama_log_folders_are_removed(tmp_path, monkeypatch):
    import tempfile

    from workbench.llm import server

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / f"workbench-llama-{int(dead.stdout)}-abc"
    stale.mkdir()
    (stale / "server.log").write_text("old")
    mine = tmp_path / f"workbench-llama-{os.getpid()}-def"
    mine.mkdir()
    server.clean_stale_log_dirs()
    assert not stale.exists() and mine.exists()
