"""A tiny OpenAI-compatible chat server for fault injection (tests only).

Each request takes the next scripted action from ``script`` (then ``default``), unless a
``rules`` entry matches text in the request body. Actions:
  "ok"                 200 with a well-formed completion from ``responder(messages)``
  ("delay", seconds)   sleep, then ok (the client times out if it is too long)
  "hold"               wait until ``release()``, then ok (lets a test act while a call is in flight)
  429 / 500 / 503      that status with an OpenAI-style error body
  "cut"                close the connection without answering
  "garbage"            200 with a body that is not JSON
  "no_choices"         200 with JSON that is not a completion
  ("error", code, msg) that status with ``msg`` as the error message
  ("trickle", seconds)  a well-formed completion sent one byte every ``seconds`` (each read is
                       quick, the whole answer slow), until the client leaves
A request to ``/embeddings`` answered "ok" gets one vector per input (``embedding_vector``), as
base64 when asked for it, unless ``embeddings_ignore_format`` (then float lists, as servers that
do not know the parameter answer).
A POST to a ``…/rerank`` path answers "ok" with ``rerank_body(request)`` when that is set (the
rerank endpoint's faults: tests/rerank/).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import socket
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable


EMBEDDING_DIMS = 8


def embedding_vector(text: str) -> list[float]:
    """A fixed float32-exact vector per text (not normalised)."""
    digest = hashlib.sha256(text.encode()).digest()
    return [(b - 128) / 64 for b in digest[:EMBEDDING_DIMS]]


def default_responder(messages: list[dict]) -> str:
    text = "\n".join(m.get("content", "") for m in messages)
    if "Gold answer:" in text:
        return "Score: 4"
    if "List the DocIDs" in text:
        ids = re.findall(r"\[DocID=(\d+)\]", text)
        return ", ".join(ids[:3])
    return "Paris"


class FaultServer:
    def __init__(self, responder: Callable[[list[dict]], str] = default_responder):
        self.responder = responder
        self.script: list = []
        self.default = "ok"
        self.rules: list[tuple[str, object]] = []
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.retry_after_ms = 5
        self.embeddings_ignore_format = False
        self.rerank_body: Callable[[dict], object] | None = None
        self.in_flight = 0  # requests being answered now
        self.max_in_flight = 0
        self.gate = threading.Event()  # opened by release(): "hold" requests answer
        self.lock = threading.Lock()
        self.disconnected = threading.Event()  # set when a client closed its connection during a delay
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                body = json.dumps({"object": "list", "data": [{"id": "fault", "object": "model"}]}).encode()
                self._send(200, body)

            def do_POST(self):
                length = int(self.headers.get("content-length", 0))
                raw = self.rfile.read(length)
                try:
                    req = json.loads(raw)
                except ValueError:
                    req = {}
                with outer.lock:
                    outer.requests.append(req)
                    outer.headers.append(dict(self.headers))
                    action = None
                    text = raw.decode("utf-8", "replace")
                    for needle, act in outer.rules:
                        if needle in text:
                            action = act
                            break
                    if action is None:
                        action = outer.script.pop(0) if outer.script else outer.default
                    outer.in_flight += 1
                    outer.max_in_flight = max(outer.max_in_flight, outer.in_flight)
                try:
                    if action in ("ok", "hold") and self.path.endswith("/embeddings"):
                        if action == "hold":
                            outer.gate.wait()
                        self._send(200, outer._embeddings(req))
                    else:
                        self._answer(action, req, text)
                finally:
                    with outer.lock:
                        outer.in_flight -= 1

            def _answer(self, action, req, text):
                if action == "hold":
                    outer.gate.wait()
                    action = "ok"
                if isinstance(action, tuple) and action[0] == "delay":
                    if outer._client_left(self.connection, action[1]):
                        outer.disconnected.set()  # the client aborted the request: generate nothing
                        return
                    action = "ok"
                if isinstance(action, tuple) and action[0] == "trickle":
                    self._trickle(outer._completion(req, text), action[1])
                    return
                if action == "ok" and outer.rerank_body is not None and self.path.endswith("/rerank"):
                    self._send(200, json.dumps(outer.rerank_body(req)).encode())
                elif action == "ok":
                    content = outer.responder(req.get("messages", []))
                    body = json.dumps({
                        "id": "chatcmpl-fault", "object": "chat.completion", "created": int(time.time()),
                        "model": req.get("model", "fault"),
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": len(text) // 4, "completion_tokens": max(1, len(content) // 4),
                                  "total_tokens": len(text) // 4 + max(1, len(content) // 4)},
                    }).encode()
                    self._send(200, body)
                elif isinstance(action, tuple) and action[0] == "error":
                    # ("error", status, message): an error body of our choosing (echoed keys, markup, escapes)
                    body = json.dumps({"error": {"message": action[2], "type": "injected", "code": action[1]}}).encode()
                    self._send(action[1], body)
                elif isinstance(action, int):
                    body = json.dumps({"error": {"message": f"injected {action}", "type": "injected", "code": action}}).encode()
                    # a short server-directed delay, as real endpoints send: the SDK's retries honour it
                    self._send(action, body, {"retry-after-ms": str(outer.retry_after_ms)})
                elif action == "cut":
                    self.close_connection = True
                    try:
                        self.connection.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                elif action == "garbage":
                    self._send(200, b"<html>definitely not json", content_type="application/json")
                elif action == "no_choices":
                    self._send(200, json.dumps({"object": "chat.completion", "nonsense": True}).encode())
                else:
                    raise AssertionError(f"unknown action {action!r}")

            def _trickle(self, body: bytes, seconds: float) -> None:
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                try:
                    for i in range(len(body)):
                        self.wfile.write(body[i:i + 1])
                        self.wfile.flush()
                        if outer._client_left(self.connection, seconds):
                            outer.disconnected.set()
                            return
                except OSError:
                    outer.disconnected.set()

            def _send(self, code, body, headers=None, content_type="application/json"):
                self.send_response(code)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def _embeddings(self, req: dict) -> bytes:
        texts = req.get("input", [])
        texts = [texts] if isinstance(texts, str) else texts
        b64 = req.get("encoding_format") == "base64" and not self.embeddings_ignore_format
        data = []
        for i, t in enumerate(texts):
            vec = embedding_vector(t)
            emb = base64.b64encode(struct.pack(f"<{len(vec)}f", *vec)).decode() if b64 else vec
            data.append({"object": "embedding", "index": i, "embedding": emb})
        data.reverse()  # the index, not the order, says which input a vector is for
        return json.dumps({"object": "list", "data": data, "model": req.get("model", "fault")}).encode()

    def _completion(self, req: dict, text: str) -> bytes:
        content = self.responder(req.get("messages", []))
        return json.dumps({
            "id": "chatcmpl-fault", "object": "chat.completion", "created": int(time.time()),
            "model": req.get("model", "fault"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": len(text) // 4, "completion_tokens": max(1, len(content) // 4),
                      "total_tokens": len(text) // 4 + max(1, len(content) // 4)},
        }).encode()

    @staticmethod
    def _client_left(conn: socket.socket, seconds: float) -> bool:
        """Wait up to ``seconds``; True as soon as the client closes the connection (as a real
        server notices an aborted request and stops generating)."""
        import select

        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            ready, _, _ = select.select([conn], [], [], min(0.05, max(0.0, deadline - time.monotonic())))
            if ready:
                try:
                    if conn.recv(1, socket.MSG_PEEK) == b"":
                        return True
                except OSError:
                    return True
        return False

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    @property
    def chat_requests(self) -> int:
        return len(self.requests)

    def release(self) -> None:
        """Answer every held request, now and later."""
        self.gate.set()

    def __enter__(self) -> "FaultServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.gate.set()  # a held request must not outlive the test
        self.httpd.shutdown()
        self.httpd.server_close()
