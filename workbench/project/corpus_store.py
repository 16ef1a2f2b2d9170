"""documents.jsonl read lazily: what a command that does not read document texts never parses.

A load that validated both files writes beside them, under .workbench/corpus/, what it found:
the files' stat (size, mtime, inode, ctime), the content hashes every derived artefact is keyed by,
the corpus's domains, and each document's byte span in documents.jsonl (an offsets file). A
later load whose documents.jsonl still has that stat trusts it, as the index check trusts an
index file (workbench/access/indexing.py): it parses no document, and a document is read from
its span when asked for (the inspector's ten titles, a near miss's text). Rewriting the file
(import, an editor) changes its mtime and inode, so it is parsed and validated again.

Derived state: a record or an offsets file that does not load, or a span that does not hold
its document, is set aside and the documents are parsed whole, never a failure.
"""

from __future__ import annotations

import os
import weakref
from array import array
from bisect import bisect_left
from collections.abc import Iterator, Mapping, ValuesView, ItemsView
from pathlib import Path
from typing import Any

import msgspec

from workbench.fsutil import atomic_write_bytes, log
from workbench.records import Document

CORPUS_DIR = "corpus"
RECORD = "record.json"
OFFSETS = "documents.offsets"
FORMAT = 2  # 2: the stamp holds ctime_ns (a format-1 record is read again, silently)


class FileStamp(msgspec.Struct, frozen=True, array_like=True):
    size: int
    mtime_ns: int
    inode: int
    # an edit in place with its mtime put back (`touch -r`, some sync tools) still moves ctime,
    # which no user tool can set: without it such an edit would serve the old text's results
    ctime_ns: int = -1


