"""Run a command in a pseudo-terminal and collect every byte it writes to the terminal (tests only):
what a real terminal would interpret, without tmux."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import termios
import time


class PtyApp:
    def __init__(self, argv: list[str], env: dict[str, str], cols: int = 160, rows: int = 45, cwd: str | None = None):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # child
            if cwd:
                os.chdir(cwd)
            os.execvpe(argv[0], argv, env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.out = bytearray()

    def read_until(self, needle: bytes, timeout: float = 120.0, after: int = 0) -> bool:
        """Read output until ``needle`` has appeared (past byte ``after``): an event, not a sleep;
        False on EOF/timeout."""
        deadline = time.monotonic() + timeout
        while needle not in self.out[after:]:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            ready, _, _ = select.select([self.fd], [], [], min(left, 1.0))
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    return False
                if not chunk:
                    return False
                self.out += chunk
        return True

    def send(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def close(self) -> int:
        """Drain until the process exits (at most 15 s: an app that keeps redrawing never sends EOF);
        returns its status."""
        deadline = time.monotonic() + 15.0
        while time.monotonic() < deadline:
            try:
                ready, _, _ = select.select([self.fd], [], [], min(5.0, max(0.0, deadline - time.monotonic())))
                if not ready:
                    break
                chunk = os.read(self.fd, 65536)
                if not chunk:
                    break
                self.out += chunk
            except OSError:
                break
        status = None
        for _ in range(50):  # the app had its quit key; do not wait on it forever
            try:
                pid, st = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                break
            if pid:
                status = st
                break
            select.select([], [], [], 0.1)
        else:
            self.kill()
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status) if status is not None else -9

    def kill(self) -> None:
        try:
            os.kill(self.pid, 9)
        except ProcessLookupError:
            pass
