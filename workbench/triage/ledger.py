"""The production ledger: everything production sent, kept once, whatever door it came through.

One SQLite database per project (.workbench/ledger.sqlite; stdlib sqlite3, WAL, synchronous=FULL):
each row is what one source said production served for one query under one run name — a parsed
trace (`import-traces`, a Phoenix server, `collect`: its ranking, reranked list, answer and the
ProductionTrace itself), an imported ranking (`import-run`) or an imported answer
(`import-answers`) — with its source, the time it was added and its content hash. Rows are only
ever added, in one transaction per batch, committed before the call returns (so before anything
acknowledges them); a row whose content is already there is not added again (re-importing is a
no-op, byte for byte).

`run:NAME` is a *view* of these rows (``view``): per query and per slot (ranking, reranked list,
answer, trace), the latest row that fills it, across every source; ``add`` says which queries a
batch moved from one source to another (``Change``), so no front end replaces evidence silently.
The ledger is primary data, not derived: one that does not open is a clear error naming the file
(LedgerError), never rebuilt over.
"""

from __future__ import annotations

import sqlite3
import threading
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from workbench.errors import WorkbenchError
from workbench.fsutil import checked_database, log, sha256_bytes
from workbench.project.files import Project
from workbench.records import RankedList
from workbench.triage.ledger_records import (  # noqa: F401 (the records, re-exported: ledger.Entry, …)
    ALL_TIERS, DOOR_WORDS, Added, Change, Door, Entry, ImportInfo, Matched, NewRow, ProductionAnswer, Row, Slot, TraceQuery,
)

LEDGER_FILE = "ledger.sqlite"
SCHEMA_VERSION = "1"


class LedgerError(WorkbenchError):
    """The ledger does not open or cannot be written."""

    title = "The production ledger does not open"
    hint = ("It holds what production sent; it is never rebuilt over. Restore it from a backup, or move it "
            "aside and import production's traces, runs and answers again.")


# ------------------------------------------------------------------ opening


# The view's index: per (name, part, query, slot), the row that fills it now — kept in the batch's own
# transaction, so a batch reads and updates the queries it touches, never every row of a query (a
# query production served 1,000 times costs what one served once).
LATEST_TABLE = ("CREATE TABLE IF NOT EXISTS {table} (name TEXT NOT NULL, part TEXT NOT NULL, query_id TEXT NOT NULL, "
                "slot TEXT NOT NULL, entry_id INTEGER NOT NULL, door TEXT NOT NULL, source TEXT NOT NULL, "
                "PRIMARY KEY (name, query_id, part, slot)) WITHOUT ROWID")

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS entries (id INTEGER PRIMARY KEY, name TEXT NOT NULL, door TEXT NOT NULL, "
    "part TEXT NOT NULL, query_id TEXT NOT NULL, source TEXT NOT NULL, added_at REAL NOT NULL, sha TEXT NOT NULL, "
    "slots TEXT NOT NULL, body BLOB NOT NULL, parsed BLOB, UNIQUE (name, part, query_id, sha))",
    "CREATE INDEX IF NOT EXISTS entries_by_query ON entries (name, query_id)",
    "CREATE TABLE IF NOT EXISTS imports (id INTEGER PRIMARY KEY, name TEXT NOT NULL, door TEXT NOT NULL, "
    "source TEXT NOT NULL, part TEXT NOT NULL, added_at REAL NOT NULL, info BLOB NOT NULL, "
    "UNIQUE (name, door, source, part, info))",
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    LATEST_TABLE.format(table="latest"),  # filled and marked by _ensure_latest (a ledger of before has rows to read in)
)


def ledger_path(project_or_state: Project | Path) -> Path:
    state = project_or_state.state_dir if isinstance(project_or_state, Project) else Path(project_or_state)
    return state / LEDGER_FILE