def stamp_of(st: os.stat_result) -> FileStamp:
    return FileStamp(st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


class CorpusRecord(msgspec.Struct, frozen=True):
    """What a validating load found; trusted while documents.jsonl keeps ``documents``' stat."""

    format: int
    documents: FileStamp
    queries: FileStamp  # the queries validated against this corpus (another stat: checked again)
    documents_hash: str  # Project.documents_hash()
    corpus_hash: str  # Project.corpus_hash(), for the queries of ``queries``
    n_docs: int
    domains: list[str]


class Spans:
    """Every document's DocID and byte span, sorted by DocID (binary search), and the DocIDs in
    file order (iteration keeps the file's order, as a dict of the parsed file did)."""

    def __init__(self, ids: array, offsets: array, lengths: array, file_order: array):
        self.ids, self.offsets, self.lengths, self.file_order = ids, offsets, lengths, file_order

    @classmethod
    def from_file_order(cls, spans: list[tuple[int, int, int]]) -> "Spans":
        """From (doc_id, offset, length) in file order."""
        by_id = sorted(spans)
        return cls(array("q", (s[0] for s in by_id)), array("q", (s[1] for s in by_id)),
                   array("q", (s[2] for s in by_id)), array("q", (s[0] for s in spans)))

    def to_bytes(self) -> bytes:
        return b"".join(a.tobytes() for a in (self.ids, self.offsets, self.lengths, self.file_order))

    @classmethod
    def from_bytes(cls, data: bytes, n: int) -> "Spans":
        if len(data) != 4 * 8 * n:
            raise ValueError(f"{len(data)} bytes for {n} documents")
        parts = []
        for i in range(4):
            a = array("q")
            a.frombytes(data[8 * n * i: 8 * n * (i + 1)])
            parts.append(a)
        return cls(*parts)

    def span(self, doc_id: int) -> tuple[int, int] | None:
        i = bisect_left(self.ids, doc_id)
        if i == len(self.ids) or self.ids[i] != doc_id:
            return None
        return self.offsets[i], self.lengths[i]


def corpus_dir(state_dir: Path) -> Path:
    return state_dir / CORPUS_DIR


def read_record(state_dir: Path) -> tuple[CorpusRecord, Spans] | None:
    folder = corpus_dir(state_dir)
    try:
        record = msgspec.json.decode((folder / RECORD).read_bytes(), type=CorpusRecord)
    except FileNotFoundError:
        return None
    except (OSError, msgspec.DecodeError, msgspec.ValidationError) as exc:
        log.warning("%s does not load (%s); the documents are read whole", folder / RECORD, exc)
        return None
    if record.format != FORMAT:
        return None
    try:
        spans = Spans.from_bytes((folder / OFFSETS).read_bytes(), record.n_docs)
    except (OSError, ValueError) as exc:
        log.warning("%s does not load (%s); the documents are read whole", folder / OFFSETS, exc)
        return None
    return record, spans


def write_record(state_dir: Path, record: CorpusRecord, spans: Spans | None) -> None:
    """Offsets first, then the record that vouches for them (a load that finds a record finds its offsets)."""
    folder = corpus_dir(state_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if spans is not None:
            atomic_write_bytes(folder / OFFSETS, spans.to_bytes())
        atomic_write_bytes(folder / RECORD, msgspec.json.encode(record))
    except OSError:  # a read-only project is parsed whole on every load, as before
        pass


def forget_record(state_dir: Path) -> None:
    try:
        (corpus_dir(state_dir) / RECORD).unlink()
    except OSError:
        pass


class LazyDocuments(Mapping[int, Document]):
    """The corpus as a read-only mapping DocID → Document that parses a document when it is first
    asked for. ``fd`` is documents.jsonl as validated (its stat matched the record), held open so a
    file replaced meanwhile does not change what this project reads; closed with the mapping."""

    def __init__(self, path: Path, fd: int, spans: Spans, state_dir: Path):
        self._path, self._fd, self._spans, self._state_dir = path, fd, spans, state_dir
        self._decoder = msgspec.json.Decoder(Document)
        self._parsed: dict[int, Document] = {}
        self._all: dict[int, Document] | None = None
        self._id_set: frozenset[int] | None = None
        weakref.finalize(self, os.close, fd)

    def __len__(self) -> int:
        return len(self._spans.ids)

    def __iter__(self) -> Iterator[int]:
        return iter(self._spans.file_order)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self.keys()

    def keys(self) -> frozenset[int]:  # type: ignore[override]
        """The DocIDs as a set (made once): set operations over every DocID of a tier run in C.
        Iterating the mapping itself keeps the file's order."""
        if self._id_set is None:
            self._id_set = frozenset(self._spans.ids)
        return self._id_set

    def __getitem__(self, doc_id: int) -> Document:
        if self._all is not None:
            return self._all[doc_id]
        doc = self._parsed.get(doc_id)
        if doc is not None:
            return doc
        span = self._spans.span(doc_id) if isinstance(doc_id, int) else None
        if span is None:
            raise KeyError(doc_id)
        try:
            doc = self._decoder.decode(os.pread(self._fd, span[1], span[0]))
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            doc = None
        if doc is None or doc.doc_id != doc_id:
            return self._whole(f"the span of DocID {doc_id} does not hold it")[doc_id]
        self._parsed[doc_id] = doc
        return doc

    def values(self) -> ValuesView[Document]:
        return self._whole().values()

    def items(self) -> ItemsView[int, Document]:
        return self._whole().items()

    def _whole(self, damaged: str = "") -> dict[int, Document]:
        """Every document, parsed from the validated file in one pass (what values() and items() need)."""
        if self._all is None:
            if damaged:
                log.warning("%s: %s; the documents are read whole", corpus_dir(self._state_dir) / OFFSETS, damaged)
                forget_record(self._state_dir)
            data = _read_fd(self._fd)
            out: dict[int, Document] = {}
            for line in data.split(b"\n"):
                if line.strip():
                    doc = self._decoder.decode(line.removeprefix(b"\xef\xbb\xbf"))
                    out[doc.doc_id] = doc
            self._all = out
        return self._all


def _read_fd(fd: int) -> bytes:
    size = os.fstat(fd).st_size
    chunks, offset = [], 0
    while offset < size:
        chunk = os.pread(fd, min(size - offset, 1 << 24), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def open_trusted(path: Path, record: CorpusRecord, spans: Spans, state_dir: Path) -> LazyDocuments | None:
    """The documents, lazily, if documents.jsonl is still the file the record vouches for."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        same = stamp_of(os.fstat(fd)) == record.documents
    except OSError:
        same = False
    if not same:
        os.close(fd)
        return None
    return LazyDocuments(path, fd, spans, state_dir)


def read_whole(path: Path) -> tuple[bytes, FileStamp]:
    """The file's bytes and the stat of exactly what was read."""
    fd = os.open(path, os.O_RDONLY)
    try:
        return _read_fd(fd), stamp_of(os.fstat(fd))
    finally:
        os.close(fd)


def domains_of(documents: Any) -> list[str]:
    return sorted({d.domain for d in documents.values()})
