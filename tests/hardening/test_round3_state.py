"""Issue 33 (hardening round 3), the project's own state: documents added by two imports at once
(1), reused derived files checked by one integrity record (3, 4), a damaged run index (6),
symlinked folders inside .workbench/ (7), the project lock's wait (10), `import`'s answers and a
full disk under the response cache (11)."""

from __future__ import annotations

import fcntl
import logging
import os
import sqlite3
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.fsutil import (LOCK_FILE, ProjectLocked, UnsafePath, append_record, atomic_write_bytes, checked_database,
                              folder_fingerprint, fresh_temp_dir, project_lock)
from workbench.project.load import load_project


def _edit_in_place(path: Path, old: bytes, new: bytes) -> None:
    """Same size, same inode, mtime put back (`touch -r`): only ctime tells."""
    assert len(old) == len(new)
    st = path.stat()
    data = path.read_bytes()
    assert old in data
    with open(path, "r+b") as fh:
        fh.write(data.replace(old, new))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns


# ---------------------------------------------------------------- 1. two imports add documents at once


def test_two_imports_adding_documents_from_stale_loads_keep_both(tiny_project):
    from workbench.triage.traces.conventions import TraceDoc
    from workbench.triage.traces.importer import add_documents

    first, second = load_project(tiny_project), load_project(tiny_project)  # both loaded before either writes
    ours = {f"a{n}": ("t.json:1", TraceDoc(f"a{n}", None, f"text a{n}", None)) for n in range(3)}
    theirs = {f"b{n}": ("t.json:1", TraceDoc(f"b{n}", None, f"text b{n}", None)) for n in range(3)}
    shared = {"a0": ours["a0"]}  # one document both imports carry
    map_a: dict[str, int] = {}
    map_b: dict[str, int] = {}
    added_a = add_documents(first, ours, map_a)
    added_b = add_documents(second, {**theirs, **shared}, map_b)
    docs = load_project(tiny_project).documents
    assert len(docs) == 6 + 6
    assert not set(added_a) & set(added_b)
    assert {docs[map_a[k]].source_id for k in ours} == set(ours)
    assert {docs[map_b[k]].source_id for k in theirs} == set(theirs)
    assert map_b["a0"] == map_a["a0"]  # the shared one is not added twice


# ---------------------------------------------------------------- 10. the lock's wait


@pytest.fixture
def held_lock(tiny_project):
    """The project lock held by another open file description (as another process would)."""
    state = tiny_project / ".workbench"
    state.mkdir(exist_ok=True)
    fd = os.open(state / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o666)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    yield tiny_project
    fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)


def test_a_lock_wait_is_announced_with_the_holders_pid_and_bounded(held_lock, caplog):
    caplog.set_level(logging.INFO, "workbench.recovery")
    with pytest.raises(ProjectLocked, match=f"held by pid {os.getpid()}"):
        with project_lock(held_lock, timeout_s=0):
            raise AssertionError("entered a held lock")
    assert f"pid {os.getpid()}" in caplog.text and "waiting for the project lock" in caplog.text


def test_add_query_gives_up_on_a_held_lock_with_a_clear_error(held_lock, monkeypatch):
    monkeypatch.setenv("NEARMISS_LOCK_TIMEOUT_S", "0")
    result = CliRunner().invoke(main, ["add-query", str(held_lock), "--query", "x?", "--no-run"])
    assert result.exit_code == 2, result.output
    assert f"pid {os.getpid()}" in result.output and "NEARMISS_LOCK_TIMEOUT_S" in result.output
    assert "Traceback" not in result.output


def test_the_lock_timeout_option_bounds_the_wait_for_one_command(held_lock, monkeypatch):
    """--lock-timeout wins over the environment, holds for the command it is given to only, and
    refuses what is no number of seconds."""
    monkeypatch.setenv("NEARMISS_LOCK_TIMEOUT_S", "600")  # were it read, the command would wait 10 minutes
    runner = CliRunner()
    result = runner.invoke(main, ["--lock-timeout", "0", "add-query", str(held_lock), "--query", "x?", "--no-run"])
    assert result.exit_code == 2, result.output
    assert "for more than 0 s" in result.output and "--lock-timeout" in result.output
    assert "Traceback" not in result.output
    from workbench import fsutil

    assert fsutil.lock_timeout_s() == 600  # after the command: the environment's again
    for bad in ("-1", "nan", "soon"):
        refused = runner.invoke(main, ["--lock-timeout", bad, "add-query", str(held_lock), "--query", "x?", "--no-run"])
        assert refused.exit_code == 2 and "--lock-timeout" in refused.output, refused.output


