"""One span, whatever file or server it came from: ids as lower-case hex, times in nanoseconds,
attributes as one flat dict of dotted keys (``retrieval.documents.0.document.id``), so the
conventions are read in one place whether the source flattened them (OTLP, OpenInference) or
nested them (Phoenix's dataframe: ``retrieval.documents`` = a list of ``{"document.id": …}``)."""

from __future__ import annotations

import base64
import binascii
import re
from pathlib import Path
from typing import Any, Callable

import msgspec

from workbench.project.files import Problem, ProjectError

# the span kinds the conventions map every library's spans onto (OpenInference's names)
RETRIEVER, RERANKER, LLM = "RETRIEVER", "RERANKER", "LLM"

_HEX = re.compile(r"^[0-9a-fA-F]+$")
MAX_DEPTH = 12  # nested attribute values deeper than this are not what any convention writes


class Span(msgspec.Struct, frozen=True):
    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start_ns: int | None
    end_ns: int | None
    attributes: dict[str, Any]
    where: str  # file:line (or the row / the server) the span came from, for reports

    @property
    def seconds(self) -> float | None:
        if self.start_ns is None or self.end_ns is None or self.end_ns < self.start_ns:
            return None
        return (self.end_ns - self.start_ns) / 1e9


class Skipped(msgspec.Struct, frozen=True):
    """A span or trace that was not understood: counted and reported, never a crash."""

    where: str
    reason: str

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"


class TraceFileError(ProjectError):
    """Problems in a trace file (or a trace server's answer), not in the project: each names the
    file (line), the span and the attribute."""

    title = "The trace file has problems"
    hint = "Fix the trace file (or the options that read it) and rerun; nothing was written."

    def __init__(self, problems: list[Problem]):
        super().__init__(problems)
        self.title = f"{len(problems)} problem(s) in the trace file"


def hex_id(value: Any, size: int) -> str | None:
    """A trace (16 bytes) or span (8 bytes) id as hex: OTLP JSON writes hex, protobuf's
    json_format base64; an all-zero or empty id is no id."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = format(value, f"0{size * 2}x")
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if len(text) == size * 2 and _HEX.match(text):
        out = text.lower()
    else:
        try:
            raw = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            return None
        if len(raw) != size:
            return None
        out = raw.hex()
    return None if set(out) == {"0"} else out


def flatten(value: Any, prefix: str = "", out: dict[str, Any] | None = None, depth: int = 0) -> dict[str, Any]:
    """Nested dicts and lists → dotted keys; a list of scalars is kept as a list (an OTel array)."""
    out = {} if out is None else out
    if depth > MAX_DEPTH:
        return out
    if isinstance(value, dict):
        for k, v in value.items():
            flatten(v, f"{prefix}.{k}" if prefix else str(k), out, depth + 1)
    elif isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        for i, v in enumerate(value):
            flatten(v, f"{prefix}.{i}" if prefix else str(i), out, depth + 1)
    elif prefix:
        out[prefix] = value
    return out


BOM = b"\xef\xbb\xbf"


def decode(raw: bytes | str) -> Any:
    """JSON → Python; nesting too deep for the decoder (RecursionError) is malformed JSON like any other."""
    try:
        return msgspec.json.decode(raw)
    except RecursionError:
        raise msgspec.DecodeError("nested too deeply to be a trace (a RecursionError)") from None


def problem(where: str, message: str) -> Problem:
    """A file-level problem (the file is refused whole), from a `file:line` location."""
    file, _, line = where.rpartition(":")
    if file and line.isdigit():
        return Problem(file, int(line), None, message)
    return Problem(where, None, None, message)


def json_lines(path: Path, raw: bytes, problems: list[Problem], accept: Callable[[Any], bool],
               not_accepted: str) -> list[tuple[int, Any]]:
    """(line, document) of a JSON-lines file: a line that does not decode, or that `accept` refuses,
    is a problem at its line (the caller refuses the file whole when there is any)."""
    out = []
    for lineno, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            doc = decode(line.removeprefix(BOM) if lineno == 1 else line)
        except msgspec.DecodeError as exc:
            problems.append(Problem(str(path), lineno, None, f"malformed JSON: {exc}"))
            continue
        if not accept(doc):
            problems.append(Problem(str(path), lineno, None, not_accepted))
            continue
        out.append((lineno, doc))
    return out
