"""Issue 40 (nothing a user did is lost; errors, not tracebacks or wrong messages): a mistyped
project path, `explain` given a source id, a symlinked reports/ folder, `report` killed with
SIGKILL mid-write, `query-sets`' times, `.workbench/runs` symlinked out of the project, a damaged
pool file of the dense index read by `explain`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.fsutil import UnsafePath, atomic_write_bytes, set_aside
from workbench.project.load import load_project

REPO = Path(__file__).resolve().parents[2]


def _said(result) -> str:
    return " ".join(result.output.split())


def _no_traceback(result) -> None:
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception


# ---------------------------------------------------------------- a mistyped path


def test_a_project_path_that_does_not_exist_says_so(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for args in (["eval", "./hotpt"], ["query-sets", "hotpt"], ["diagnose", "hotpt"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, result.output
        _no_traceback(result)
        said = _said(result)
        assert "hotpt: does not exist" in said and "No such project" in said, said
        assert "not a workbench project" not in said
    (tmp_path / "empty").mkdir()  # a folder that is there but no project keeps its own message
    result = CliRunner().invoke(main, ["eval", "empty"])
    assert result.exit_code == 2 and "not a workbench project (run `workbench init`)" in _said(result)


# ---------------------------------------------------------------- explain takes source ids


def test_explain_takes_a_source_id_as_add_query_does(evaluated_copy):
    project = load_project(evaluated_copy)
    q = project.queries[0]
    source = {d.doc_id: d.source_id for d in project.documents.values()}
    gold = q.gold_doc_ids[0]
    assert source[gold] and not source[gold].isdigit()
    result = CliRunner().invoke(main, ["explain", str(evaluated_copy), q.query_id, source[gold], "--json"])
    assert result.exit_code == 0, result.output
    assert [d["doc_id"] for d in json.loads(result.stdout)["docs"]] == [gold]
    by_docid = CliRunner().invoke(main, ["explain", str(evaluated_copy), q.query_id, str(gold), "--json"])
    assert by_docid.exit_code == 0 and json.loads(by_docid.stdout) == json.loads(result.stdout)
    unknown = CliRunner().invoke(main, ["explain", str(evaluated_copy), q.query_id, "Alû-nowhere"])
    assert unknown.exit_code == 2, unknown.output
    _no_traceback(unknown)
    said = _said(unknown)
    assert "'Alû-nowhere' is not in the corpus (neither a source id nor a DocID)" in said
    assert "valid integer" not in said


# ---------------------------------------------------------------- reports/ a symlink out of the project


def test_a_report_is_not_written_through_a_symlinked_reports_folder(evaluated_copy, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (evaluated_copy / "reports").symlink_to(outside)
    result = CliRunner().invoke(main, ["report", str(evaluated_copy), "--format", "html"])
    assert result.exit_code == 2, result.output
    _no_traceback(result)
    said = _said(result)
    assert "reports: is a symbolic link" in said and "outside the project" in said
    assert list(outside.iterdir()) == []
    with pytest.raises(UnsafePath):  # the TUI's export writes into the same folder through the same write
        atomic_write_bytes(evaluated_copy / "reports" / "diagnosis.md", b"x")
    assert list(outside.iterdir()) == []


# ---------------------------------------------------------------- kill -9 while the report is written

# Run in a child process: `workbench report --format html`, stopped at a seeded moment of the
# report's write (its temp file just made / part of it written / all of it written, not yet
# renamed), where it tells the test and waits for the SIGKILL.
_KILLED_AT = r"""
import os, random, signal, sys
point, seed, marker, root = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
real_fdopen = os.fdopen

def stop(fh):
    fh.flush()
    os.fsync(fh.fileno())
    with open(marker, "w") as m:
        m.write(str(os.getpid()))
    signal.pause()

class Seeded:
    def __init__(self, fh):
        self.fh = fh
    def __enter__(self):
        if point == "created":
            stop(self.fh)
        return self
    def __exit__(self, *exc):
        return self.fh.__exit__(*exc)
    def write(self, data):
        cut = random.Random(seed).randrange(1, len(data))
        self.fh.write(data[:cut])
        if point == "partial":
            stop(self.fh)
        self.fh.write(data[cut:])
        if point == "written":
            stop(self.fh)
    def __getattr__(self, name):
        return getattr(self.fh, name)

def fdopen(fd, *args, **kwargs):
    fh = real_fdopen(fd, *args, **kwargs)
    where = os.readlink(f"/proc/self/fd/{fd}")
    return Seeded(fh) if os.path.basename(os.path.dirname(where)) == "reports" else fh