def test_a_free_lock_records_its_holder(tiny_project):
    with project_lock(tiny_project):
        assert (tiny_project / ".workbench" / LOCK_FILE).read_text().strip() == str(os.getpid())


# ---------------------------------------------------------------- 7. symlinked folders inside .workbench/


@pytest.mark.parametrize("folder", ["imports", "imports/traces/prod", "imports/answers", "corpus", "tuned",
                                    "rerank_cache", "runs/base/llm"])
def test_no_write_follows_a_symlinked_folder_out_of_the_project(tiny_project, tmp_path, folder):
    outside = tmp_path / "outside"
    outside.mkdir()
    link = tiny_project / ".workbench" / folder
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside)
    with pytest.raises(UnsafePath, match="symbolic link"):
        atomic_write_bytes(link / "x.json", b"{}")
    with pytest.raises(UnsafePath):
        fresh_temp_dir(link / "model")
    with pytest.raises(UnsafePath):
        append_record(link / "log.jsonl", tiny_project, b"{}")
    with pytest.raises(UnsafePath):
        checked_database(link / "deeper" / "db.sqlite", tiny_project)
    assert list(outside.iterdir()) == []


def test_the_rerank_score_cache_refuses_a_symlinked_database(tiny_project, tmp_path):
    from workbench.rerank.cache import CACHE_DIR, CACHE_FILE, ScoreCache

    victim = tmp_path / "victim"
    victim.write_bytes(b"")
    (tiny_project / ".workbench" / CACHE_DIR).mkdir(parents=True)
    (tiny_project / ".workbench" / CACHE_DIR / CACHE_FILE).symlink_to(victim)
    with pytest.raises(UnsafePath):
        ScoreCache.for_state_dir(tiny_project / ".workbench")
    assert victim.read_bytes() == b""


