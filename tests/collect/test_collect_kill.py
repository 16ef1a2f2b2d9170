"""`workbench collect` as production runs it, a process: killed with SIGKILL mid-collection it
loses no acknowledged span (the spool is written before the 200, and read back on restart);
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


class Collect:
    """The CLI in a subprocess; its stdout read line by line on a thread, so a test waits for a line."""

    def __init__(self, root: Path, *args: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1", "COLUMNS": "300"}
        self.proc = subprocess.Popen([sys.executable, "-m", "workbench", "collect", str(root), "--port", "0", *args],
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

    def wait_for(self, text: str, timeout: float = 120.0) -> str:
        while True:
            line = self.lines.get(timeout=timeout)
            assert line is not None, "collect exited:\n" + "".join(self.seen)
            self.seen.append(line)
            if text in line:
                return line


def test_kill_9_loses_nothing_acknowledged_and_sigterm_drains(project_copy, tmp_path, monkeypatch):
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
        again.proc.send_signal(signal.SIGTERM)
        final = again.wait_for("stopped:")
        assert again.proc.wait(timeout=120) == 0
    finally:
        if again.proc.poll() is None:
            again.proc.kill()
    assert "imported 5 traces (5 queries); pending 0" in final
    kept = load_traces(load_project(root), "live")
    assert kept is not None and sorted(q.query_id for q in kept.queries) == sorted(q.query_id for q in queries)
