"""Arize Phoenix spans: the spans dataframe its client returns (`get_spans_dataframe`), saved as
JSONL (`to_json(orient="records", lines=True)`) or Parquet (`to_parquet`, how `TraceDataset.save`
writes it), and the REST spans (`GET /v1/projects/{project}/spans`, what `client.spans.get_spans`
returns), from a file or from a running server.

A dataframe row has `context.trace_id`, `context.span_id`, `parent_id`, `start_time`,
`end_time`, `span_kind` and `attributes.<key>` columns whose values may nest
(`attributes.retrieval.documents` = a list of `{"document.id": …}`); a REST span has `context`
and `attributes` objects. Both flatten to the same dotted attributes.
"""

from __future__ import annotations

import json
import math
import urllib.parse
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable


from workbench.errors import ExternalError
from workbench.project.files import Problem, ProjectError
from workbench.triage.traces.spans import Skipped, Span, flatten, hex_id, json_lines

PAGE = 1000
TIMEOUT_S = 30.0  # one request in all: connecting, the headers and the whole body
DEFAULT_MAX_BYTES = 64 * 2**20  # every page together (import-traces --max-mb)
MAX_REDIRECTS = 5
_MAX_NS = 2**63 - 1


def nanos(v: Any) -> int | None:
    """A time as pandas / Phoenix write it: ISO-8601 text, or epoch seconds / ms / µs / ns."""
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, datetime):
        try:
            return _bounded((v if v.tzinfo else v.replace(tzinfo=timezone.utc)).timestamp() * 1e9)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(v, (int, float)):
        try:
            x = float(v)
        except OverflowError:  # an integer beyond any float
            return None
        scale = 1 if x > 1e17 else 1e3 if x > 1e14 else 1e6 if x > 1e11 else 1e9
        return _bounded(x * scale)
    if isinstance(v, str) and v.strip():
        try:
            t = datetime.fromisoformat(v.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
        return nanos(t)
    return None


def _bounded(ns: float) -> int | None:
    """A time in ns as an int if it is one a span can have (finite, from 1970 on, within int64); else None."""
    if not math.isfinite(ns) or ns < 0 or ns > _MAX_NS:
        return None
    return int(ns)


def is_phoenix_row(row: Any) -> bool:
    return isinstance(row, dict) and ("context.span_id" in row or isinstance(row.get("context"), dict))


def span_of(row: dict, where: str, skipped: list[Skipped]) -> Span | None:
    ctx: dict = row["context"] if isinstance(row.get("context"), dict) else {}
    trace = hex_id(row.get("context.trace_id", ctx.get("trace_id")), 16)
    span = hex_id(row.get("context.span_id", ctx.get("span_id")), 8)
    if trace is None or span is None:
        skipped.append(Skipped(where, f"no valid {'trace' if trace is None else 'span'} id"))
        return None
    attrs: dict[str, Any] = {}
    if isinstance(row.get("attributes"), dict):
        flatten(row["attributes"], "", attrs)
    for k, v in row.items():
        if k.startswith("attributes.") and v is not None:
            flatten(v, k[len("attributes."):], attrs)
    kind = row.get("span_kind")
    if isinstance(kind, str) and kind and "openinference.span.kind" not in attrs:
        attrs["openinference.span.kind"] = kind
    return Span(trace_id=trace, span_id=span, parent_id=hex_id(row.get("parent_id"), 8), name=str(row.get("name") or ""),
                start_ns=nanos(row.get("start_time")), end_ns=nanos(row.get("end_time")), attributes=attrs,
                where=f"{where} (span {span})")


def spans_of(rows: Iterable[tuple[str, Any]], skipped: list[Skipped]) -> list[Span]:
    out = []
    for where, row in rows:
        s = span_of(row, where, skipped)
        if s is not None:
            out.append(s)
    return out


def read_phoenix_jsonl(path: Path, raw: bytes, problems: list[Problem], skipped: list[Skipped]) -> list[Span]:
    lines = json_lines(path, raw, problems, is_phoenix_row, "not a Phoenix span (no context.span_id / context)")
    rows = [(f"{path}:{lineno}", row) for lineno, row in lines]
    return [] if problems else spans_of(rows, skipped)


# pyarrow is run in a child process: in one process with usearch (loaded by the CLI) its reads
# crash with a segmentation fault; the child writes the rows as JSON lines.
PARQUET_TO_JSONL = """
import json, sys
import pyarrow.parquet as pq
table = pq.read_table(sys.argv[1])
print(json.dumps(table.schema.names))
for row in table.to_pylist():
    print(json.dumps(row, default=str))
"""
PARQUET_TIMEOUT_S = 600


def read_phoenix_parquet(path: Path, problems: list[Problem], skipped: list[Skipped]) -> list[Span]:
    import subprocess
    import sys

    try:
        done = subprocess.run([sys.executable, "-c", PARQUET_TO_JSONL, str(path)], capture_output=True, timeout=PARQUET_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ProjectError([Problem(str(path), None, None, f"could not read the Parquet file: {exc}")]) from None
    if done.returncode != 0:
        last = (done.stderr.decode("utf-8", "replace").strip().splitlines() or ["no message"])[-1]
        why = "reading Parquet needs pyarrow; export the spans as JSONL instead" if "No module named 'pyarrow'" in last else last
        raise ProjectError([Problem(str(path), None, None, f"not a readable Parquet file: {why}")])
    lines = done.stdout.split(b"\n")
    if "context.span_id" not in json.loads(lines[0]):
        raise ProjectError([Problem(str(path), None, None, "not a Phoenix spans table (no context.span_id column)")])
    rows = ((f"{path} row {i}", json.loads(line)) for i, line in enumerate(lines[1:], start=1) if line.strip())
    return spans_of(rows, skipped)


class _Refused(Exception):
    """Why a page was not read (said in the ExternalError naming its URL)."""


def _get(url: str, deadline_s: float, max_bytes: int) -> tuple[bytes, str]:
    """One GET with a deadline for the whole request (not per read: a server trickling a byte at a
    time is cut), at most ``max_bytes`` of body, redirects followed only on the same host.
    (body, the URL finally read)."""
    import http.client
    import socket
    import threading
    import time

    origin = urllib.parse.urlsplit(url)
    for _ in range(MAX_REDIRECTS + 1):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise _Refused(f"not an http(s) URL: {url}")
        conn_type = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        conn = conn_type(parts.hostname, parts.port, timeout=deadline_s)
        expired = threading.Event()

        def cut() -> None:  # the deadline passed: unblock whatever read is waiting
            expired.set()
            if conn.sock is not None:
                try:
                    conn.sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

        timer = threading.Timer(deadline_s, cut)
        timer.daemon = True
        timer.start()
        ends = time.monotonic() + deadline_s
        try:
            conn.request("GET", urllib.parse.urlunsplit(("", "", parts.path or "/", parts.query, "")),
                         headers={"Accept": "application/json", "Host": parts.netloc})
            resp = conn.getresponse()
            if resp.status in (301, 302, 303, 307, 308):
                target = urllib.parse.urljoin(url, resp.getheader("Location") or "")
                there = urllib.parse.urlsplit(target)
                if (there.scheme, there.hostname, there.port) != (origin.scheme, origin.hostname, origin.port):
                    raise _Refused(f"HTTP {resp.status}: redirected to another host, {target}; not followed "
                                   "(give that URL itself if it is your Phoenix)")
                url = target
                continue
            if resp.status != 200:
                raise _Refused(f"HTTP Error {resp.status}: {resp.reason}")
            chunks, size = [], 0
            while True:
                chunk = resp.read1(1 << 16)
                if not chunk:
                    break
                size += len(chunk)
                if size > max_bytes:
                    raise _Refused(f"more than {max_bytes / 2**20:g} MiB of spans, the limit (raise it with --max-mb)")
                chunks.append(chunk)
                if time.monotonic() > ends:
                    raise TimeoutError
            if expired.is_set():
                raise TimeoutError
            return b"".join(chunks), url
        except (TimeoutError, socket.timeout):
            raise _Refused(f"no complete answer within {deadline_s:g} s") from None
        except (OSError, http.client.HTTPException) as exc:
            if expired.is_set():
                raise _Refused(f"no complete answer within {deadline_s:g} s") from None
            raise _Refused(str(exc) or type(exc).__name__) from None
        finally:
            timer.cancel()
            conn.close()
    raise _Refused(f"more than {MAX_REDIRECTS} redirects")


def fetch_phoenix(url: str, project: str, skipped: list[Skipped], limit: int | None = None,
                  max_bytes: int = DEFAULT_MAX_BYTES, deadline_s: float = TIMEOUT_S) -> list[Span]:
    """Every span of a Phoenix project through its REST API (paged by cursor): each request within
    ``deadline_s``, every page together within ``max_bytes``, and paging stopped with a clear error
    when the server repeats a cursor or a page brings no span not seen already."""
    base = url.rstrip("/")
    rows: list[tuple[str, Any]] = []
    cursor: str | None = None
    cursors: set[str] = set()
    seen: set[tuple[str, ...]] = set()
    left = max_bytes
    while True:
        query = {"limit": str(PAGE)} | ({"cursor": cursor} if cursor else {})
        page_url = f"{base}/v1/projects/{urllib.parse.quote(project, safe='')}/spans?{urllib.parse.urlencode(query)}"
        try:
            raw, _ = _get(page_url, deadline_s, left)
            body = json.loads(raw)
        except _Refused as exc:
            raise ExternalError(f"{page_url}: {exc}", title="Phoenix did not answer",
                                hint="Is the server running, and is --phoenix-project the project's name?") from None
        except (ValueError, RecursionError) as exc:
            raise ExternalError(f"{page_url}: not JSON ({exc})", title="Not a Phoenix spans answer") from None
        left -= len(raw)
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list):
            raise ExternalError(f"{page_url}: the answer has no `data` list of spans", title="Not a Phoenix spans answer")
        new = 0
        for i, r in enumerate(data):
            where = f"{base} span {len(rows) + 1}"
            if not isinstance(r, dict):
                skipped.append(Skipped(where, f"`data[{i}]` of {page_url} is {type(r).__name__}, not a span object"))
                continue
            ctx: dict = r["context"] if isinstance(r.get("context"), dict) else {}
            ident = (r.get("context.trace_id", ctx.get("trace_id")), r.get("context.span_id", ctx.get("span_id")))
            key = tuple(json.dumps(x, sort_keys=True, default=str) for x in ident)
            if key not in seen:
                seen.add(key)
                new += 1
            rows.append((where, r))
        cursor = body.get("next_cursor")
        if not cursor or not data or (limit is not None and len(rows) >= limit):
            break
        if not isinstance(cursor, str) or cursor in cursors or new == 0:
            why = (f"repeated the cursor {cursor!r}" if isinstance(cursor, str) and cursor in cursors
                   else "sent a page with no span not seen already" if new == 0 else f"sent a cursor that is not text: {cursor!r}")
            raise ExternalError(f"{page_url}: the server {why}; paging stopped after {len(cursors) + 1} pages "
                                f"({len(seen)} spans)", title="Phoenix paging does not end",
                                hint="Check the Phoenix server (or export the spans to a file and import that).")
        cursors.add(cursor)
    return spans_of(rows, skipped)
