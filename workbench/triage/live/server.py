"""The OTLP/HTTP receiver: `POST /v1/traces` (protobuf or JSON, gzip or not) answered as the OTLP
spec says — 200 with an ExportTraceServiceResponse (partial_success: the spans rejected and why),
400 for a body that is not an export request, 413 over the body cap, 415 for another media type,
429 with Retry-After while the import is behind, 503 with Retry-After when the spool cannot be
written (nothing acknowledged that is not on disk); every refusal carries a google.rpc.Status in
the request's encoding — and `GET /status` (the collector's figures as JSON). A bearer token, when
set, is required on every request (401 without it).

HTTP itself is uvicorn's, over llhttp (httptools): the framing (RFC 9112: Content-Length and
Transfer-Encoding together, disagreeing or malformed lengths → 400 and the connection closed),
keep-alive and pipelining are a maintained parser's, not ours. uvicorn's own h11 backend answers a
request carrying both Content-Length and chunked and keeps the connection open, so httptools is
named, never "auto". The one addition (`Deadlines`): a connection must bring each request's head
and body within twice the read deadline, or it is closed (a client trickling its headers holds
nothing for ever); the body's own deadline (408) is the app's."""

from __future__ import annotations

import asyncio
import hmac
import itertools
import logging
import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import msgspec
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from workbench.triage.live.import_loop import ImportLoop, Full
from workbench.triage.live.decode import JSON, PROTOBUF, BadRequest, TooLarge, Unsupported, decode_spans, inflate, media_type
from workbench.triage.live.spool import SpoolError

log = logging.getLogger("workbench.collect")
TRACES_PATH = "/v1/traces"
STATUS_PATH = "/status"
# google.rpc.Code of each refusal (the Status message's code)
RPC_CODE = {400: 3, 401: 16, 404: 5, 405: 12, 408: 4, 413: 8, 415: 3, 429: 8, 503: 14}

Reply = tuple[int, bytes, str, dict[str, str], bool]  # status, body, content type, headers, close the connection


class Deadlines(HttpToolsProtocol):
    """uvicorn's llhttp protocol with one bound more: from the wait for a request to the end of its
    body, ``head_deadline_s`` at most (set per server by `Receiver`), else the connection is closed."""

    head_deadline_s = 20.0
    _timer: asyncio.TimerHandle | None = None

    def _arm(self) -> None:
        self._disarm()
        if not self.transport.is_closing():
            self._timer = self.loop.call_later(self.head_deadline_s, self._overdue)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _overdue(self) -> None:
        self._timer = None
        log.info("a client took over %g s for its request: connection closed", self.head_deadline_s)
        self.transport.close()

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._arm()

    def on_message_complete(self) -> None:
        self._disarm()  # the request is read: what follows is the receiver's own work
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()  # waiting for the next request on this connection

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