os.fdopen = fdopen
from workbench.cli import main
main(["report", root, "--format", "html"])
"""


def _kill_report_at(root: Path, point: str, seed: int, tmp_path: Path) -> None:
    marker = tmp_path / f"stopped-{seed}"
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_AT, point, str(seed), str(marker), str(root)], cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        while not marker.exists():  # the child says when it reached the seeded moment
            if proc.poll() is not None:
                raise AssertionError(f"the report ended before the seeded moment: {proc.stderr.read().decode()[-2000:]}")
            try:
                proc.wait(timeout=0.05)
            except subprocess.TimeoutExpired:
                pass
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kill_9_mid_report_leaves_no_partial_report_and_the_next_run_cleans_up(evaluated_copy, tmp_path, seed):
    point = ("created", "partial", "written")[seed]
    reports = evaluated_copy / "reports"
    before = None
    if seed == 1:  # a report from before is left as it was, whole
        assert CliRunner().invoke(main, ["report", str(evaluated_copy), "--format", "html"]).exit_code == 0
        before = (reports / "diagnosis.html").read_bytes()
    _kill_report_at(evaluated_copy, point, seed, tmp_path)
    temps = [p for p in reports.iterdir() if p.name.endswith(".tmp")]
    assert len(temps) == 1, sorted(p.name for p in reports.iterdir())  # the killed write's temp file
    if before is None:
        assert not (reports / "diagnosis.html").exists()
    else:
        assert (reports / "diagnosis.html").read_bytes() == before

    result = CliRunner().invoke(main, ["report", str(evaluated_copy), "--format", "html"])
    assert result.exit_code == 0, result.output
    assert [p.name for p in reports.iterdir()] == ["diagnosis.html"]  # the temp file of the killed run is gone
    assert (reports / "diagnosis.html").read_bytes().rstrip().endswith(b"</html>")


# ---------------------------------------------------------------- query-sets' times


def test_query_sets_do_not_show_the_last_edit_as_created(project_copy):
    from workbench.project.versions import amend_version, write_version

    project = load_project(project_copy)
    made = write_version(project, project.queries[1:], [], made_by="tui:ann", stem="labels")
    amended = amend_version(project, made.name, project.queries[2:], [], description="one more out")
    assert amended.created == made.created and amended.changed and amended.changed >= made.created
    add = CliRunner().invoke(main, ["add-query", str(project_copy), "--query", "a query from the log", "--no-run"])
    assert add.exit_code == 0, add.output

    listed = CliRunner().invoke(main, ["query-sets", str(project_copy), "--json"])
    assert listed.exit_code == 0, listed.output
    original, version = json.loads(listed.stdout)
    mtime = os.stat(project_copy / "queries.jsonl").st_mtime
    from datetime import datetime, timezone

    assert original["created"] == ""  # no record says when the set was made: not the last write's time
    assert original["changed"] == datetime.fromtimestamp(mtime, timezone.utc).replace(microsecond=0).isoformat()
    assert version["created"] == made.created and version["changed"] == amended.changed
    table = CliRunner().invoke(main, ["query-sets", str(project_copy)])
    assert table.exit_code == 0 and "last changed" in table.output


# ---------------------------------------------------------------- .workbench/runs a symlink


def test_a_symlinked_runs_folder_is_never_written_moved_or_removed_through(tiny_project, tmp_path):
    from workbench.access.ladder import ensure_tiers
    from workbench.access.runs import RunStore
    from workbench.fsutil import safe_name
    from workbench.llm.store import LLMRunStore

    project = load_project(tiny_project)
    tiers = ensure_tiers(project).tiers
    outside = tmp_path / "outside"
    for t in tiers:  # files outside named like the runs the workbench would write
        for sub in ("", "llm"):
            folder = outside / safe_name(t.name) / sub
            folder.mkdir(parents=True, exist_ok=True)
            for name in ("bm25.json", "model_x_localize.json"):
                (folder / name).write_text('{"mine": true}')
    before = {p: (p.read_bytes(), p.stat().st_ino) for p in outside.rglob("*.json")}
    (tiny_project / ".workbench" / "runs").symlink_to(outside)

    for args in (["eval", str(tiny_project), "--retrievers", "bm25"], ["diagnose", str(tiny_project)]):
        result = CliRunner().invoke(main, args)  # written, or read as the project's figures: neither
        assert result.exit_code == 2, result.output
        _no_traceback(result)
        assert "runs: is a symbolic link" in _said(result)
    for store in (RunStore, LLMRunStore):
        with pytest.raises(UnsafePath):
            store(project)
    with pytest.raises(UnsafePath):  # a damaged-looking run there is not moved aside either
        set_aside(tiny_project / ".workbench" / "runs" / "full" / "bm25.json", "does not decode")
    assert {p: (p.read_bytes(), p.stat().st_ino) for p in outside.rglob("*")if p.is_file()} == before


# ---------------------------------------------------------------- a damaged pool file of the dense index


def test_a_truncated_chunk_doc_ids_file_is_rebuilt_by_the_reader_not_fatal(evaluated_copy):
    import numpy as np

    from workbench.access.indexing import dense_store_dir

    path = dense_store_dir(load_project(evaluated_copy)) / "chunk_doc_ids.npy"
    good = np.load(path)
    path.write_bytes(path.read_bytes()[:200])  # truncated; the manifest beside it left as it was
    q = load_project(evaluated_copy).queries[0]
    result = CliRunner().invoke(main, ["explain", str(evaluated_copy), q.query_id, str(q.gold_doc_ids[0])])
    assert result.exit_code == 0, result.output
    said = _said(result)
    assert "chunk_doc_ids.npy: 200 bytes, the manifest says" in said and "rebuilding the dense index" in said
    assert said.count("the manifest says") == 1  # one line for the pool file, not one per tier
    assert np.array_equal(np.load(path), good)


def test_a_killed_labelling_write_leaves_nothing_in_query_sets_after_the_next_start(project_copy):
    from workbench.project.versions import list_versions, versions_dir

    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = int(child.stdout)  # a process that has ended, as a kill -9 leaves its pid
    folder = versions_dir(project_copy)
    left = [folder / f".labels-1.{dead}.abc12345.building", folder / f".labels-2.removed-{dead}"]
    live = folder / f".labels-3.{os.getpid()}.abc12345.building"  # a write in flight in a live process
    for d in (*left, live):
        d.mkdir(parents=True)
        (d / "queries.jsonl").write_text("{}\n")
    load_project(project_copy)
    assert not any(d.exists() for d in left) and live.exists()
    assert [v.name for v in list_versions(project_copy)] == ["original"]
