"""Reranker scores by (reranker identity, query text hash, document content hash).

A tier's rerank reuses every score a smaller tier (or a shallower depth, or another base system)
already paid for: the key holds no tier, base system or rank. Only scores a scorer returned are
stored (a failed or malformed endpoint answer never is), and each query's scores are committed as
soon as they exist, so an interrupted rerank resumes where it stopped.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from index.embedding_cache import open_sqlite
from workbench.fsutil import checked_database, sha256_bytes
from workbench.records import Document

CACHE_DIR = "rerank_cache"
CACHE_FILE = "scores.sqlite"


def document_text(doc: Document) -> str:
    """What a reranker reads of a document (its content hash is the cache's key)."""
    return f"{doc.title}\n{doc.text}" if doc.title else doc.text


def text_hash(text: str) -> str:
    return sha256_bytes(text.encode())[:24]


def _setup(db: sqlite3.Connection) -> None:
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE IF NOT EXISTS scores (scorer TEXT NOT NULL, query TEXT NOT NULL, doc TEXT NOT NULL, "
               "score REAL NOT NULL, PRIMARY KEY (scorer, query, doc))")
    db.execute("SELECT 1 FROM scores LIMIT 1").fetchall()


class ScoreCache:
    def __init__(self, path: Path, root: Path | None = None):
        if root is not None:  # the project: a symlinked file or folder never becomes our database
            checked_database(path, root)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = open_sqlite(path, _setup)
        self.lock = threading.Lock()

    @classmethod
    def for_state_dir(cls, state_dir: Path) -> "ScoreCache":
        return cls(state_dir / CACHE_DIR / CACHE_FILE, root=state_dir.parent)

    def get_many(self, scorer: str, query: str, docs: list[str]) -> dict[str, float]:
        """Known scores of these document hashes for this query hash."""
        out: dict[str, float] = {}
        with self.lock:
            for i in range(0, len(docs), 500):
                part = docs[i:i + 500]
                rows = self.db.execute(
                    f"SELECT doc, score FROM scores WHERE scorer = ? AND query = ? AND doc IN ({','.join('?' * len(part))})",
                    [scorer, query, *part]).fetchall()
                out.update(dict(rows))
        return out

    def put_many(self, scorer: str, query: str, scores: dict[str, float]) -> None:
        with self.lock, self.db:
            self.db.executemany("INSERT OR REPLACE INTO scores VALUES (?, ?, ?, ?)",
                                [(scorer, query, d, s) for d, s in scores.items()])

    def __len__(self) -> int:
        with self.lock:
            return int(self.db.execute("SELECT COUNT(*) FROM scores").fetchone()[0])

    def close(self) -> None:
        with self.lock:
            self.db.close()
