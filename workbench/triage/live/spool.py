"""Acknowledged spans, durably: one line per accepted request (its new spans), appended and
fsynced before the receiver answers 200, so a kill -9 loses nothing acknowledged. The spool is
also the collection itself: every import re-imports the union of its complete traces, and a
restart reads it back."""

from __future__ import annotations

import logging
from pathlib import Path

import msgspec

from workbench.fsutil import append_record, safe_name
from workbench.triage.traces.spans import Span

SPOOL_DIR = Path("collect")
log = logging.getLogger("workbench.collect")
_decoder = msgspec.json.Decoder(list[Span])


def spool_path(state_dir: Path, name: str) -> Path:
    return state_dir / SPOOL_DIR / safe_name(name) / "spans.jsonl"


class Spool:
    def __init__(self, path: Path, root: Path) -> None:
        self.path, self.root = path, root

    def append(self, spans: list[Span]) -> None:
        if spans:
            append_record(self.path, self.root, msgspec.json.encode(spans))

    def read(self) -> tuple[list[Span], int]:
        """(every span spooled, torn lines): a torn line is a write a kill cut short, never acknowledged."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return [], 0
        spans: list[Span] = []
        torn = 0
        for lineno, line in enumerate(raw.split(b"\n"), start=1):
            if not line.strip():
                continue
            try:
                spans.extend(_decoder.decode(line))
            except msgspec.DecodeError:
                torn += 1
                log.warning("%s:%d: a torn spool line (a write cut short, never acknowledged) is ignored", self.path, lineno)
        return spans, torn
