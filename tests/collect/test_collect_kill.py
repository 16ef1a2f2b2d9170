"""`workbench collect` as production runs it, a process: killed with SIGKILL mid-collection it
loses no acknowledged span (the spool is written before the 200, and read back on restart) and
imports none twice (a restart imports only what the spool does not record as imported; killed
between an import and that record, the import is handed the same traces again and adds nothing);
SIGTERM drains, importing every complete trace before it exits."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

from collect_helpers import get_status, send_traces
from workbench.project.load import load_project

REPO = Path(__file__).resolve().parents[2]


# The CLI with a SIGKILL at one point of its work (the test's fault injection, not the product's):
# after-import: an import done, before the spool records it.
CRASHING = """
import os, signal, sys
point = sys.argv.pop(1)
if point == "after-import":
    from workbench.triage.live.spool import Spool
    Spool.mark_imported = lambda self, counts: os.kill(os.getpid(), signal.SIGKILL)
from workbench.cli import main
sys.argv[0] = "workbench"
main()
"""


class Collect:
    """The CLI in a subprocess; its stdout read line by line on a thread, so a test waits for a line."""

    def __init__(self, root: Path, *args: str, crash: str | None = None) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1", "COLUMNS": "300"}
        command = ["-c", CRASHING, crash] if crash else ["-m", "workbench"]
        self.proc = subprocess.Popen([sys.executable, *command, "collect", str(root), "--port", "0", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=REPO)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        self.url = re.search(r"listening on (http://[\d.]+:\d+)/v1/traces", self.wait_for("listening on")).group(1)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def drain(self) -> str:
        """SIGTERM: the drain, then exit 0; returns the final status line."""
        self.proc.send_signal(signal.SIGTERM)
        final = self.wait_for("stopped:")
        assert self.proc.wait(timeout=120) == 0
        return final

    def end(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def wait_for(self, text: str, timeout: float = 120.0) -> str:
        while True:
            line = self.lines.get(timeout=timeout)
            assert line is not None, "collect exited:\n" + "".join(self.seen)
            self.seen.append(line)
            if text in line:
                return line


def test_kill_9_loses_nothing_acknowledged_and_sigterm_drains(project_copy, tmp_path, monkeypatch):
    from workbench.triage import ledger
    from workbench.triage.traces.store import load_traces

    root = project_copy
    queries = load_project(root).queries[:5]
    first = Collect(root, "--settle-s", "600")  # nothing settles: what survives is the spool's doing
    try:
        tees = send_traces(monkeypatch, root, tmp_path / "a.jsonl", first.url + "/v1/traces", queries[:3])
        assert all(r.name == "SUCCESS" for t in tees for r in t.results)  # acknowledged
        status = get_status(first.url)
        assert status["spans_received"] == 12 and status["traces_imported"] == 0
    finally:
        first.proc.kill()
        first.proc.wait()
    assert first.proc.returncode == -signal.SIGKILL
    assert load_traces(load_project(root), "live") is None

    again = Collect(root, "--settle-s", "600")
    try:
        again.wait_for("imported 3 traces")  # the spool read back: imported without waiting to settle
        send_traces(monkeypatch, root, tmp_path / "b.jsonl", again.url + "/v1/traces", queries[3:])
        assert get_status(again.url)["pending_traces"] == 2
        final = again.drain()
    finally:
        again.end()
    assert "imported 5 traces (5 queries); pending 0" in final
    kept = load_traces(load_project(root), "live")
    assert kept is not None and sorted(q.query_id for q in kept.queries) == sorted(q.query_id for q in queries)
    assert len(ledger.parsed_traces(load_project(root), "live")) == 5  # each acknowledged trace once


def test_kill_9_between_an_import_and_its_record_imports_nothing_twice(project_copy, tmp_path, monkeypatch):
    from workbench.triage import ledger
    from workbench.triage.traces.store import load_traces

    root = project_copy
    queries = load_project(root).queries[:3]
    first = Collect(root, "--settle-s", "0.05", crash="after-import")
    tees = send_traces(monkeypatch, root, tmp_path / "a.jsonl", first.url + "/v1/traces", queries)
    assert all(r.name == "SUCCESS" for t in tees for r in t.results)
    assert first.proc.wait(timeout=120) == -signal.SIGKILL  # killed once the import was done, before its record
    imported = load_traces(load_project(root), "live")
    assert imported is not None and len(imported.queries) == 3

    again = Collect(root, "--settle-s", "600")
    try:
        again.wait_for("imported 3 traces")  # handed again: the spool never recorded the import
        final = again.drain()
    finally:
        again.end()
    assert "pending 0" in final
    project = load_project(root)
    kept = load_traces(project, "live")
    assert kept is not None and sorted(q.query_id for q in kept.queries) == sorted(q.query_id for q in queries)
    assert len(ledger.parsed_traces(project, "live")) == 3  # handed twice, kept once: the ledger adds nothing twice
    third = Collect(root, "--settle-s", "600")  # and now recorded: a restart hands nothing
    try:
        assert get_status(third.url)["imports"] == 0 and get_status(third.url)["traces_imported"] == 3
    finally:
        third.end()
