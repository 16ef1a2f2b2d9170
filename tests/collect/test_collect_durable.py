"""Collection never drops what it acknowledged: one collector per project and name; a full or
read-only disk is refused at start or answered 503 with Retry-After (never 200 for what is not on
disk); an import that fails for a passing reason (the project lock held past its timeout) keeps
its traces pending and retries them, without waiting for an unrelated span."""

from __future__ import annotations

import http.client
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from collect_helpers import Changes, get_status, protobuf, sdk_traces, send_traces
from workbench.project.load import load_project

PB = {"Content-Type": "application/x-protobuf"}


def post(url: str, body: bytes) -> tuple[int, Any, bytes]:
    u = urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    try:
        conn.request("POST", "/v1/traces", body, PB)
        r = conn.getresponse()
        return r.status, r.headers, r.read()  # headers: case-insensitive (uvicorn writes names lower-case)
    finally:
        conn.close()


def test_a_second_collector_on_the_same_project_and_name_is_refused_naming_the_first(project_copy):
    from workbench.errors import BadInput
    from workbench.session import start_collect

    first = start_collect(project_copy, "live", port=0, settle_s=600)
    try:
        port = urlparse(first.url).port
        with pytest.raises(BadInput, match=f"pid {os.getpid()}, listening on port {port}"):
            start_collect(project_copy, "live", port=0, settle_s=600)
        other = start_collect(project_copy, "other", port=0, settle_s=600)  # another name: its own collection
        other.stop()
        assert post(first.url, protobuf(sdk_traces(1)[0]))[0] == 200  # the first keeps serving
    finally:
        first.stop()
    again = start_collect(project_copy, "live", port=0, settle_s=600)  # the first is gone: free again
    again.stop()


def test_a_full_spool_is_503_with_retry_after_and_nothing_kept(project_copy):
    from google.rpc.status_pb2 import Status

    from workbench.session import start_collect

    live = start_collect(project_copy, "live", port=0, settle_s=600)
    spool = live.collector.spool
    try:
        assert post(live.url, protobuf(sdk_traces(1)[0]))[0] == 200
        with spool._lock:  # SQLite's own "database or disk is full", as a full disk gives it
            pages = spool.db.execute("PRAGMA page_count").fetchone()[0]
            spool.db.execute(f"PRAGMA max_page_count = {pages}")
        big = sdk_traces(40)
        code, headers, body = post(live.url, protobuf([s for t in big for s in t]))
        status = Status()
        status.ParseFromString(body)
        assert code == 503 and int(headers["Retry-After"]) >= 1 and status.code == 14 and "nothing was kept" in status.message
        figures = get_status(live.url)
        assert figures["spans_received"] == 2 and figures["traces_received"] == 1 and figures["refused"] == {"503": 1}
        with spool._lock:
            spool.db.execute("PRAGMA max_page_count = 1073741823")
        assert post(live.url, protobuf([s for t in big for s in t]))[0] == 200  # the exporter's retry, once there is room
        assert get_status(live.url)["spans_received"] == 82
    finally:
        live.stop()


def mount_tmpfs(where: Path, size: str, readonly: bool = False) -> None:
    where.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({r.stderr.strip()}); the full spool is covered by SQLite's own limit above")
    if readonly:
        subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True)


