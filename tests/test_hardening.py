"""Issue 20, the file-system side: nothing written outside the project (1), no lost queries under
concurrency (2), OS errors as one message (5), torn append-only logs (11), leftovers of killed
processes removed (12)."""

from __future__ import annotations

import json
import os
import subprocess
import stat
import sys
import threading
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.fsutil import UnsafePath, append_record, atomic_replace_dir, atomic_write_bytes, checked_path, remove_leftovers
from workbench.project.load import load_project


def _add(root: Path, *extra: str):
    return CliRunner().invoke(main, ["add-query", str(root), "--query", "x?", "--no-run", *extra])


# ---------------------------------------------------------------- 1. writes follow symlinks


def test_add_query_refuses_a_symlinked_edit_log(tiny_project, tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    (tiny_project / "query_edits.jsonl").symlink_to(victim)
    result = _add(tiny_project)
    assert result.exit_code == 2, result.output
    assert "symbolic link" in result.output and "query_edits.jsonl" in result.output
    assert victim.read_text() == "precious\n"


def test_a_state_folder_resolving_outside_the_project_is_refused(tiny_project, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (tiny_project / ".workbench").symlink_to(outside)
    with pytest.raises(UnsafePath, match="outside the project"):
        checked_path(tiny_project / ".workbench" / "collide" / "x.jsonl", tiny_project)


def test_response_cache_database_is_not_opened_through_a_symlink(tiny_project, tmp_path):
    from workbench.llm.client import CACHE_DIR, CACHE_FILE, ResponseCache

    victim = tmp_path / "empty-victim"
    victim.write_bytes(b"")
    (tiny_project / ".workbench" / CACHE_DIR).mkdir(parents=True)
    (tiny_project / ".workbench" / CACHE_DIR / CACHE_FILE).symlink_to(victim)
    with pytest.raises(UnsafePath):
        ResponseCache.for_state_dir(tiny_project / ".workbench")
    assert victim.read_bytes() == b""  # not turned into a SQLite database


class _Embedder:
    """Chunks by whole text; the symlink is refused before any vector is asked for."""

    name, dims = "fake", 4

    def chunk(self, text, tokens, overlap):
        return [text]

    def embed(self, texts):
        raise AssertionError("never reached")


def test_embedding_cache_database_is_not_opened_through_a_symlink(tiny_project, tmp_path):
    from workbench.access.indexing import embed_pool

    victim = tmp_path / "empty-victim"
    victim.write_bytes(b"")
    (tiny_project / ".workbench" / "embeddings").mkdir(parents=True)
    (tiny_project / ".workbench" / "embeddings" / "cache.sqlite").symlink_to(victim)
    with pytest.raises(UnsafePath):
        embed_pool(load_project(tiny_project), [1, 2], embedder=_Embedder())
    assert victim.read_bytes() == b""


def test_sweep_results_and_collide_log_refuse_symlinks(tiny_project, tmp_path):
    from workbench.collide.run import VerificationLog
    from workbench.sweeps.store import SweepStore

    victim = tmp_path / "victim"
    victim.write_text("")
    store = SweepStore(load_project(tiny_project))
    store.dir("s1").mkdir(parents=True)
    (store.dir("s1") / "results.jsonl").symlink_to(victim)
    with pytest.raises(UnsafePath):
        store._append("s1", "results.jsonl", msgspec.Struct())
    log_path = tiny_project / ".workbench" / "collide" / "k" / "verifications.jsonl"
    log_path.parent.mkdir(parents=True)
    log_path.symlink_to(victim)
    with pytest.raises(UnsafePath):
        VerificationLog(log_path, tiny_project).append(msgspec.Struct())  # type: ignore[arg-type]
    assert victim.read_text() == ""


# ---------------------------------------------------------------- 2. concurrent add-query


def test_four_concurrent_add_query_keep_all_four(tiny_project):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(Path.cwd()), os.environ.get("PYTHONPATH", "")) if p)}
    procs = [subprocess.Popen([sys.executable, "-m", "workbench", "add-query", str(tiny_project), "--query", f"q{n}?",
                               "--id", f"c{n}", "--no-run"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for n in range(4)]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
    ids = {q.query_id for q in load_project(tiny_project).queries}
    assert {"c0", "c1", "c2", "c3"} <= ids
    edits = [json.loads(line) for line in (tiny_project / "query_edits.jsonl").read_text().splitlines()]
    assert sorted(e["query_id"] for e in edits) == ["c0", "c1", "c2", "c3"]


# ---------------------------------------------------------------- 5. OS errors


def test_a_folder_where_the_config_belongs_is_one_message(tiny_project):
    (tiny_project / "workbench.toml").unlink()
    (tiny_project / "workbench.toml").mkdir()
    result = CliRunner().invoke(main, ["add-query", str(tiny_project), "--query", "x", "--no-run"])
    assert result.exit_code == 2
    assert "workbench.toml" in result.output and "is a folder" in result.output
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize("code, said, todo", [
    ("ENOSPC", "no space left", "Free some disk space"),
    ("EROFS", "the file system is read-only", "Make the project folder writable"),
    ("EACCES", "permission denied", "chmod"),
    ("EISDIR", "is a folder, where a file belongs", "Remove or rename that folder"),
])
def test_an_os_error_while_writing_is_one_message_naming_the_file(tiny_project, monkeypatch, code, said, todo):
    import errno

    import workbench.fsutil as fsutil

    def failing(path, data):
        raise OSError(getattr(errno, code), os.strerror(getattr(errno, code)), str(path))

    monkeypatch.setattr(fsutil, "atomic_write_bytes", failing)
    result = CliRunner().invoke(main, ["add-query", str(tiny_project), "--query", "x", "--no-run"])
    assert result.exit_code == 2, result.output
    assert f"queries.jsonl: {said}" in result.output and todo in result.output
    assert not isinstance(result.exception, OSError)


def test_version_json_as_a_folder_is_one_message(tiny_project):
    v = tiny_project / ".workbench" / "versions" / "labels-1"
    (v / "version.json").mkdir(parents=True)
    result = CliRunner().invoke(main, ["query-sets", str(tiny_project)])
    assert result.exit_code in (0, 2), result.output  # skipped as not a version, or one message
    assert "Traceback" not in result.output and not isinstance(result.exception, IsADirectoryError)


def test_keymap_naming_a_folder_does_not_stop_the_tui(tmp_path, monkeypatch):
    from screens.keymap import KeymapError, load_keymap

    monkeypatch.setenv("NEARMISS_KEYMAP", str(tmp_path))
    with pytest.raises(KeymapError, match="cannot read"):
        load_keymap()


# ---------------------------------------------------------------- 11. torn lines


def test_a_torn_edit_log_line_does_not_swallow_the_next_record(tiny_project):
    from workbench.triage.queries import EDITS_FILE, read_edits

    (tiny_project / EDITS_FILE).write_bytes(b'{"at": "2026-01-01T00:00:00Z", "by": "user:x", "act')  # killed mid-write
    assert _add(tiny_project, "--id", "after").exit_code == 0
    lines = (tiny_project / EDITS_FILE).read_bytes().split(b"\n")
    assert json.loads(lines[1])["query_id"] == "after"
    with pytest.raises(Exception, match=":1:"):  # the torn line is reported on its own line, not merged
        read_edits(tiny_project)


def test_a_torn_collide_log_line_keeps_the_next_verification(tiny_project):
    from workbench.collide.run import VerificationLog
    from workbench.collide.verify import Verification

    path = tiny_project / ".workbench" / "collide" / "k" / "verifications.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"query_id": "q1", "doc_')
    v = Verification("q1", 3, "HARD_NEGATIVE", "r")
    VerificationLog(path, tiny_project).append(v)
    assert (("q1", 3) in VerificationLog(path, tiny_project).read())


def test_append_record_is_one_line_each(tmp_path):
    path = tmp_path / "log.jsonl"
    for n in range(3):
        append_record(path, tmp_path, b'{"n": %d}' % n)
    assert path.read_bytes() == b'{"n": 0}\n{"n": 1}\n{"n": 2}\n'


# ---------------------------------------------------------------- 12. leftovers


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_leftovers_of_killed_processes_are_removed_on_next_start(tiny_project):
    pid = _dead_pid()
    idx = tiny_project / ".workbench" / "index" / "sparse"
    idx.mkdir(parents=True)
    old = idx / f".full.old-{pid}"
    old.mkdir()
    (old / "segment").write_text("x")
    tmp = tiny_project / f".queries.jsonl.{pid}.abcd1234.tmp"
    tmp.write_text("half")
    deep_tmp = tiny_project / ".workbench" / "versions" / f".version.json.{pid}.zzzz9999.tmp"
    deep_tmp.parent.mkdir(parents=True)
    deep_tmp.write_text("half")
    live = tiny_project / f".queries.jsonl.{os.getpid()}.live0000.tmp"
    live.write_text("in flight")
    load_project(tiny_project)
    assert not old.exists() and not tmp.exists() and not deep_tmp.exists()
    assert live.exists()  # a live process's temp file is left alone
    assert remove_leftovers(tiny_project) == []


def test_swapped_out_index_copy_of_a_live_process_is_kept_until_swap(tmp_path):
    built, target = tmp_path / "b", tmp_path / "full"
    built.mkdir()
    target.mkdir()
    atomic_replace_dir(built, target)
    assert target.exists() and not (tmp_path / f".full.old-{os.getpid()}").exists()


def test_an_output_path_naming_a_pipe_or_device_is_written_into_not_replaced(tmp_path):
    # `--out /dev/null` once replaced /dev/null with a regular file (a rename onto a device); a FIFO
    # stands in for the device here
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    atomic_write_bytes(fifo, b"report")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # before the join: a replaced pipe never gets a writer
    reader.join()
    assert got == [b"report"]
    assert [p.name for p in tmp_path.iterdir()] == ["out.fifo"]  # no temp file left beside it
