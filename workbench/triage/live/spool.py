"""Acknowledged spans, durably: a SQLite database in WAL mode (synchronous=FULL), one transaction
per accepted request committed before the receiver answers 200, so a kill -9 loses nothing
acknowledged and a full or read-only disk is an error the receiver answers (503), never a 200.
Beside the spans, each trace's span count and how many of them were last imported: a restart
imports only what was not (never the whole collection again), and a span re-sent for a trace
already imported is recognised from here, not from memory."""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

import msgspec

from workbench.fsutil import checked_path, safe_name
from workbench.triage.traces.spans import Span

SPOOL_DIR = Path("collect")
SPOOL_FILE = "spool.sqlite"
LEGACY_FILE = "spans.jsonl"  # the spool before this database: read once, then renamed
log = logging.getLogger("workbench.collect")
_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(Span)
_legacy = msgspec.json.Decoder(list[Span])

SCHEMA = """
CREATE TABLE IF NOT EXISTS spans (trace_id TEXT NOT NULL, span_id TEXT NOT NULL, span BLOB NOT NULL,
                                  PRIMARY KEY (trace_id, span_id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS traces (trace_id TEXT PRIMARY KEY, spans INTEGER NOT NULL, imported INTEGER NOT NULL DEFAULT 0)
                                  WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
"""


class SpoolError(Exception):
    """The spool could not be written (a full disk, a read-only file system, an I/O error)."""


def collect_dir(state_dir: Path, name: str) -> Path:
    return state_dir / SPOOL_DIR / safe_name(name)


def spool_path(state_dir: Path, name: str) -> Path:
    return collect_dir(state_dir, name) / SPOOL_FILE


class Spool:
    """One connection, used under its own lock by the request threads and the import worker."""

    def __init__(self, path: Path, root: Path) -> None:
        self.path, self.root = path, root
        checked_path(path, root)
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")  # each commit fsynced: durable when it returns
            self.db.executescript(SCHEMA)
            # a write at once: a read-only project is refused here, at start, not at the first request
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('opened', datetime('now'))")
        except sqlite3.Error as exc:
            raise SpoolError(f"{path}: {exc}") from None
        self._migrate(path.parent / LEGACY_FILE)

    def close(self) -> None:
        with self._lock:
            self.db.close()

    def append(self, spans: list[Span]) -> None:
        """New spans (not held yet) of one request, committed; SpoolError and nothing kept if not."""
        if not spans:
            return
        counts: dict[str, int] = {}
        for s in spans:
            counts[s.trace_id] = counts.get(s.trace_id, 0) + 1
        with self._lock:
            try:
                self.db.execute("BEGIN IMMEDIATE")
                self.db.executemany("INSERT INTO spans VALUES (?, ?, ?)",
                                    [(s.trace_id, s.span_id, _encoder.encode(s)) for s in spans])
                self.db.executemany("INSERT INTO traces (trace_id, spans) VALUES (?, ?) "
                                    "ON CONFLICT (trace_id) DO UPDATE SET spans = spans + excluded.spans",
                                    list(counts.items()))
                self.db.execute("COMMIT")
            except sqlite3.Error as exc:
                self._rollback()
                raise SpoolError(str(exc)) from None

    def mark_imported(self, counts: dict[str, int]) -> None:
        """These traces were imported with this many spans (a late span makes one pending again)."""
        with self._lock:
            try:
                self.db.execute("BEGIN IMMEDIATE")
                self.db.executemany("UPDATE traces SET imported = ? WHERE trace_id = ?", [(n, t) for t, n in counts.items()])
                self.db.execute("COMMIT")
            except sqlite3.Error as exc:
                self._rollback()
                raise SpoolError(str(exc)) from None

    def span_ids(self, trace_id: str) -> set[str]:
        with self._lock:
            return {r[0] for r in self.db.execute("SELECT span_id FROM spans WHERE trace_id = ?", (trace_id,))}

    def trace_spans(self, trace_id: str) -> list[Span]:
        with self._lock:
            rows = self.db.execute("SELECT span FROM spans WHERE trace_id = ?", (trace_id,)).fetchall()
        return [_decoder.decode(r[0]) for r in rows]

    def state(self) -> tuple[dict[str, int], dict[str, list[Span]]]:
        """(trace → span count of every trace imported whole, trace → spans of every other trace):
        what a restart holds — the spans only of what is still to import."""
        done: dict[str, int] = {}
        pending: dict[str, list[Span]] = {}
        with self._lock:
            try:
                for trace_id, spans, imported in self.db.execute("SELECT trace_id, spans, imported FROM traces"):
                    if spans == imported:
                        done[trace_id] = spans
                    else:
                        pending[trace_id] = []
                rows = self.db.execute("SELECT s.trace_id, s.span FROM spans s JOIN traces t USING (trace_id) "
                                       "WHERE t.spans != t.imported").fetchall()
            except sqlite3.Error as exc:  # a damaged spool: said, never read as empty
                raise SpoolError(f"{self.path}: {exc}") from None
        for trace_id, blob in rows:
            pending[trace_id].append(_decoder.decode(blob))
        return done, pending

    def _rollback(self) -> None:
        try:
            self.db.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # no transaction left to roll back (SQLite ended it with the error)

    def _migrate(self, legacy: Path) -> None:
        """A spool of the earlier format (one JSON line per request): its spans taken over, once."""
        try:
            raw = legacy.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            raise SpoolError(f"{legacy}: {exc.strerror or exc}") from None
        spans: dict[tuple[str, str], Span] = {}
        for lineno, line in enumerate(raw.split(b"\n"), start=1):
            if not line.strip():
                continue
            try:
                for s in _legacy.decode(line):
                    spans.setdefault((s.trace_id, s.span_id), s)
            except msgspec.DecodeError:  # a write a kill cut short: it was never acknowledged
                log.warning("%s:%d: a torn spool line (a write cut short, never acknowledged) is ignored", legacy, lineno)
        held = {(t, s) for t, s in self._all_ids()}
        self.append([s for k, s in spans.items() if k not in held])
        try:
            legacy.rename(legacy.with_name(LEGACY_FILE + ".migrated"))
        except OSError as exc:
            raise SpoolError(f"{legacy}: {exc.strerror or exc}") from None

    def _all_ids(self) -> list[tuple[str, str]]:
        with self._lock:
            return self.db.execute("SELECT trace_id, span_id FROM spans").fetchall()
