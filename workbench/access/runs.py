"""Stored rankings of every system (retrievers and model localization) per tier.

A run is keyed by (system config, index manifest or model config, tier contents): a rerun
with nothing changed finds its key and recomputes nothing; a changed key means stale.

Beside each run file `<system>.json`, a small `.<system>.idx` gives the byte span of each
query's ranking in it (and the run's identity), so the inspector reads one query's ranking of
a tier without decoding whole files (RunStore.query_rankings); it vouches only for the run file
whose stat it records: another (an older release's file, one rewritten since) is decoded whole.
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

from workbench.fsutil import atomic_write_bytes, guard_state_path, safe_name, sha256_bytes
from workbench.project.files import Project
from workbench.records import Hit, RankedList, Tier

RUNS_DIR = "runs"
INDEX_SUFFIX = ".idx"
_DECODED: dict[tuple, object] = {}  # see JsonRunStore._decode
_DECODED_MAX = 256


class SystemRun(msgspec.Struct, frozen=True):
    system: str  # "bm25", "dense", "hybrid", "model:<name>:localize"
    tier: str
    tier_hash: str
    key: str
    k: int
    rankings: list[RankedList]
    # query_id → hash of the query text each ranking was computed for: a ranking whose query is
    # unchanged is reused when only the tier's query set changed (same key = same index).
    texts: dict[str, str] = {}
    # runs.tier_docs_hash at writing: a run stays current while the tier's documents do, whatever
    # queries are added ("" = stored before: current only while tier_hash matches, as then)
    docs_hash: str = ""
    # production's runs (run:NAME) only: query → the depth its ranking was truncated at (nothing is
    # claimed past it), and the queries production served whose ranking is unknown (left out of rankings)
    depths: dict[str, int] = {}
    unknown: list[str] = []

    def hits(self, query_id: str) -> list[Hit] | None:
        for r in self.rankings:
            if r.query_id == query_id:
                return list(r.hits)
        return None

    def ranking(self, query_id: str) -> list[int] | None:
        hits = self.hits(query_id)
        return None if hits is None else [h.doc_id for h in hits]


def tier_hash(project: Project, tier: Tier) -> str:
    """Identity of a tier's contents within this corpus version (computed once per tier and project)."""
    return project.memo("tier_hash", tier, lambda: sha256_bytes(
        msgspec.json.encode([project.corpus_hash(), tier.doc_ids, tier.query_ids]))[:16])


def tier_docs_hash(project: Project, tier: Tier) -> str:
    """Identity of a tier's documents alone: an index built on them stays valid when queries or
    their labels change (adding a query from a log, marking gold) — only the rankings' scoring does not."""
    return project.memo("tier_docs_hash", tier, lambda: sha256_bytes(
        msgspec.json.encode([project.documents_hash(), tier.doc_ids]))[:16])


def query_text_hash(text: str) -> str:
    return sha256_bytes(text.encode())[:12]


def kept_rankings(project: Project, run: SystemRun) -> SystemRun:
    """The run without rankings whose query text changed since (a query recorded with its text)."""
    if not run.texts:
        return run
    def same(qid: str) -> bool:
        try:
            return run.texts[qid] == query_text_hash(project.original_query(qid).query)
        except KeyError:  # a query no longer in the project
            return False

    kept = [r for r in run.rankings if r.query_id not in run.texts or same(r.query_id)]
    return run if len(kept) == len(run.rankings) else msgspec.structs.replace(run, rankings=kept)


def run_key(*parts: object) -> str:
    return sha256_bytes(msgspec.json.encode(parts))[:16]


class RunIndex(msgspec.Struct, frozen=True):
    """Where each query's ranking lies in one run file, and that file's identity and stat."""

    stamp: tuple[int, ...]  # the run file's (size, mtime_ns, inode, ctime_ns) when indexed
    system: str
    tier_hash: str
    spans: dict[str, tuple[int, int]]  # query_id -> (byte offset, length) of its RankedList
    docs_hash: str = ""  # SystemRun.docs_hash
    # sha256 of the index itself (with check=""): a damaged index whose stamp still matches would
    # otherwise say "not in this run" or "stale" and hide the system's ranking ("" = older release)
    check: str = ""


