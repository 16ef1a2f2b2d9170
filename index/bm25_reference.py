"""Pure-Python BM25 that reproduces Tantivy's scoring, for tests and benchmarks.

Tantivy (``src/query/bm25.rs``) scores a term as

    idf(t) * (k1 + 1) * tf / (tf + k1 * (1 - b + b * dl / avgdl))
    idf(t) = ln(1 + (N - n_t + 0.5) / (n_t + 0.5))

with N = documents in the index, n_t = documents containing t, avgdl = total tokens / N (exact
counts), and dl the document's *quantised* field length: lengths are stored on one byte
(Lucene's scheme; exact up to 40, then a log scale), rounded down to the table entry. We apply
the same table. Tantivy computes in float32, this module in float64: scores agree to ~1e-6
relative.
"""

from __future__ import annotations

import bisect
import math
from collections import Counter

from ._analysis import doc_body, query_terms, tokenize

__all__ = ["ReferenceBM25", "tokenize", "query_terms", "quantize_fieldnorm"]


def _fieldnorm_table() -> list[int]:
    # Tantivy's FIELD_NORMS_TABLE: ids < 24 are the identity; above, 24 + a 3-bit-mantissa float.
    out = []
    for b in range(256):
        if b < 24:
            out.append(b)
        else:
            e = b - 24
            bits, shift = e & 0b111, e >> 3
            out.append(24 + (bits if shift == 0 else (bits | 8) << (shift - 1)))
    return out


FIELD_NORMS_TABLE = _fieldnorm_table()


def quantize_fieldnorm(length: int) -> int:
    """The length Tantivy's BM25 sees for a document of ``length`` tokens."""
    return FIELD_NORMS_TABLE[bisect.bisect_right(FIELD_NORMS_TABLE, length) - 1]


class ReferenceBM25:
    """In-memory BM25 over ``(doc_id, title, text)``, tokenised like :class:`SparseIndex`."""

    def __init__(self, docs: list[tuple[int, str, str]], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self.doc_ids: list[int] = []
        self.lengths: list[int] = []
        self.postings: dict[str, list[tuple[int, int]]] = {}
        total = 0
        for i, (doc_id, title, text) in enumerate(docs):
            toks = tokenize(doc_body(title, text))
            self.doc_ids.append(int(doc_id))
            self.lengths.append(len(toks))
            total += len(toks)
            for term, tf in Counter(toks).items():
                self.postings.setdefault(term, []).append((i, tf))
        self.num_docs = len(self.doc_ids)
        self.avgdl = total / self.num_docs if self.num_docs else 0.0
        self._norm = [
            k1 * (1 - b + b * quantize_fieldnorm(n) / self.avgdl) if self.avgdl else k1
            for n in self.lengths
        ]
        self._pos = {d: i for i, d in enumerate(self.doc_ids)}

    def idf(self, term: str) -> float:
        n = len(self.postings.get(term, ()))
        return math.log(1 + (self.num_docs - n + 0.5) / (n + 0.5))

    def _scores(self, query: str) -> dict[int, float]:
        acc: dict[int, float] = {}
        for term in query_terms(query):
            plist = self.postings.get(term)
            if not plist:
                continue
            w = self.idf(term) * (self.k1 + 1)
            norm = self._norm
            for i, tf in plist:
                acc[i] = acc.get(i, 0.0) + w * tf / (tf + norm[i])
        return acc

    def score(self, query: str, doc_id: int) -> float:
        """BM25 of one document (0.0 when no query term occurs in it)."""
        return self._scores(query).get(self._pos[int(doc_id)], 0.0)

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        """Top-``k`` ``(doc_id, score)`` best first, ties by doc_id ascending."""
        if k <= 0:
            return []
        acc = self._scores(query)
        ranked = sorted(((self.doc_ids[i], s) for i, s in acc.items()), key=lambda p: (-p[1], p[0]))
        return ranked[:k]
