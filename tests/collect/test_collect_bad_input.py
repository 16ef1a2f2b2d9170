"""The receiver under bad input: each refusal gets the OTLP spec's status code (with a
google.rpc.Status body) and the receiver keeps serving. Bodies are the real SDK's spans through
its own OTLP encoder, broken on purpose where a test needs a fault."""

from __future__ import annotations

import gzip
import http.client
import json
import socket
from typing import Any
from urllib.parse import urlparse

import pytest
from google.protobuf.json_format import MessageToDict
from google.rpc.status_pb2 import Status
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

from collect_helpers import get_status, protobuf, sdk_traces

PB = {"Content-Type": "application/x-protobuf"}
JS = {"Content-Type": "application/json"}


@pytest.fixture
def live(project_copy):
    from workbench.session import start_collect

    # nothing imports during these tests (a long settle): what is checked is the receiving
    handle = start_collect(project_copy, "live", port=0, settle_s=600, max_pending=2, max_body_bytes=4096,
                           read_deadline_s=0.5)
    yield handle
    handle.stop()


def post(url: str, body: bytes, headers: dict[str, str], path: str = "/v1/traces") -> tuple[int, Any, bytes]:
    u = urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    try:
        conn.request("POST", path, body, headers)
        r = conn.getresponse()
        return r.status, r.headers, r.read()  # headers: case-insensitive (uvicorn writes names lower-case)
    finally:
        conn.close()


def rpc_status(body: bytes) -> Status:
    s = Status()
    s.ParseFromString(body)
    return s


def test_a_body_that_is_not_otlp_is_400_in_the_request_encoding(live):
    code, headers, body = post(live.url, b"this is not a protobuf message at all", PB)
    assert code == 400 and headers["Content-Type"] == "application/x-protobuf"
    assert "ExportTraceServiceRequest" in rpc_status(body).message
    code, headers, body = post(live.url, json.dumps({"spans": []}).encode(), JS)
    assert code == 400 and "resourceSpans" in json.loads(body)["message"]
    code, _, body = post(live.url, b'{"resourceSpans": [', JS)
    assert code == 400 and "malformed JSON" in json.loads(body)["message"]
    code, _, _ = post(live.url, gzip.compress(b"x")[:-4], {**PB, "Content-Encoding": "gzip"})
    assert code == 400
    assert post(live.url, b"{}", {"Content-Type": "text/plain"})[0] == 415
    assert post(live.url, b"{}", {**JS, "Content-Encoding": "br"})[0] == 415
    assert post(live.url, b"{}", JS, path="/v1/metrics")[0] == 404
    status = get_status(live.url)
    assert status["refused"] == {"400": 4, "415": 2, "404": 1} and status["spans_received"] == 0
    assert post(live.url, protobuf(sdk_traces(1)[0]), PB)[0] == 200  # and it keeps serving


def test_a_body_over_the_cap_is_413_before_or_after_gzip(live):
    code, headers, body = post(live.url, b"\0" * 5000, PB)
    assert code == 413 and headers.get("Connection") == "close" and "cap of 4096" in rpc_status(body).message
    bomb = gzip.compress(b"\0" * 1_000_000)  # a kilobyte that inflates to a megabyte
    assert len(bomb) < 4096
    assert post(live.url, bomb, {**PB, "Content-Encoding": "gzip"})[0] == 413
    assert get_status(live.url)["refused"] == {"413": 2}
    assert post(live.url, gzip.compress(protobuf(sdk_traces(1)[0])), {**PB, "Content-Encoding": "gzip"})[0] == 200
    # A client announcing 100 MiB: refused on its first bytes, never read whole.
    u = urlparse(live.url)
    big = socket.create_connection((u.hostname, u.port), timeout=30)
    try:
        big.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
                    b"Content-Length: 104857600\r\n\r\n" + b"\0" * 65536)
        reply = big.recv(4096)
    finally:
        big.close()
    assert reply.startswith(b"HTTP/1.1 413")
    assert get_status(live.url)["refused"] == {"413": 3}


