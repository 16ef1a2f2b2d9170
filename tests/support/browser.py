"""Load a local HTML file in headless Chromium and report what happened, over the DevTools protocol.

Stdlib only: Chromium's --remote-debugging-pipe speaks NUL-separated JSON on file descriptors
3 (commands in) and 4 (replies and events out). We record console messages, exceptions, log
entries and every network request, read the rendered text, and take a full-page screenshot.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
]


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass
class PageLoad:
    console: list[dict] = field(default_factory=list)  # Runtime.consoleAPICalled params
    exceptions: list[dict] = field(default_factory=list)
    log_errors: list[dict] = field(default_factory=list)  # Log.entryAdded with level error
    requests: list[str] = field(default_factory=list)  # every URL the page asked for
    text: str = ""  # document.body.innerText
    script_elements: int = -1
    title: str = ""
    probe: object = None  # the value of load_page's probe expression, if one was given


class _Pipe:
    def __init__(self, proc: subprocess.Popen, to_browser: int, from_browser: int):
        self.proc, self.w, self.r = proc, to_browser, from_browser
        self.buf = b""
        self.next_id = 0
        self.events: list[dict] = []

    def send(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 30) -> dict:
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        want = self.next_id
        while True:
            m = self.read(timeout)
            if m.get("id") == want:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def read(self, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.r], [], [], left)[0]:
                raise TimeoutError("no reply from Chromium")
            chunk = os.read(self.r, 1 << 20)
            if not chunk:
                raise RuntimeError(f"Chromium closed the pipe (exit {self.proc.poll()})")
            self.buf += chunk
        raw, _, self.buf = self.buf.partition(b"\0")
        return json.loads(raw)

    def wait_event(self, method: str, timeout: float = 30) -> dict:
        for i, e in enumerate(self.events):
            if e.get("method") == method:
                return self.events.pop(i)
        while True:
            m = self.read(timeout)
            if m.get("method") == method:
                return m
            self.events.append(m)


def load_page(html_file: Path, screenshot: Path | None = None, width: int = 1200, height: int = 900, timeout: float = 60,
              probe: str | None = None) -> PageLoad:
    """``probe``: a JavaScript expression evaluated after load, its JSON value kept in ``PageLoad.probe``."""
    exe = chromium_path()
    if exe is None:
        raise FileNotFoundError("chromium is not installed (apt-get install -y chromium)")
    cmd_r, cmd_w = os.pipe()
    out_r, out_w = os.pipe()
    profile = tempfile.mkdtemp(prefix="wb-chromium-")

    def wire_fds():  # in the child: commands on fd 3, replies on fd 4
        a = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 100)
        b = fcntl.fcntl(out_w, fcntl.F_DUPFD, 100)
        os.dup2(a, 3)
        os.dup2(b, 4)

    proc = subprocess.Popen(
        [exe, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        preexec_fn=wire_fds, pass_fds=(3, 4),
    )
    os.close(cmd_r)
    os.close(out_w)
    pipe = _Pipe(proc, cmd_w, out_r)
    result = PageLoad()
    try:
        target = pipe.send("Target.createTarget", {"url": "about:blank"}, timeout=timeout)["targetId"]
        session = pipe.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Network", "Page"):
            pipe.send(f"{domain}.enable", session=session)
        pipe.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=session)
        pipe.events.clear()  # about:blank's own events
        pipe.send("Page.navigate", {"url": html_file.resolve().as_uri()}, session=session)
        pipe.wait_event("Page.loadEventFired", timeout)
        value = pipe.send("Runtime.evaluate", {
            "expression": "JSON.stringify({text: document.body.innerText, scripts: document.scripts.length, title: document.title})",
            "returnByValue": True}, session=session)["result"]["value"]
        page = json.loads(value)
        result.text, result.script_elements, result.title = page["text"], page["scripts"], page["title"]
        if probe is not None:
            result.probe = pipe.send("Runtime.evaluate", {"expression": probe, "returnByValue": True}, session=session)["result"].get("value")
        if screenshot is not None:
            shot = pipe.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": False}, session=session)
            screenshot.write_bytes(base64.b64decode(shot["data"]))
        for e in pipe.events:
            method, params = e.get("method"), e.get("params", {})
            if method == "Runtime.consoleAPICalled":
                result.console.append(params)
            elif method == "Runtime.exceptionThrown":
                result.exceptions.append(params)
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                result.log_errors.append(params["entry"])
            elif method == "Network.requestWillBeSent":
                result.requests.append(params["request"]["url"])
        try:
            pipe.send("Browser.close", timeout=5)
        except (RuntimeError, TimeoutError):
            pass
    finally:
        os.close(cmd_w)
        os.close(out_r)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(profile, ignore_errors=True)
    return result