def test_on_a_full_disk_every_200_is_on_disk_and_the_rest_is_503(project_copy):
    """A 1 MiB tmpfs under the collection: requests are acknowledged until it fills, then refused."""
    from workbench.session import start_collect
    from workbench.triage.live.spool import spool_path

    folder = spool_path(load_project(project_copy).state_dir, "live").parent
    mount_tmpfs(folder, "1m")
    try:
        live = start_collect(project_copy, "live", port=0, settle_s=600, max_pending=100_000)
        acknowledged, codes = 0, []
        try:
            for batch in range(200):
                traces = sdk_traces(20)
                code, headers, _ = post(live.url, protobuf([s for t in traces for s in t]))
                codes.append(code)
                if code == 200:
                    acknowledged += 40
                else:
                    assert code == 503 and int(headers["Retry-After"]) >= 1
                    if codes.count(503) >= 3:
                        break
            figures = get_status(live.url)
        finally:
            live.stop()
        assert 503 in codes and acknowledged > 0
        assert figures["spans_received"] == acknowledged
        path = spool_path(load_project(project_copy).state_dir, "live")
        spool = sqlite3.connect(f"file:{path}?mode=ro", uri=True)  # read as it is on the full disk
        try:
            assert spool.execute("SELECT count(*) FROM spans").fetchone()[0] == acknowledged  # every 200 is on disk
        finally:
            spool.close()
    finally:
        subprocess.run(["umount", str(folder)], check=False)


def test_a_read_only_project_is_refused_at_start(project_copy):
    from workbench.errors import FileSystemError
    from workbench.session import start_collect

    folder = load_project(project_copy).state_dir / "collect"
    if os.geteuid() != 0:
        folder.mkdir(parents=True, exist_ok=True)
        folder.chmod(0o555)
    else:
        mount_tmpfs(folder, "1m", readonly=True)
    try:
        with pytest.raises(FileSystemError, match="read-only|permission denied"):
            start_collect(project_copy, "live", port=0, settle_s=600)
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", str(folder)], check=False)
        else:
            folder.chmod(0o755)


def hold_project_lock(root: Path) -> subprocess.Popen:
    """Another process holding the project lock (flock) until it is killed; returns once it holds it."""
    code = ("import fcntl, os, sys, time\n"
            f"fd = os.open({str(root / '.workbench' / 'project.lock')!r}, os.O_RDWR | os.O_CREAT)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\nos.pwrite(fd, b'%d\\n' % os.getpid(), 0)\nprint('held', flush=True)\ntime.sleep(3600)\n")
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def test_an_import_past_the_lock_timeout_stays_pending_and_is_retried(project_copy, tmp_path, monkeypatch):
    from workbench.session import start_collect
    from workbench.triage.traces.store import load_traces

    root = project_copy
    queries = load_project(root).queries[:3]
    env = pytest.MonkeyPatch()  # its own: send_traces undoes the test's monkeypatch
    env.setenv("NEARMISS_LOCK_TIMEOUT_S", "0.2")
    holder = hold_project_lock(root)
    changes = Changes()
    live = start_collect(root, "live", port=0, settle_s=0.05, on_change=changes)
    try:
        try:
            send_traces(monkeypatch, root, tmp_path / "a.jsonl", live.url + "/v1/traces", queries)
            failed = changes.wait(lambda s: s.import_failures >= 1)
            assert failed.pending_traces == 3 and failed.retrying_traces == 3 and failed.traces_imported == 0
            assert f"held by pid {holder.pid}" in failed.last_error
        finally:
            holder.kill()
            holder.wait()
        done = changes.wait(lambda s: s.traces_imported == 3)  # the retry, no new span needed
        assert done.pending_traces == 0 and done.last_error is None
    finally:
        live.stop()
        env.undo()
    kept = load_traces(load_project(root), "live")
    assert kept is not None and sorted(q.query_id for q in kept.queries) == sorted(q.query_id for q in queries)


def test_a_damaged_spool_is_refused_at_start_and_nothing_is_left_running(project_copy):
    from workbench.errors import FileSystemError
    from workbench.session import start_collect
    from workbench.triage.live.spool import spool_path

    path = spool_path(load_project(project_copy).state_dir, "live")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a database, but acknowledged spans once lived here" * 100)
    with pytest.raises(FileSystemError, match="spool.sqlite"):  # never read as an empty collection
        start_collect(project_copy, "live", port=0, settle_s=600)
    path.unlink()
    live = start_collect(project_copy, "live", port=0, settle_s=600)  # the failed start released its lock
    live.stop()