def _connect(path: Path, root: Path, create: bool) -> sqlite3.Connection | None:
    """A connection, or None when there is no ledger and ``create`` is off (nothing imported yet)."""
    checked_database(path, root)  # a symlinked file or folder never becomes our database
    if not create and not path.exists():
        return None
    try:
        if create:
            path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(str(path), timeout=60, isolation_level=None, check_same_thread=False)
    except (sqlite3.Error, OSError) as exc:
        raise LedgerError(f"{path}: {exc}") from None
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")  # a committed batch survives a power cut: it was acknowledged
        version = None
        if create:
            db.execute("BEGIN IMMEDIATE")
            for statement in _SCHEMA:
                db.execute(statement)
            db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
            db.execute("COMMIT")
        version = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    except sqlite3.OperationalError as exc:
        db.close()
        if "locked" in str(exc) or "busy" in str(exc):
            raise LedgerError(f"{path}: busy ({exc}): another import held it for over a minute",
                              title="The production ledger is busy") from None
        raise LedgerError(f"{path}: {exc}") from None
    except sqlite3.DatabaseError as exc:
        db.close()
        raise LedgerError(f"{path}: does not open as a database ({exc})") from None
    if version is None or version[0] != SCHEMA_VERSION:
        db.close()
        raise LedgerError(f"{path}: not a ledger of this release (schema {version[0] if version else 'none'}, "
                          f"expected {SCHEMA_VERSION})")
    try:
        _ensure_latest(db)
    except sqlite3.DatabaseError as exc:
        db.close()
        raise LedgerError(f"{path}: {exc}") from None
    return db


def _ensure_latest(db: sqlite3.Connection) -> None:
    """A ledger written before the view's index had one: built once from its rows (in a read-only
    project, for this connection only)."""
    if db.execute("SELECT 1 FROM meta WHERE key = 'latest'").fetchone():
        return
    try:
        db.execute("BEGIN IMMEDIATE")
        if not db.execute("SELECT 1 FROM meta WHERE key = 'latest'").fetchone():
            db.execute(LATEST_TABLE.format(table="latest"))
            _fill_latest(db, "latest")
            db.execute("INSERT INTO meta VALUES ('latest', '1')")
        db.execute("COMMIT")
    except sqlite3.OperationalError as exc:
        _rollback(db)
        if "readonly" not in str(exc).replace("-", "").replace(" ", ""):
            raise
        db.execute(LATEST_TABLE.format(table="temp.latest"))
        _fill_latest(db, "temp.latest")


def _fill_latest(db: sqlite3.Connection, table: str) -> None:
    rows = db.execute("SELECT id, name, part, query_id, door, source, slots FROM entries ORDER BY id").fetchall()
    db.executemany(f"INSERT OR REPLACE INTO {table} VALUES (?, ?, ?, ?, ?, ?, ?)",
                   [(name, part, qid, slot, rid, door, source) for rid, name, part, qid, door, source, slots in rows
                    for slot in slots.split()])


# ------------------------------------------------------------------ writing


def _sha(door: str, entry_body: bytes) -> str:
    return sha256_bytes(door.encode() + b"\0" + entry_body)[:32]