class Receiver:
    """The ASGI app and the uvicorn server under it, on a socket bound at construction (so a busy
    port fails here, before anything else starts); `start()` serves on a thread, `stop()` ends it."""

    def __init__(self, host: str, port: int, collector: ImportLoop, token: str | None = None,
                 max_body_bytes: int = 16 << 20, read_deadline_s: float = 10.0, retry_after_s: int = 2) -> None:
        self.collector, self.token = collector, token
        self.max_body_bytes, self.read_deadline_s, self.retry_after_s = max_body_bytes, read_deadline_s, retry_after_s
        self.request_numbers = itertools.count(1)  # names each request in its spans' `where`
        self.pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="collect-decode")  # decode + spool off the loop
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.sock.bind((host, port))
            self.sock.listen(512)
        except OSError:
            self.sock.close()
            raise
        bound_host, self.port = self.sock.getsockname()[:2]
        self.url = f"http://[{bound_host}]:{self.port}" if ":" in bound_host else f"http://{bound_host}:{self.port}"
        self.server: Any = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        import uvicorn

        protocol = type("CollectProtocol", (Deadlines,), {"head_deadline_s": 2 * self.read_deadline_s})
        config = uvicorn.Config(self, http=protocol, loop="asyncio", lifespan="off", access_log=False, log_config=None,
                                log_level="warning", timeout_keep_alive=2 * self.read_deadline_s,  # type: ignore[arg-type]
                                timeout_graceful_shutdown=max(1, round(2 * self.read_deadline_s)), server_header=False)
        self.server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, name="collect-http", daemon=True)
        self._thread.start()
        while not self.server.started:  # serving (the socket already queues connections): or say why not
            if not self._thread.is_alive():
                raise RuntimeError("the HTTP server (uvicorn) ended while starting: see the log above")
            self._thread.join(0.01)

    def stop(self) -> None:
        """No new request; those in flight answered (a stuck client cut after the graceful timeout)."""
        if self.server is not None:
            self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=4 * self.read_deadline_s + 5)
            if self._thread.is_alive():
                self.server.force_exit = True
                self._thread.join()
        self.sock.close()
        self.pool.shutdown(wait=True)

    # ------------------------------------------------------------ the ASGI app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        headers: dict[str, str] = {}
        for k, v in scope["headers"]:
            headers[k.decode("latin-1")] = v.decode("latin-1")
        method, path = scope["method"], scope["path"]
        as_json = media_type(headers.get("content-type", "")) == JSON or method == "GET"
        if not self._authorised(headers):
            reply = self._refusal(401, "a bearer token is required (Authorization: Bearer …)", as_json,
                                  {"WWW-Authenticate": "Bearer"}, close=True)
        elif method == "GET" and path == STATUS_PATH:
            reply = (200, msgspec.json.encode(self.collector.snapshot()), JSON, {}, False)
        elif path not in (TRACES_PATH, STATUS_PATH):
            reply = self._refusal(404, f"no {path}: traces go to {TRACES_PATH} (POST), figures to {STATUS_PATH} (GET)",
                                  as_json, close=method == "POST")
        elif method != "POST" or path != TRACES_PATH:
            reply = self._refusal(405, f"{method} {path}: traces are POSTed to {TRACES_PATH}", as_json, {}, close=True)
        else:
            reply = await self._post(headers, receive, as_json)
        code, body, content_type, extra, close = reply
        out = [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode())]
        out += [(k.lower().encode(), v.encode()) for k, v in extra.items()]
        if close:
            out.append((b"connection", b"close"))
        await send({"type": "http.response.start", "status": code, "headers": out})
        await send({"type": "http.response.body", "body": body})

    def _authorised(self, headers: dict[str, str]) -> bool:
        if self.token is None:
            return True
        got = headers.get("authorization", "").encode("latin-1")
        return hmac.compare_digest(got, b"Bearer " + self.token.encode("ascii"))

    async def _post(self, headers: dict[str, str], receive: Any, as_json: bool) -> Reply:
        cap = self.max_body_bytes
        length = headers.get("content-length")  # llhttp has checked it: digits only, one value
        if length is not None and int(length) > cap:  # refused unread: the connection is closed, not drained
            return self._refusal(413, f"body of {length} bytes is over the cap of {cap}", as_json, close=True)
        try:
            body = await asyncio.wait_for(self._body(receive, cap), self.read_deadline_s)
        except TimeoutError:
            return self._refusal(408, f"body not received within {self.read_deadline_s:g} s", as_json, close=True)
        except TooLarge as exc:
            return self._refusal(413, str(exc), as_json, close=True)
        if body is None:  # the client went away mid-body: nobody to answer
            return self._refusal(400, "the client closed the connection mid-body", as_json, close=True)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.pool, self._take, body, headers, as_json)

    @staticmethod
    async def _body(receive: Any, cap: int) -> bytes | None:
        parts, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > cap:  # a chunked body without a length: stopped at the cap
                raise TooLarge(f"body over the cap of {cap} bytes")
            parts.append(chunk)
            if not message.get("more_body"):
                return b"".join(parts)

    def _take(self, body: bytes, headers: dict[str, str], as_json: bool) -> Reply:
        """Decode and spool one request (on a pool thread): the reply to send."""
        cap = self.max_body_bytes
        try:
            raw = inflate(body, headers.get("content-encoding", ""), cap)
            spans, rejected = decode_spans(raw, headers.get("content-type", ""), f"otlp-http:{next(self.request_numbers)}")
        except TooLarge as exc:
            return self._refusal(413, str(exc), as_json)
        except Unsupported as exc:
            return self._refusal(415, str(exc), as_json)
        except BadRequest as exc:
            return self._refusal(400, str(exc), as_json)
        retry = str(self.retry_after_s)
        try:
            self.collector.accept(spans, len(rejected))
        except Full as exc:
            return self._refusal(429, f"{exc}; retry after {retry} s", as_json, {"Retry-After": retry})
        except SpoolError as exc:
            log.error("spans not spooled, refused with 503: %s", exc)
            return self._refusal(503, f"the collector could not store the spans ({exc}); nothing was kept, retry after {retry} s",
                                 as_json, {"Retry-After": retry})
        for r in rejected:
            log.info("span rejected: %s", r)
        return self._accepted(len(rejected), "; ".join(sorted({r.reason for r in rejected})), as_json)

    # ------------------------------------------------------------ replies

    def _refusal(self, code: int, message: str, as_json: bool, headers: dict[str, str] | None = None,
                 close: bool = False) -> Reply:
        from google.rpc.status_pb2 import Status

        self.collector.refused(code)
        status = Status(code=RPC_CODE.get(code, 2), message=message)
        if as_json:
            from google.protobuf.json_format import MessageToJson

            return code, MessageToJson(status, indent=None).encode(), JSON, headers or {}, close
        return code, status.SerializeToString(), PROTOBUF, headers or {}, close

    @staticmethod
    def _accepted(rejected: int, why: str, as_json: bool) -> Reply:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

        reply = ExportTraceServiceResponse()
        if rejected:
            reply.partial_success.rejected_spans = rejected
            reply.partial_success.error_message = why
        if as_json:
            from google.protobuf.json_format import MessageToJson

            return 200, MessageToJson(reply, indent=None).encode(), JSON, {}, False
        return 200, reply.SerializeToString(), PROTOBUF, {}, False
