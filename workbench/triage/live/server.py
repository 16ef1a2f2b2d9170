"""The OTLP/HTTP receiver: `POST /v1/traces` (protobuf or JSON, gzip or not) answered as the OTLP
spec says — 200 with an ExportTraceServiceResponse (partial_success: the spans rejected and why),
400 for a body that is not an export request, 413 over the body cap, 415 for another media type,
429 with Retry-After while the import is behind; every refusal carries a google.rpc.Status in the
request's encoding — and `GET /status` (the collector's figures as JSON). Each connection has a
read deadline, so a slow client costs one thread for a bounded time. A bearer token, when set, is
required on every request (401 without it)."""

from __future__ import annotations

import hmac
import itertools
import logging
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import msgspec

from workbench.triage.live.collector import Collector, Full
from workbench.triage.live.decode import JSON, PROTOBUF, BadRequest, TooLarge, Unsupported, decode_spans, inflate, media_type

log = logging.getLogger("workbench.collect")
TRACES_PATH = "/v1/traces"
STATUS_PATH = "/status"
CHUNK = 1 << 16
# google.rpc.Code of each refusal (the Status message's code)
RPC_CODE = {400: 3, 401: 16, 404: 5, 408: 4, 411: 3, 413: 8, 415: 3, 429: 8}