def _checked(index: RunIndex) -> RunIndex:
    return msgspec.structs.replace(index, check=sha256_bytes(msgspec.json.encode(msgspec.structs.replace(index, check="")))[:16])


def _intact(index: RunIndex) -> bool:
    return bool(index.check) and _checked(index).check == index.check


def encode_run(run: SystemRun) -> tuple[bytes, dict[str, tuple[int, int]]]:
    """``msgspec.json.encode(run)`` (the same bytes) and the span of each query's ranking in them."""
    enc = msgspec.json.Encoder()
    head, tail = enc.encode(msgspec.structs.replace(run, rankings=[])).split(b'"rankings":[]', 1)
    head += b'"rankings":['
    parts: list[bytes] = []
    spans: dict[str, tuple[int, int]] = {}
    at = len(head)
    for n, ranking in enumerate(run.rankings):
        part = enc.encode(ranking)
        at += n > 0  # the comma before it
        spans.setdefault(ranking.query_id, (at, len(part)))  # the first, as SystemRun.hits finds
        parts.append(part)
        at += len(part)
    return head + b",".join(parts) + b"]" + tail, spans


def _stamp(st) -> tuple[int, ...]:
    # ctime too: a rewrite in place with its mtime put back (touch -r) still moves it
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


class JsonRunStore:
    """Run records as JSON files under runs/<tier>/[subdir/]<system>.json.

    A file that does not decode (damaged, foreign, an older schema) is stale, never trusted;
    a run whose tier_hash differs from the tier's current contents is not current."""

    record_type: type = SystemRun
    subdir = ""

    def __init__(self, project: Project, root: Path | None = None):
        self.project = project
        self.root = root or project.state_dir / RUNS_DIR
        # runs/ (or a folder above it) a symlink: its files are not the project's runs to read as
        # figures, nor to write over: refused here (UnsafePath), not followed
        guard_state_path(self.root / "run.json")

    def _dir(self, tier: str) -> Path:
        d = self.root / safe_name(tier)
        return d / self.subdir if self.subdir else d

    def path(self, system: str, tier: str) -> Path:
        return self._dir(tier) / f"{safe_name(system)}.json"

    def _decode(self, path: Path):
        # Decoded files are remembered by (path, inode, size, mtime): every write is a rename,
        # so a changed file misses; inspecting query after query re-decodes nothing.
        try:
            st = path.stat()
        except OSError:
            return None
        memo = (str(path), st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, self.record_type)
        if memo in _DECODED:
            return _DECODED[memo]
        run: object
        try:
            run = msgspec.json.decode(path.read_bytes(), type=self.record_type)
        except (OSError, msgspec.DecodeError):
            run = None
        if len(_DECODED) >= _DECODED_MAX:
            _DECODED.pop(next(iter(_DECODED)))  # oldest first
        _DECODED[memo] = run
        return run

    def load(self, system: str, tier: str):
        return self._decode(self.path(system, tier))

    def current(self, run, tier: Tier) -> bool:
        """Made on this tier's documents: its own docs_hash, or (stored before it) the whole tier_hash."""
        if run.docs_hash:
            return run.docs_hash == tier_docs_hash(self.project, tier)
        return run.tier_hash == tier_hash(self.project, tier)

    def load_if_current(self, system: str, tier: Tier, key: str):
        run = self.load(system, tier.name)
        if run is None or run.key != key or not self.current(run, tier):
            return None
        return run

    def save(self, run) -> None:
        atomic_write_bytes(self.path(run.system, run.tier), msgspec.json.encode(run))

    def index_path(self, run_path: Path) -> Path:
        return run_path.with_name(f".{run_path.stem}{INDEX_SUFFIX}")

    def fingerprint(self, tier: str) -> tuple:
        """Changes whenever a run of this tier is written, added or removed (reads no file)."""
        out = []
        for p in sorted(self._dir(tier).glob("*.json")):
            try:
                st = p.stat()
            except OSError:
                continue
            out.append((p.name, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
        return tuple(out)

    def runs(self, tier: Tier) -> list:
        """Stored runs made on the tier's current documents, by system name."""
        decoded = (self._decode(p) for p in sorted(self._dir(tier.name).glob("*.json")))
        return [self._stamped(r, tier) for r in decoded if r is not None and self.current(r, tier)]

    def _stamped(self, run, tier: Tier):
        """A run stored before docs_hash, still current by its whole tier_hash, gets the tier's
        docs_hash written in once: from then on adding or labelling a query (which changes the
        tier_hash) no longer makes it stale. Best effort: a read-only project keeps the old rule."""
        if run.docs_hash:
            return run
        run = msgspec.structs.replace(run, docs_hash=tier_docs_hash(self.project, tier))
        try:
            self.save(run)
        except OSError:
            pass
        return run


class RunStore(JsonRunStore):
    """Rankings (SystemRun) of retrievers and model localization: what the access side scores.

    A ranking is kept by the tier's documents (docs_hash), the system's key and the query's text
    (texts): adding a query to the project leaves every other query's ranking current."""

    def runs(self, tier: Tier) -> list:
        return [kept_rankings(self.project, r) for r in super().runs(tier)]

    def save(self, run: SystemRun) -> None:
        path = self.path(run.system, run.tier)
        data, spans = encode_run(run)
        atomic_write_bytes(path, data)
        self._write_index(path, run, spans)

    def _write_index(self, path: Path, run: SystemRun, spans: dict[str, tuple[int, int]]) -> RunIndex | None:
        try:
            index = _checked(RunIndex(_stamp(path.stat()), run.system, run.tier_hash, spans, run.docs_hash))
            atomic_write_bytes(self.index_path(path), msgspec.json.encode(index))
        except OSError:  # read-only: the inspector decodes whole files, as before
            return None
        return index

    def _index(self, path: Path, st) -> RunIndex | None:
        """The run file's index if it is intact and vouches for the file as it is now (stat ``st``); else made
        from the file (decoded whole once, and indexed only if its bytes are what encode_run writes)."""
        try:
            index = msgspec.json.decode(self.index_path(path).read_bytes(), type=RunIndex)
            if tuple(index.stamp) == _stamp(st) and _intact(index):
                return index
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            pass
        run = self._decode(path)
        if run is None:
            return None
        data, spans = encode_run(run)
        try:
            same = path.read_bytes() == data
        except OSError:
            return None
        return self._write_index(path, run, spans) if same else None

    def query_rankings(self, tier: Tier, query_id: str) -> dict[str, list[Hit]]:
        """Every current run's ranking of one query on this tier, by system (in file-name order),
        reading only that query's span of each file (a file without a usable index: decoded whole)."""
        th = tier_hash(self.project, tier)
        dh = tier_docs_hash(self.project, tier)
        out: dict[str, list[Hit]] = {}
        decoder = msgspec.json.Decoder(RankedList)
        for path in sorted(self._dir(tier.name).glob("*.json")):
            ranking, index = None, None
            try:
                with open(path, "rb") as fh:  # the index is checked against this very file
                    index = self._index(path, os.fstat(fh.fileno()))
                    if index is not None and (index.docs_hash != dh if index.docs_hash else index.tier_hash != th):
                        continue
                    span = index.spans.get(query_id) if index is not None else None
                    if index is not None and span is None:
                        continue  # the query is not in this run
                    if span is not None:
                        fh.seek(span[0])
                        ranking = decoder.decode(fh.read(span[1]))
            except (OSError, msgspec.DecodeError, msgspec.ValidationError):
                ranking = None
            if index is not None and ranking is not None and ranking.query_id == query_id:
                out[index.system] = list(ranking.hits)
                continue
            run = self._decode(path)  # no index, or one that did not hold the query: the whole file
            if run is not None and self.current(run, tier) and (hits := kept_rankings(self.project, run).hits(query_id)) is not None:
                out[run.system] = hits
        return out

    def systems(self, tier: Tier) -> list[str]:
        """Systems with a stored run for this tier's current contents."""
        return [r.system for r in self.runs(tier)]