def add(project: Project, name: str, rows: list[NewRow], info: list[tuple[Door, str, str, ImportInfo]] = (),  # type: ignore[assignment]
        marks: list[str] = ()) -> Added:  # type: ignore[assignment]
    """Append ``rows`` under run ``name`` in one transaction (committed when this returns); a row whose
    content is there already is skipped. ``info``: (door, source, part, what the import said);
    ``marks``: meta keys noted in the same transaction (a legacy record read in)."""
    enc = msgspec.json.Encoder()
    db = _connect(ledger_path(project), project.root, create=True)
    assert db is not None
    try:
        db.execute("BEGIN IMMEDIATE")  # one writer at a time; readers go on reading the last commit
        before = _latest_doors(db, name, sorted({r.entry.query_id for r in rows}))
        now, added, kept = time.time(), 0, 0
        moved: dict[tuple[str, str, str], list[str]] = {}
        for r in rows:
            new = (r.door, r.source)
            body = enc.encode(r.entry)
            cur = db.execute("INSERT OR IGNORE INTO entries (name, door, part, query_id, source, added_at, sha, slots, body, parsed) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             (name, r.door, r.part, r.entry.query_id, r.source, now, _sha(r.door, body),
                              " ".join(r.entry.slots()), body, _packed(r.parsed)))
            if cur.rowcount != 1:
                kept += 1
                continue
            added += 1
            db.executemany("INSERT OR REPLACE INTO latest VALUES (?, ?, ?, ?, ?, ?, ?)",
                           [(name, r.part, r.entry.query_id, slot, cur.lastrowid, r.door, r.source) for slot in r.entry.slots()])
            for slot in r.entry.slots():
                old = before.get((r.entry.query_id, r.part, slot))
                if old is not None and old != new:
                    moved.setdefault((slot, *_labels(old, new)), []).append(r.entry.query_id)
                before[(r.entry.query_id, r.part, slot)] = new
        for door, source, part, what in info:
            db.execute("INSERT OR IGNORE INTO imports (name, door, source, part, added_at, info) VALUES (?, ?, ?, ?, ?, ?)",
                       (name, door, source, part, now, enc.encode(what)))
        for mark in marks:
            db.execute("INSERT OR IGNORE INTO meta VALUES (?, '1')", (mark,))
        db.execute("COMMIT")
    except sqlite3.Error as exc:
        _rollback(db)
        raise LedgerError(f"{ledger_path(project)}: nothing of this batch was written ({exc})",
                          title="The production ledger could not be written") from None
    finally:
        db.close()
    changes = [Change(name, slot, old, new, sorted(set(qids))) for (slot, old, new), qids in sorted(moved.items())]
    return Added(added, kept, changes)


def _labels(old: tuple[str, str], new: tuple[str, str]) -> tuple[str, str]:
    """How a change of source is said: by door ("import-run", "traces"), by source within one door."""
    if old[0] != new[0]:
        return old[0], new[0]
    return f"{old[0]} of {old[1]}", f"{new[0]} of {new[1]}"


def _rollback(db: sqlite3.Connection) -> None:
    try:
        db.execute("ROLLBACK")
    except sqlite3.Error:
        pass


def _latest_doors(db: sqlite3.Connection, name: str, query_ids: list[str]) -> dict[tuple[str, str, str], tuple[str, str]]:
    """(query, part, slot) → (door, source) of the row that fills it now, for these queries only."""
    out: dict[tuple[str, str, str], tuple[str, str]] = {}
    for i in range(0, len(query_ids), 500):
        part = query_ids[i:i + 500]
        for door, source, tier_part, qid, slot in db.execute(
                f"SELECT door, source, part, query_id, slot FROM latest WHERE name = ? AND query_id IN ({','.join('?' * len(part))})",
                [name, *part]):
            out[(qid, tier_part, slot)] = (door, source)
    return out


# ------------------------------------------------------------------ reading


@dataclass
class RunView:
    """run:NAME as the ledger holds it now: per query, the latest row of each slot."""

    name: str
    last_id: int
    # slot → part → query → row (rankings per tier part; the other slots are under "*")
    slots: dict[str, dict[str, dict[str, Row]]] = field(default_factory=dict)
    imports: list[tuple[str, str, str, float, ImportInfo]] = field(default_factory=list)  # door, source, part, at, info

    def slot(self, slot: Slot, part: str = ALL_TIERS) -> dict[str, Row]:
        return self.slots.get(slot, {}).get(part, {})

    def parts(self, slot: Slot = "ranking") -> list[str]:
        return sorted(self.slots.get(slot, {}))

    def latest_info(self, door: Door) -> ImportInfo | None:
        found = [(at, i) for d, _, _, at, i in self.imports if d == door]
        return max(found, key=lambda x: x[0])[1] if found else None


_VIEWS: dict[tuple[str, str], RunView] = {}
_VIEWS_LOCK = threading.Lock()


