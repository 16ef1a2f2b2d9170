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
import urllib.request
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable


from workbench.errors import ExternalError
from workbench.project.files import Problem, ProjectError
from workbench.triage.traces.spans import Skipped, Span, flatten, hex_id, json_lines

PAGE = 1000
TIMEOUT_S = 30.0


def nanos(v: Any) -> int | None:
    """A time as pandas / Phoenix write it: ISO-8601 text, or epoch seconds / ms / µs / ns."""
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, datetime):
        return int((v if v.tzinfo else v.replace(tzinfo=timezone.utc)).timestamp() * 1e9)
    if isinstance(v, (int, float)):
        if isinstance(v, float) and not math.isfinite(v):
            return None
        x = float(v)
        scale = 1 if x > 1e17 else 1e3 if x > 1e14 else 1e6 if x > 1e11 else 1e9
        return int(x * scale)
    if isinstance(v, str) and v.strip():
        try:
            t = datetime.fromisoformat(v.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
        return nanos(t)
    return None


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


def fetch_phoenix(url: str, project: str, skipped: list[Skipped], limit: int | None = None) -> list[Span]:
    """Every span of a Phoenix project through its REST API (paged by cursor)."""
    base = url.rstrip("/")
    rows: list[tuple[str, Any]] = []
    cursor: str | None = None
    while True:
        query = {"limit": str(PAGE)} | ({"cursor": cursor} if cursor else {})
        page_url = f"{base}/v1/projects/{urllib.parse.quote(project, safe='')}/spans?{urllib.parse.urlencode(query)}"
        try:
            with urllib.request.urlopen(page_url, timeout=TIMEOUT_S) as resp:  # noqa: S310 (the user's own server)
                body = json.loads(resp.read())
        except (OSError, ValueError) as exc:
            raise ExternalError(f"{page_url}: {exc}", title="Phoenix did not answer",
                                hint="Is the server running, and is --phoenix-project the project's name?") from None
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list):
            raise ExternalError(f"{page_url}: the answer has no `data` list of spans", title="Not a Phoenix spans answer")
        rows.extend((f"{base} span {len(rows) + i + 1}", r) for i, r in enumerate(data))
        cursor = body.get("next_cursor")
        if not cursor or not data or (limit is not None and len(rows) >= limit):
            break
    return spans_of(rows, skipped)
