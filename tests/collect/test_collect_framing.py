"""HTTP framing under the receiver (RFC 9112), now a maintained parser's (llhttp, through uvicorn):
a request whose length is ambiguous — Content-Length with Transfer-Encoding, two disagreeing
Content-Lengths, a length that is not digits — is refused 400 and its connection closed, so the
second request smuggled behind it is never answered; a body nested thousands deep is a 400 with a
google.rpc.Status (never a dropped connection, which makes an exporter resend it for ever); a token
no HTTP header can carry is refused at start."""

from __future__ import annotations

import json
import socket
from urllib.parse import urlparse

import pytest
from google.rpc.status_pb2 import Status

from collect_helpers import get_status, protobuf, sdk_traces

SMUGGLED = b"GET /status HTTP/1.1\r\nHost: x\r\n\r\n"


@pytest.fixture
def live(project_copy):
    from workbench.session import start_collect

    handle = start_collect(project_copy, "live", port=0, settle_s=600, read_deadline_s=2)
    yield handle
    handle.stop()


def exchange(url: str, raw: bytes) -> bytes:
    """Everything the receiver sends back on one connection for ``raw``, up to its close."""
    u = urlparse(url)
    s = socket.create_connection((u.hostname, u.port), timeout=30)
    try:
        s.sendall(raw)
        out = b""
        while chunk := s.recv(65536):  # the receiver closes: recv returns b"" (a kept-open one would time out)
            out += chunk
        return out
    finally:
        s.close()


@pytest.mark.parametrize("head", [
    b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
    b"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n",
    b"Content-Length: 0\r\nContent-Length: 34\r\n",
    b"Content-Length: 1_0\r\n",
    b"Content-Length: +10\r\n",
], ids=["cl-then-te", "te-then-cl", "two-lengths", "underscore", "plus-sign"])
def test_ambiguous_framing_is_400_and_the_connection_closed(live, head):
    raw = (b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n" + head + b"\r\n"
           + b"0\r\n\r\n" + SMUGGLED)
    reply = exchange(live.url, raw)
    assert reply.startswith(b"HTTP/1.1 400"), reply[:200]
    assert reply.count(b"HTTP/1.1 ") == 1  # the smuggled GET /status was never answered
    assert get_status(live.url)["requests"] == 0  # nothing reached the collector


def test_a_well_framed_chunked_body_is_served_and_keeps_the_connection(live):
    body = protobuf(sdk_traces(1)[0])
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    raw = (b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\nTransfer-Encoding: chunked\r\n\r\n"
           + chunked + b"GET /status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    reply = exchange(live.url, raw)
    assert reply.startswith(b"HTTP/1.1 200") and reply.count(b"HTTP/1.1 200") == 2  # pipelined: both answered
    assert b'"spans_received":2' in reply


def deep_json(levels: int) -> bytes:
    value = b'{"arrayValue":{"values":[' * levels + b'{"stringValue":"x"}' + b"]}}" * levels
    return (b'{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"' + b"1" * 32 + b'","spanId":"' + b"2" * 16
            + b'","name":"s","attributes":[{"key":"deep","value":' + value + b"}]}]}]}]}")


def deep_protobuf(levels: int) -> bytes:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    request = ExportTraceServiceRequest()
    span = request.resource_spans.add().scope_spans.add().spans.add()
    span.trace_id, span.span_id = b"\1" * 16, b"\2" * 8
    attribute = span.attributes.add()
    attribute.key = "deep"
    value = attribute.value
    for _ in range(levels):
        value = value.array_value.values.add()
    value.string_value = "x"
    return request.SerializeToString()


def test_an_attribute_nested_5000_deep_is_a_400_with_a_status_not_a_dropped_connection(live):
    import http.client

    u = urlparse(live.url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    try:
        conn.request("POST", "/v1/traces", deep_json(5000), {"Content-Type": "application/json"})
        r = conn.getresponse()
        reply = json.loads(r.read())
        assert r.status == 400 and reply["code"] == 3 and "nested" in reply["message"]
        conn.request("POST", "/v1/traces", deep_protobuf(5000), {"Content-Type": "application/x-protobuf"})
        r = conn.getresponse()
        status = Status()
        status.ParseFromString(r.read())
        assert r.status == 400 and status.code == 3 and "ExportTraceServiceRequest" in status.message
        conn.request("POST", "/v1/traces", protobuf(sdk_traces(1)[0]), {"Content-Type": "application/x-protobuf"})
        assert conn.getresponse().status == 200  # the same connection goes on
    finally:
        conn.close()
    assert get_status(live.url)["refused"] == {"400": 2}


def test_a_token_no_header_can_carry_is_refused_at_start(built_project, monkeypatch):
    from click.testing import CliRunner

    from workbench.cli import main
    from workbench.errors import BadInput
    from workbench.session import start_collect

    with pytest.raises(BadInput, match="U\\+00E9"):
        start_collect(built_project, port=0, token="s3cr\u00e9t")
    monkeypatch.setenv("COLLECT_TOKEN", "caf\u00e9-t\u00f6ken")
    r = CliRunner().invoke(main, ["collect", str(built_project), "--port", "0", "--token-env", "COLLECT_TOKEN"])
    assert r.exit_code == 2 and "COLLECT_TOKEN" in r.output and "could never match" in r.output
    assert "caf\u00e9" not in r.output  # the secret itself is never shown