def legacy_done(project: Project) -> set[str]:
    """The legacy records already read in (migrate)."""
    return set(_select(project, "SELECT key FROM meta WHERE key LIKE 'legacy:%'", ()))


def _with_legacy(project: Project) -> None:
    """Import records of releases before the ledger, read in once (below)."""
    if legacy_files(project.state_dir):
        migrate(project)


def last_id(project: Project) -> int:
    """The id of the newest row (0: none): the ledger's state, as rows are only ever added."""
    found = _select(project, "SELECT COALESCE(MAX(id), 0) FROM entries", ())
    return int(found[0]) if found else 0


def names(project: Project) -> list[str]:
    """The run names the ledger holds rows for."""
    _with_legacy(project)
    return list(_select(project, "SELECT DISTINCT name FROM entries ORDER BY name", ()))


def view(project: Project, name: str) -> RunView:
    """run:NAME now (remembered per process and brought up to date with the rows added since: a live
    collection's batch costs the rows it adds, not the whole view again)."""
    key = (str(project.root), name)
    _with_legacy(project)
    db = _connect(ledger_path(project), project.root, create=False)
    if db is None:
        return RunView(name, 0)
    try:
        newest = int(db.execute("SELECT COALESCE(MAX(entry_id), 0) FROM latest WHERE name = ?", (name,)).fetchone()[0])
        with _VIEWS_LOCK:
            hit = _VIEWS.get(key)
        if hit is not None and hit.last_id == newest:
            return hit
        dec = msgspec.json.Decoder(Entry)
        if hit is not None and hit.last_id < newest:
            # rows are only ever added: a view read before is brought up to date with the rows added since
            out = RunView(name, newest, {slot: {part: dict(rows) for part, rows in parts.items()} for slot, parts in hit.slots.items()})
            for rid, door, part, source, at, body in db.execute(
                    "SELECT id, door, part, source, added_at, body FROM entries WHERE id > ? AND id <= ? AND name = ? ORDER BY id",
                    (hit.last_id, newest, name)):
                entry = dec.decode(body)
                row = Row(rid, door, part, source, at, entry)
                for slot in entry.slots():
                    out.slots.setdefault(slot, {}).setdefault(part, {})[entry.query_id] = row
        else:  # read afresh: only the rows that fill a slot now, each decoded once
            out = RunView(name, newest)
            rows: dict[int, Row] = {}
            for rid, door, part, source, at, body, slot in db.execute(
                    "SELECT e.id, e.door, e.part, e.source, e.added_at, e.body, l.slot FROM latest l "
                    "JOIN entries e ON e.id = l.entry_id WHERE l.name = ?", (name,)):
                row = rows.get(rid) or rows.setdefault(rid, Row(rid, door, part, source, at, dec.decode(body)))
                out.slots.setdefault(slot, {}).setdefault(part, {})[row.entry.query_id] = row
        idec = msgspec.json.Decoder(ImportInfo)
        out.imports = [(d, s, p, at, idec.decode(i)) for d, s, p, at, i in
                       db.execute("SELECT door, source, part, added_at, info FROM imports WHERE name = ? ORDER BY id", (name,))]
    except sqlite3.DatabaseError as exc:
        raise LedgerError(f"{ledger_path(project)}: {exc}") from None
    finally:
        db.close()
    with _VIEWS_LOCK:
        _VIEWS[key] = out
    return out


_SERVED: dict[tuple[str, str], tuple[int, frozenset[str]]] = {}


def served_ids(project: Project, name: str) -> frozenset[str]:
    """The queries run:NAME has a ranking for (known or not), read without decoding a row. Remembered
    per process with the newest row it saw: a ranking slot, once filled, stays filled, so a later call
    reads only the rows added since (a live collection's batch does not read every served query again)."""
    key = (str(project.root), name)
    db = _connect(ledger_path(project), project.root, create=False)
    if db is None:
        return frozenset()
    try:
        newest = int(db.execute("SELECT COALESCE(MAX(entry_id), 0) FROM latest WHERE name = ?", (name,)).fetchone()[0])
        seen, served = _SERVED.get(key, (0, frozenset()))
        if seen > newest:  # another ledger in the same place (moved aside, imported again): read afresh
            seen, served = 0, frozenset()
        if seen < newest:
            served = served | {r[0] for r in db.execute(
                "SELECT DISTINCT query_id FROM latest WHERE name = ? AND slot = 'ranking' AND entry_id > ?", (name, seen))}
            _SERVED[key] = (newest, served)
    except sqlite3.DatabaseError as exc:
        raise LedgerError(f"{ledger_path(project)}: {exc}") from None
    finally:
        db.close()
    return served