class Receiver(ThreadingHTTPServer):
    daemon_threads = True  # a stuck client never blocks shutdown
    block_on_close = False

    def __init__(self, host: str, port: int, collector: Collector, token: str | None = None,
                 max_body_bytes: int = 16 << 20, read_deadline_s: float = 10.0, retry_after_s: int = 2) -> None:
        self.collector, self.token = collector, token
        self.max_body_bytes, self.read_deadline_s, self.retry_after_s = max_body_bytes, read_deadline_s, retry_after_s
        self.request_numbers = itertools.count(1)  # names each request in its spans' `where`
        self.watch = Watchdog()
        super().__init__((host, port), Handler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def service_actions(self) -> None:  # serve_forever's loop, every poll interval
        self.watch.cut_overdue()

    def handle_error(self, request, client_address) -> None:
        log.debug("connection from %s ended with an error", client_address, exc_info=True)

    def server_close(self) -> None:
        super().server_close()
        self.watch.cut_all()


class Watchdog:
    """Connections reading a request, with when they must be done: one that is not (a client
    trickling its headers byte by byte, each within the socket timeout) is shut down, so no client
    holds a thread past twice the read deadline."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._due: dict[socket.socket, float] = {}

    def reading(self, conn: socket.socket, seconds: float) -> None:
        with self._lock:
            self._due[conn] = time.monotonic() + seconds

    def done(self, conn: socket.socket) -> None:
        with self._lock:
            self._due.pop(conn, None)

    def cut_overdue(self) -> None:
        now = time.monotonic()
        with self._lock:
            overdue = [c for c, t in self._due.items() if t <= now]
            for c in overdue:
                del self._due[c]
        for c in overdue:
            log.info("a client took over twice the read deadline for its request: connection closed")
            _shut(c)

    def cut_all(self) -> None:
        with self._lock:
            conns, self._due = list(self._due), {}
        for c in conns:
            _shut(c)


def _shut(conn: socket.socket) -> None:
    try:
        conn.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # already gone


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the exporter reuses its connection
    server: Receiver

    def setup(self) -> None:
        super().setup()
        # each read of headers or body; the body also has a total deadline (_read_body)
        self.connection.settimeout(self.server.read_deadline_s)

    def handle_one_request(self) -> None:
        # from the wait for the request line to the end of its body; twice the deadline, so the body's
        # own deadline (408) comes first and the watchdog only cuts what never finishes its headers
        self.server.watch.reading(self.connection, 2 * self.server.read_deadline_s)
        try:
            super().handle_one_request()
        finally:
            self.server.watch.done(self.connection)

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (the base class's name)
        log.debug("%s %s", self.address_string(), format % args)

    # ------------------------------------------------------------ replies

    def _send(self, code: int, body: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def _refuse(self, code: int, message: str, as_json: bool, headers: dict[str, str] | None = None,
                close: bool = False) -> None:
        from google.rpc.status_pb2 import Status

        self.server.collector.refused(code)
        self.close_connection = self.close_connection or close
        status = Status(code=RPC_CODE.get(code, 2), message=message)
        if as_json:
            from google.protobuf.json_format import MessageToJson

            self._send(code, MessageToJson(status, indent=None).encode(), JSON, headers)
        else:
            self._send(code, status.SerializeToString(), PROTOBUF, headers)

    def _authorised(self, as_json: bool) -> bool:
        token = self.server.token
        if token is None:
            return True
        got = self.headers.get("Authorization", "")
        if hmac.compare_digest(got.encode(), f"Bearer {token}".encode()):
            return True
        self._refuse(401, "a bearer token is required (Authorization: Bearer …)", as_json,
                     {"WWW-Authenticate": "Bearer"}, close=True)
        return False

    # ------------------------------------------------------------ requests

    def do_GET(self) -> None:
        if not self._authorised(True):
            return
        if self.path.split("?", 1)[0] != STATUS_PATH:
            self._refuse(404, f"no {self.path}: {TRACES_PATH} (POST) and {STATUS_PATH} (GET)", True)
            return
        self._send(200, msgspec.json.encode(self.server.collector.snapshot()), JSON)

    def do_POST(self) -> None:
        as_json = media_type(self.headers.get("Content-Type", "")) == JSON
        if not self._authorised(as_json):
            return
        if self.path.split("?", 1)[0] != TRACES_PATH:
            self._refuse(404, f"no {self.path}: traces go to {TRACES_PATH}", as_json, close=True)
            return
        length_header = self.headers.get("Content-Length")
        if length_header is None:
            self._refuse(411, "Content-Length is required", as_json, close=True)
            return
        try:
            length = int(length_header)
            if length < 0:
                raise ValueError
        except ValueError:
            self._refuse(400, f"Content-Length {length_header!r} is not a byte count", as_json, close=True)
            return
        cap = self.server.max_body_bytes
        if length > cap:  # refused unread: the connection is closed, not drained
            self._refuse(413, f"body of {length} bytes is over the cap of {cap}", as_json, close=True)
            return
        body = self._read_body(length)
        self.server.watch.done(self.connection)  # read: what follows is the receiver's own work
        if body is None:
            self._refuse(408, f"body not received within {self.server.read_deadline_s:g} s", as_json, close=True)
            return
        try:
            raw = inflate(body, self.headers.get("Content-Encoding", ""), cap)
            spans, rejected = decode_spans(raw, self.headers.get("Content-Type", ""), f"otlp-http:{next(self.server.request_numbers)}")
        except TooLarge as exc:
            self._refuse(413, str(exc), as_json)
            return
        except Unsupported as exc:
            self._refuse(415, str(exc), as_json)
            return
        except BadRequest as exc:
            self._refuse(400, str(exc), as_json)
            return
        try:
            self.server.collector.accept(spans, len(rejected))
        except Full as exc:
            retry = str(self.server.retry_after_s)
            self._refuse(429, f"{exc}; retry after {retry} s", as_json, {"Retry-After": retry})
            return
        for r in rejected:
            log.info("span rejected: %s", r)
        self._accepted(len(rejected), "; ".join(sorted({r.reason for r in rejected})), as_json)

    def _accepted(self, rejected: int, why: str, as_json: bool) -> None:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

        reply = ExportTraceServiceResponse()
        if rejected:
            reply.partial_success.rejected_spans = rejected
            reply.partial_success.error_message = why
        if as_json:
            from google.protobuf.json_format import MessageToJson

            self._send(200, MessageToJson(reply, indent=None).encode(), JSON)
        else:
            self._send(200, reply.SerializeToString(), PROTOBUF)

    def _read_body(self, length: int) -> bytes | None:
        """The body, or None when it did not all arrive within the deadline (a slow or stalled client)."""
        deadline = time.monotonic() + self.server.read_deadline_s
        parts, left = [], length
        while left > 0:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            self.connection.settimeout(remaining)
            try:
                chunk = self.rfile.read1(min(CHUNK, left))
            except (TimeoutError, OSError):
                return None
            if not chunk:
                return None  # the client went away mid-body
            parts.append(chunk)
            left -= len(chunk)
        self.connection.settimeout(self.server.read_deadline_s)
        return b"".join(parts)
