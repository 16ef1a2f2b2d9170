"""Issue 33 (hardening round 3), the Phoenix client: no redirect to another host (8); paging that
does not end, a trickling server, a body above --max-mb (9); times and `data` rows no span can
have (11). The spans served are the ones Phoenix's real client returned (tests/triage/data/phoenix);
the servers are stubs, for fault injection only."""

from __future__ import annotations

import json
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.errors import ExternalError
from workbench.triage.traces.phoenix import fetch_phoenix, nanos

DATA = Path(__file__).parents[1] / "triage" / "data" / "phoenix"
SPANS = [json.loads(line) for line in (DATA / "phoenix-rest-spans.jsonl").read_text().splitlines()]


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


Answer = Callable[[BaseHTTPRequestHandler, dict], None]


def _json(handler: BaseHTTPRequestHandler, body: dict, code: int = 200, headers: dict | None = None) -> None:
    data = json.dumps(body).encode()
    handler.send_response(code)
    for k, v in (headers or {}).items():
        handler.send_header(k, v)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


@pytest.fixture
def stub() -> Iterator[Callable[[Answer], tuple[str, list[str]]]]:
    """stub(answer) → (its URL, the paths asked for); ``answer(handler, query)`` writes the reply."""
    servers = []

    def start(answer: Answer) -> tuple[str, list[str]]:
        asked: list[str] = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                asked.append(self.path)
                answer(self, {k: v[0] for k, v in urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query).items()})

            def log_message(self, *args):
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}", asked

    yield start
    for s in servers:
        s.shutdown()
        s.server_close()


# ---------------------------------------------------------------- 8. redirects


def test_a_redirect_to_another_host_is_not_followed(stub):
    other, other_asked = stub(lambda h, q: _json(h, {"data": SPANS, "next_cursor": None}))
    port = urllib.parse.urlsplit(other).port
    url, _ = stub(lambda h, q: _json(h, {}, 302, {"Location": f"http://localhost:{port}{h.path}"}))
    with pytest.raises(ExternalError, match="redirected to another host"):
        fetch_phoenix(url, "default", [])
    assert other_asked == []


def test_a_redirect_on_the_same_host_is_followed(stub):
    def answer(h, q):
        if h.path.startswith("/old"):
            _json(h, {}, 307, {"Location": h.path[len("/old"):]})
        else:
            _json(h, {"data": SPANS[:2], "next_cursor": None})

    url, asked = stub(answer)
    assert len(fetch_phoenix(url + "/old", "default", [])) == 2
    assert len(asked) == 2


# ---------------------------------------------------------------- 9. paging, deadline, size


def test_a_repeated_cursor_stops_paging_with_a_clear_error(stub):
    url, asked = stub(lambda h, q: _json(h, {"data": SPANS[:2] if "cursor" not in q else SPANS[2:4], "next_cursor": "again"}))
    with pytest.raises(ExternalError, match="repeated the cursor 'again'"):
        fetch_phoenix(url, "default", [])
    assert len(asked) == 2


def test_new_cursors_over_the_same_spans_stop_paging(stub):
    url, asked = stub(lambda h, q: _json(h, {"data": SPANS[:2], "next_cursor": f"c{len(q.get('cursor', ''))}x"}))
    with pytest.raises(ExternalError, match="no span not seen already"):
        fetch_phoenix(url, "default", [])
    assert len(asked) == 2


def test_a_server_trickling_its_answer_is_cut_at_the_deadline_of_the_request(stub):
    body = json.dumps({"data": SPANS, "next_cursor": None}).encode()
    gone = threading.Event()

    def trickle(h, q):
        h.send_response(200)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        try:
            for i in range(len(body)):
                h.wfile.write(body[i:i + 1])
                h.wfile.flush()
                time.sleep(0.05)  # the stub's fault: a byte every 50 ms, each read well inside any per-read timeout
        except OSError:
            gone.set()  # the client hung up

    url, _ = stub(trickle)
    with pytest.raises(ExternalError, match="no complete answer within 0.5 s"):
        fetch_phoenix(url, "default", [], deadline_s=0.5)
    assert gone.wait(30)


def test_max_mb_applies_to_a_url(stub, evaluated_copy):
    big = [dict(SPANS[0], attributes={"input.value": "x" * 2**20})] * 3  # ~3 MiB in one page
    url, _ = stub(lambda h, q: _json(h, {"data": big, "next_cursor": None}))
    result = cli("import-traces", evaluated_copy, url, "--name", "prod", "--max-mb", "1", "--no-judge")
    assert result.exit_code == 1, result.output
    assert "limit" in result.output and "--max-mb" in result.output
    assert "Traceback" not in result.output


# ---------------------------------------------------------------- 11. values no span can have


@pytest.mark.parametrize("value", [-1e300, 1e300, -1, 10**400, "0001-01-01T00:00:00", float("nan")])
def test_a_time_no_span_can_have_is_no_time(value):
    assert nanos(value) is None


def test_a_data_list_of_scalars_is_refused_without_a_traceback(stub, evaluated_copy):
    url, _ = stub(lambda h, q: _json(h, {"data": [1, "two", None], "next_cursor": None}))
    result = cli("import-traces", evaluated_copy, url, "--name", "prod", "--no-judge")
    assert result.exit_code == 2, result.output
    assert "data[0]" in result.output and "not a span object" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_an_end_time_of_minus_1e300_imports(stub, evaluated_copy):
    spans = [dict(s, end_time=-1e300) for s in SPANS]
    url, _ = stub(lambda h, q: _json(h, {"data": spans, "next_cursor": None}))
    result = cli("import-traces", evaluated_copy, url, "--name", "prod", "--phoenix-project", "default", "--no-judge")
    assert result.exit_code == 0, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