def latest_rows(project: Project, name: str, query_ids: list[str]) -> dict[tuple[str, str], Row]:
    """(query, slot) → the row that fills it now, for these queries only (a batch's: no whole view read)."""
    db = _connect(ledger_path(project), project.root, create=False)
    if db is None:
        return {}
    out: dict[tuple[str, str], Row] = {}
    dec = msgspec.json.Decoder(Entry)
    try:
        for i in range(0, len(query_ids), 500):
            part = query_ids[i:i + 500]
            for rid, door, source, at, body, slot in db.execute(
                    "SELECT e.id, e.door, e.source, e.added_at, e.body, l.slot FROM latest l JOIN entries e ON e.id = l.entry_id "
                    f"WHERE l.name = ? AND l.part = ? AND l.query_id IN ({','.join('?' * len(part))})", [name, ALL_TIERS, *part]):
                entry = dec.decode(body)
                out[(entry.query_id, slot)] = Row(rid, door, ALL_TIERS, source, at, entry)
    except sqlite3.DatabaseError as exc:
        raise LedgerError(f"{ledger_path(project)}: {exc}") from None
    finally:
        db.close()
    return out


def _select(project: Project, sql: str, args: tuple) -> list:
    db = _connect(ledger_path(project), project.root, create=False)
    if db is None:
        return []
    try:
        return [r[0] for r in db.execute(sql, args)]
    except sqlite3.DatabaseError as exc:
        raise LedgerError(f"{ledger_path(project)}: {exc}") from None
    finally:
        db.close()


def parsed_traces(project: Project, name: str) -> list[bytes]:
    """The ProductionTrace (msgspec JSON) of every trace row of run:NAME, oldest first."""
    return [_unpacked(bytes(p)) for p in
            _select(project, "SELECT parsed FROM entries WHERE name = ? AND parsed IS NOT NULL ORDER BY id", (name,))]


# A parsed trace holds its documents' text and its prompt (25 KB a trace in the firehose benchmark),
# read only by the few readers of whole traces: kept deflated (zlib, fastest level: a quarter of the
# size), told from the plain JSON of earlier rows by its first byte.
def _packed(parsed: bytes | None) -> bytes | None:
    return None if parsed is None else zlib.compress(parsed, 1)


def _unpacked(stored: bytes) -> bytes:
    return stored if stored[:1] == b"{" else zlib.decompress(stored)


def stamp(state_dir: Path) -> tuple[tuple[str, int, int], ...]:
    """The ledger's files' (name, mtime, size): a cheap poll that changes whenever a batch commits."""
    out = []
    for suffix in ("", "-wal"):
        p = state_dir / (LEDGER_FILE + suffix)
        try:
            st = p.stat()
        except OSError:
            continue
        out.append((str(p), st.st_mtime_ns, st.st_size))
    return tuple(out)


# ------------------------------------------------------------------ records of releases before the ledger
#Import records of the releases before the ledger, read into it once.
#
# Those releases kept each import as a JSON record under .workbench/imports/ (runs/<name>.json,
# answers/<name>.json, traces/<name>/traces.json). The first reader of a project that still has them
# adds their rows to the ledger (doors as they came: a run an import-traces wrote is the traces'),
# noting each file by its content hash so it is read once; the files are left in place. A record that
# does not read (truncated by a kill, edited) is said in one line and left out, never a run that
# silently vanishes.