def test_a_slow_client_is_cut_at_the_deadline_while_others_are_served(live):
    u = urlparse(live.url)
    slow = socket.create_connection((u.hostname, u.port), timeout=30)
    try:
        slow.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
                     b"Content-Length: 1000\r\n\r\n" + b"\0" * 10)  # then nothing more
        assert get_status(live.url)["requests"] == 0  # another client is served meanwhile
        reply = slow.recv(4096)  # blocks until the receiver gives up on the body
    finally:
        slow.close()
    assert reply.startswith(b"HTTP/1.1 408")
    assert get_status(live.url)["refused"] == {"408": 1}


def test_a_client_trickling_its_headers_is_cut_off(live):
    """Each byte well inside the socket timeout, the request never finished: the watchdog closes it."""
    import threading

    u = urlparse(live.url)
    slow = socket.create_connection((u.hostname, u.port), timeout=30)
    closed = threading.Event()
    try:
        for byte in b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nX-Padding: " + b"a" * 4000:  # never a blank line
            try:
                slow.sendall(bytes([byte]))
                slow.setblocking(False)
                if slow.recv(1) == b"":  # the receiver's close
                    closed.set()
            except BlockingIOError:
                pass
            except OSError:
                closed.set()
            finally:
                slow.setblocking(True)
            if closed.is_set() or closed.wait(0.01):  # a slow client is slow: a byte each 10 ms
                break
    finally:
        slow.close()
    assert closed.is_set(), "the trickling client was never cut off"
    assert get_status(live.url)["requests"] == 0  # and the receiver serves the next one


def test_many_small_requests_keep_being_served(live):
    u = urlparse(live.url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    empty = protobuf([])
    codes = []
    try:
        for _ in range(9500):  # the flood of 10^4: one keep-alive connection, as the exporter's session uses
            conn.request("POST", "/v1/traces", empty, PB)
            r = conn.getresponse()
            r.read()
            codes.append(r.status)
    finally:
        conn.close()
    for _ in range(500):  # and a fresh connection each
        codes.append(post(live.url, b"{}", JS)[0])
    assert set(codes) == {200}
    assert get_status(live.url)["requests"] == 10_000


def test_429_with_retry_after_when_pending_traces_reach_the_cap(live):
    a, b, c = sdk_traces(3)
    assert post(live.url, protobuf(a), PB)[0] == 200
    assert post(live.url, protobuf(b), PB)[0] == 200
    code, headers, body = post(live.url, protobuf(c), PB)
    assert code == 429 and int(headers["Retry-After"]) >= 1 and "pending" in rpc_status(body).message
    assert post(live.url, protobuf(a), PB)[0] == 200  # spans already held: accepted (duplicates), no new trace
    status = get_status(live.url)
    assert status["pending_traces"] == 2 and status["spans_duplicate"] == 2 and status["refused"] == {"429": 1}


def test_spans_without_valid_ids_are_a_partial_success(live):
    doc = MessageToDict(encode_spans(sdk_traces(1)[0]))
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"] = "not-an-id"
    code, _, body = post(live.url, json.dumps(doc).encode(), JS)
    reply = json.loads(body)
    assert code == 200 and reply["partialSuccess"]["rejectedSpans"] == "1"
    assert "trace id" in reply["partialSuccess"]["errorMessage"]
    code, _, body = post(live.url, protobuf(sdk_traces(1)[0]), PB)
    ok = ExportTraceServiceResponse()
    ok.ParseFromString(body)
    assert code == 200 and ok.partial_success.rejected_spans == 0
    status = get_status(live.url)
    assert status["spans_rejected"] == 1 and status["spans_received"] == 3


def test_a_token_is_required_when_set_and_beyond_loopback(project_copy):
    from workbench.errors import BadInput
    from workbench.session import start_collect

    with pytest.raises(BadInput, match="bearer token"):
        start_collect(project_copy, port=0, host="0.0.0.0")
    live = start_collect(project_copy, port=0, settle_s=600, token="s3cret")
    try:
        code, headers, _ = post(live.url, protobuf(sdk_traces(1)[0]), PB)
        assert code == 401 and headers["WWW-Authenticate"] == "Bearer"
        assert post(live.url, protobuf(sdk_traces(1)[0]), {**PB, "Authorization": "Bearer wrong"})[0] == 401
        assert post(live.url, protobuf(sdk_traces(1)[0]), {**PB, "Authorization": "Bearer s3cret"})[0] == 200
        assert get_status(live.url, token="s3cret")["spans_received"] == 2
    finally:
        live.stop()