def test_a_symlinked_corpus_folder_is_refused_by_the_load_that_writes_into_it(tiny_project, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (tiny_project / ".workbench").mkdir(exist_ok=True)
    (tiny_project / ".workbench" / "corpus").symlink_to(outside)
    with pytest.raises(UnsafePath, match="corpus"):
        load_project(tiny_project)
    assert list(outside.iterdir()) == []


# ---------------------------------------------------------------- 3 + 4. integrity records


def test_documents_edited_in_place_with_mtime_restored_are_read_again(tiny_project):
    load_project(tiny_project)  # validated: its stamp recorded
    first = load_project(tiny_project)
    assert first.documents[1].text.startswith("Paris is")
    _edit_in_place(tiny_project / "documents.jsonl", b"Paris is the capital", b"Lille is the capital")
    again = load_project(tiny_project)
    assert again.documents[1].text.startswith("Lille is")
    assert again.documents_hash() != first.documents_hash()


def test_an_index_file_edited_in_place_with_mtime_restored_is_damaged(tmp_path):
    from workbench.access.indexing import IndexManifest, _file_record, damaged_file

    folder = tmp_path / "idx"
    folder.mkdir()
    (folder / "vectors.npy").write_bytes(b"\x01" * 4096)
    manifest = IndexManifest("dense", 1, "@pool", "h", 1, files={"vectors.npy": _file_record(folder / "vectors.npy")})
    assert damaged_file(folder, manifest) is None  # hashed once, its stat recorded
    assert damaged_file(folder, manifest) is None  # trusted by its stat
    _edit_in_place(folder / "vectors.npy", b"\x01" * 8, b"\x7f\xc0\x00\x00" * 2)  # a NaN row
    assert "content differs" in (damaged_file(folder, manifest) or "")


def test_weights_changed_in_place_at_the_same_size_change_the_models_fingerprint(tmp_path):
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    (model / "model.safetensors").write_bytes(b"\0" * 100_000)
    before = folder_fingerprint(model)
    assert folder_fingerprint(model) == before  # stable while nothing changes
    _edit_in_place(model / "model.safetensors", b"\0" * 16, b"\1" * 16)
    assert folder_fingerprint(model) != before


# ---------------------------------------------------------------- 6. a damaged run index


def test_a_damaged_run_index_whose_stamp_matches_does_not_hide_the_ranking(tiny_project):
    from workbench.access.runs import RunIndex, RunStore, SystemRun, tier_docs_hash, tier_hash
    from workbench.records import Hit, RankedList, Tier

    project = load_project(tiny_project)
    tier = Tier(name="full", kind="full", budget=0, tokens=0, doc_ids=[1, 2, 3, 4, 5, 6], query_ids=["q1", "q2", "q3"], domains=[])
    store = RunStore(project)
    run = SystemRun("bm25", tier.name, tier_hash(project, tier), "k", 2, [RankedList("q1", [Hit(1, 2.0), Hit(3, 1.0)])],
                    {}, tier_docs_hash(project, tier))
    store.save(run)
    assert store.query_rankings(tier, "q1")["bm25"] == run.hits("q1")
    path = store.index_path(store.path("bm25", tier.name))
    index = msgspec.json.decode(path.read_bytes(), type=RunIndex)
    for damaged in (msgspec.structs.replace(index, spans={}), msgspec.structs.replace(index, docs_hash="0" * 16)):
        path.write_bytes(msgspec.json.encode(damaged))  # the stamp still matches the run file
        assert store.query_rankings(tier, "q1").get("bm25") == run.hits("q1")


# ---------------------------------------------------------------- 11. import's answers, a full disk


def _import(tmp_path: Path, answer_json: str):
    (tmp_path / "d.jsonl").write_text('{"doc_id": "a", "title": "A", "text": "alpha"}\n')
    (tmp_path / "q.jsonl").write_text('{"query_id": "q", "query": "what?", "gold_doc_ids": ["a"], "answer": %s}\n' % answer_json)
    return CliRunner().invoke(main, ["import", str(tmp_path / "p"), "--documents", str(tmp_path / "d.jsonl"),
                                     "--queries", str(tmp_path / "q.jsonl")])


def test_a_null_answer_is_no_answer_not_the_text_none(tmp_path):
    result = _import(tmp_path, "null")
    assert result.exit_code == 0, result.output
    assert load_project(tmp_path / "p").query("q").answer == ""


@pytest.mark.parametrize("answer", ['{"text": "alpha"}', "true", '[["alpha"]]'])
def test_an_answer_that_is_not_text_is_refused_naming_the_field(tmp_path, answer):
    result = _import(tmp_path, answer)
    assert result.exit_code == 2, result.output
    assert "q.jsonl:1" in result.output and "answer" in result.output and "not an answer" in result.output
    assert not (tmp_path / "p").exists()


def test_a_number_answer_is_written_out(tmp_path):
    assert _import(tmp_path, "1889").exit_code == 0
    assert load_project(tmp_path / "p").query("q").answer == "1889"


def test_a_full_disk_while_opening_the_response_cache_is_one_message(tiny_project, monkeypatch):
    from workbench.llm import client

    real = client._setup_responses

    def no_room(db: sqlite3.Connection) -> None:
        db.execute("PRAGMA max_page_count = 1")  # SQLite's own "database or disk is full"
        real(db)

    monkeypatch.setattr(client, "_setup_responses", no_room)
    with pytest.raises(OSError) as info:
        client.ResponseCache.for_state_dir(tiny_project / ".workbench")
    from workbench.errors import os_error

    message = str(os_error(info.value))
    assert "no space left" in message and client.CACHE_FILE in message
    assert not list((tiny_project / ".workbench" / client.CACHE_DIR).glob("*.damaged"))  # not mistaken for damage


def test_rows_npy_rotated_in_place_with_mtime_restored_is_damaged_and_rebuilt(evaluated_copy):
    import numpy as np

    from workbench.access.indexing import dense_dir, index_status, open_dense
    from workbench.access.ladder import load_tiers

    project = load_project(evaluated_copy)
    tier = next(t for t in load_tiers(project).tiers if t.name == "full")
    assert index_status(project, tier, ("dense",))["dense"] == "ok"  # verified: its stat recorded
    rows = dense_dir(project, tier) / "rows.npy"
    good = np.load(rows)
    st = rows.stat()
    with open(rows, "r+b") as fh:
        np.save(fh, np.roll(good, 1))
    os.utime(rows, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert index_status(project, tier, ("dense",))["dense"] == "damaged"
    result = CliRunner().invoke(main, ["index", str(evaluated_copy)])
    assert result.exit_code == 0, result.output
    assert np.array_equal(np.load(rows), good)
    assert open_dense(load_project(evaluated_copy), tier).num_chunks == len(good)