_RUNS, _ANSWERS, _TRACES = Path("imports") / "runs", Path("imports") / "answers", Path("imports") / "traces"
_HINTS = {_RUNS: "`workbench import-run`", _ANSWERS: "`workbench import-answers`", _TRACES: "`workbench import-traces`"}


def legacy_files(state: Path) -> list[tuple[Path, Path]]:
    """(kind folder, file) of every legacy record, runs first (a trace's answers pair with its ranking)."""
    out = []
    for kind, pattern in ((_RUNS, "*.json"), (_ANSWERS, "*.json"), (_TRACES, "*/traces.json")):
        folder = state / kind
        if folder.is_dir():
            out += [(kind, p) for p in sorted(folder.glob(pattern))]
    return out


def migrate(project: Project) -> None:
    """Every legacy record not read yet, added to the ledger (best effort: a read-only project reads them next time)."""
    files = legacy_files(project.state_dir)
    if not files:
        return
    done = legacy_done(project)
    for kind, path in files:
        try:
            raw = path.read_bytes()
        except OSError:
            continue
        mark = f"legacy:{path.relative_to(project.state_dir).as_posix()}:{sha256_bytes(raw)[:16]}"
        if mark in done:
            continue
        try:
            name, rows, info = _rows(project, kind, raw)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            log.warning("%s: the import record of an older release does not read (%s); left out — import it again with %s",
                        path, str(exc)[:200], _HINTS[kind])
            continue
        try:
            add(project, name, rows, info, marks=[mark])
        except (LedgerError, OSError) as exc:
            log.warning("%s: not read into the ledger yet (%s)", path, exc)
            return


class _LegacyRun(msgspec.Struct):
    name: str
    format: str
    id_space: str
    sources: dict[str, str]
    rankings: dict[str, list[RankedList]]
    unknown_doc_ids: int = 0
    unknown_query_ids: int = 0


class _LegacyAnswers(msgspec.Struct):
    name: str
    source: str
    answers: list[ProductionAnswer]
    unknown_doc_ids: int = 0
    unknown_query_ids: int = 0


class _LegacyTraces(msgspec.Struct):
    name: str
    source: str
    queries: list[TraceQuery]


_RERANK = ">rerank"  # a legacy run:NAME>rerank record (triage/runs.py RERANK_SUFFIX)


def _rows(project: Project, kind: Path, raw: bytes) -> tuple[str, list, list]:
    traces_dir = str(project.state_dir / _TRACES)
    if kind == _RUNS:
        run = msgspec.json.decode(raw, type=_LegacyRun)
        rerank = run.name.endswith(_RERANK)
        name = run.name[: -len(_RERANK)] if rerank else run.name
        rows = []
        for part, rankings in run.rankings.items():
            source = run.sources.get(part, "")
            door: Door = "traces" if source.startswith(traces_dir) else "import-run"
            for r in rankings:
                entry = Entry(r.query_id, reranked=r.hits) if rerank else Entry(r.query_id, ranking=r.hits)
                rows.append(NewRow(door, source, entry, part if not rerank else ALL_TIERS))
        info = [] if rerank else [("import-run", run.sources.get(ALL_TIERS, ""), ALL_TIERS,
                                   ImportInfo(run.format, run.id_space, run.unknown_doc_ids, run.unknown_query_ids))]
        return name, rows, info
    if kind == _ANSWERS:
        answers = msgspec.json.decode(raw, type=_LegacyAnswers)
        door = "traces" if answers.source.startswith(traces_dir) else "import-answers"
        return answers.name, [NewRow(door, answers.source, Entry(a.query_id, answer=a)) for a in answers.answers], \
            [("import-answers", answers.source, ALL_TIERS,
              ImportInfo(unknown_doc_ids=answers.unknown_doc_ids, unknown_query_ids=answers.unknown_query_ids))]
    traces = msgspec.json.decode(raw, type=_LegacyTraces)
    return traces.name, [NewRow("traces", traces.source, Entry(q.query_id, trace=q)) for q in traces.queries], []
