"""Checking indexes at start-up does not grow with the pool: files whose size, mtime and inode
match what was hashed are trusted unread, and a command checks only the index kinds it uses."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from workbench.access import indexing
from workbench.access.indexing import dense_store_dir, index_status, sparse_dir
from workbench.access.ladder import load_tiers
from workbench.cli import main
from workbench.project.load import load_project


@pytest.fixture
def hashed(monkeypatch) -> list[str]:
    """Paths hashed from now on, in a fresh process's state (no in-process memo)."""
    seen: list[str] = []
    real = indexing.sha256_file

    def counting(path, *args, **kwargs):
        seen.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(indexing, "sha256_file", counting)
    monkeypatch.setattr(indexing, "_verified", {})
    return seen


def test_a_copied_project_is_hashed_once_then_trusted_by_stat(project_copy, hashed):
    project = load_project(project_copy)
    tiers = load_tiers(project).tiers
    assert all(set(index_status(project, t).values()) == {"ok"} for t in tiers)
    assert hashed  # a copy has new inodes: its files are hashed, once
    hashed.clear()
    indexing._verified.clear()  # as a new process would start
    assert all(set(index_status(load_project(project_copy), t).values()) == {"ok"} for t in tiers)
    assert hashed == []


def test_a_rewritten_file_is_hashed_and_found_damaged(project_copy, hashed):
    project = load_project(project_copy)
    tier = next(t for t in load_tiers(project).tiers if t.name == "full")
    assert index_status(project, tier)["dense"] == "ok"
    vectors = dense_store_dir(project) / "vectors.npy"  # every tier lists rows of the pool's store
    data = bytearray(vectors.read_bytes())
    data[-3] ^= 0xFF  # same size: only the mtime says it changed
    vectors.write_bytes(bytes(data))
    hashed.clear()
    indexing._verified.clear()
    assert index_status(load_project(project_copy), tier)["dense"] == "damaged"
    assert str(vectors) in hashed


def test_a_bm25_eval_reads_no_dense_file(project_copy, hashed, monkeypatch):
    project = load_project(project_copy)
    tier = next(t for t in load_tiers(project).tiers if t.name == "full")
    vectors = dense_store_dir(project) / "vectors.npy"  # every tier lists rows of the pool's store
    vectors.write_bytes(vectors.read_bytes()[:100])  # damaged: a dense check would say so and rebuild it
    manifests: list[str] = []
    real_read = indexing.read_manifest
    monkeypatch.setattr(indexing, "read_manifest", lambda path: manifests.append(str(path)) or real_read(path))
    result = CliRunner().invoke(main, ["eval", str(project_copy), "--retrievers", "bm25", "--json", "--no-models"])
    assert result.exit_code == 0, result.output
    dense_root = str(project.state_dir / "index" / "dense")
    assert manifests and not [p for p in manifests + hashed if p.startswith(dense_root)]
    assert any(p.startswith(str(sparse_dir(project, tier).parent)) for p in manifests)
    assert str(vectors) not in result.stderr
    assert index_status(load_project(project_copy), tier)["dense"] == "damaged"  # untouched, not rebuilt
