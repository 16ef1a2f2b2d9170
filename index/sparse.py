"""BM25 over one Tantivy index per corpus tier.

Schema: ``doc_id`` (u64: indexed, stored, fast) and one text field ``body`` = title + "\\n" + text,
analysed with Tantivy's built-in ``en_stem`` (lowercase + English stemming), positions recorded.
All segments of one index share one set of BM25 statistics (Tantivy sums N and token counts over
segments at search time), so the scores are those of this tier alone.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import tantivy

from ._analysis import EN_STEM, doc_body, query_terms

DOC_ID = "doc_id"
BODY = "body"
WRITER_HEAP_BYTES = 128_000_000
WRITER_THREADS = 1
PROGRESS_EVERY = 500


_TERM = re.compile(r'Term\(field=\d+, type=Str, "(.*)"\)$')


@dataclass(frozen=True)
class TermExplanation:
    """One query term's share of a document's BM25 score, as Tantivy's explanation states it:
    score = (k1 + 1) * idf * tf_norm, tf_norm = tf / (tf + k1 * (1 - b + b * doc_len / avg_len))."""

    term: str
    score: float
    idf: float
    doc_freq: int  # n: documents containing the term
    num_docs: int  # N
    tf: float  # occurrences in the document
    tf_norm: float  # the saturated, length-normalised term frequency
    doc_len: float
    avg_len: float


def _value(node: dict, starts: str) -> float:
    return float(next((d["value"] for d in node.get("details", []) if d["description"].startswith(starts)), 0.0))


def _term_explanation(node: dict) -> TermExplanation:
    idf = next(d for d in node["details"] if d["description"].startswith("idf"))
    norm = next(d for d in node["details"] if d["description"].startswith("freq /"))
    term = next((m.group(1) for c in node.get("context", []) if (m := _TERM.search(c))), "?")
    return TermExplanation(term=term, score=float(node["value"]), idf=float(idf["value"]), doc_freq=int(_value(idf, "n,")),
                           num_docs=int(_value(idf, "N,")), tf=_value(norm, "freq,"), tf_norm=float(norm["value"]),
                           doc_len=_value(norm, "dl,"), avg_len=_value(norm, "avgdl,"))


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field(DOC_ID, stored=True, indexed=True, fast=True)
    builder.add_text_field(BODY, stored=False, tokenizer_name=EN_STEM, index_option="position")
    return builder.build()


_OS_ERROR = re.compile(r"\(os error (\d+)\)")


@contextlib.contextmanager
def _os_errors(path: Path) -> Iterator[None]:
    """Tantivy reports a failing disk (full, read-only) as ValueError("An IO error occurred: 'No space
    left on device (os error 28)'"): raised as the OSError it is, naming the index folder."""
    try:
        yield
    except ValueError as exc:
        m = _OS_ERROR.search(str(exc))
        if m is None:
            raise
        raise OSError(int(m.group(1)), os.strerror(int(m.group(1))), str(path)) from None


class SparseIndex:
    """A read-only BM25 index. Build with :meth:`build`, then :meth:`open`."""

    def __init__(self, index: tantivy.Index, path: Path) -> None:
        self._index = index
        self._schema = index.schema
        self._searcher = index.searcher()
        self.path = path

    # ------------------------------------------------------------------ build
    @staticmethod
    def build(
        path: Path,
        docs: Iterable[tuple[int, str, str]],
        progress: Callable[[int], None] | None = None,
    ) -> None:
        """Index ``(doc_id, title, text)`` triples into directory ``path`` (created if missing).

        One commit at the end; merging threads are waited for before returning. Doc ids must be
        unique non-negative integers (duplicates raise ``ValueError``).
        """
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        with _os_errors(path):  # a full disk while writing segments: an OSError, never Tantivy's ValueError
            n = SparseIndex._write(path, docs, progress)
        if progress is not None:
            progress(n)

    @staticmethod
    def _write(path: Path, docs: Iterable[tuple[int, str, str]], progress: Callable[[int], None] | None) -> int:
        index = tantivy.Index(_schema(), path=str(path), reuse=False)
        writer = index.writer(heap_size=WRITER_HEAP_BYTES, num_threads=WRITER_THREADS)
        seen: set[int] = set()
        n = 0
        try:
            for doc_id, title, text in docs:
                doc_id = int(doc_id)
                if doc_id < 0:
                    raise ValueError(f"doc_id must be >= 0, got {doc_id}")
                if doc_id in seen:
                    raise ValueError(f"duplicate doc_id {doc_id}")
                seen.add(doc_id)
                doc = tantivy.Document()
                doc.add_unsigned(DOC_ID, doc_id)
                doc.add_text(BODY, doc_body(title, text))
                writer.add_document(doc)
                n += 1
                if progress is not None and n % PROGRESS_EVERY == 0:
                    progress(n)
        except BaseException:
            writer.rollback()
            raise
        writer.commit()
        writer.wait_merging_threads()
        return n

    # ------------------------------------------------------------------- open
    @classmethod
    def open(cls, path: Path) -> SparseIndex:
        path = Path(path)
        if not (path / "meta.json").is_file():
            raise FileNotFoundError(f"no Tantivy index at {path}")
        return cls(tantivy.Index.open(str(path)), path)

    @property
    def num_docs(self) -> int:
        return int(self._searcher.num_docs)

    # ----------------------------------------------------------------- search
    def _query(self, terms: list[str]) -> tantivy.Query:
        subqueries = [tantivy.Query.term_query(self._schema, BODY, t) for t in terms]
        if len(subqueries) == 1:
            return subqueries[0]
        return tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in subqueries])

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        """Top-``k`` ``(doc_id, bm25)`` best first; ties by doc_id ascending.

        Any query text is accepted (no query-parser syntax): it is analysed like the documents,
        English stopwords dropped, and the distinct terms OR-ed. No terms -> ``[]``.
        """
        if k <= 0:
            return []
        terms = query_terms(query)
        n_docs = self.num_docs
        if not terms or n_docs == 0:
            return []
        q = self._query(terms)
        limit = min(n_docs, k + max(10, k))
        while True:
            hits = self._searcher.search(q, limit=limit, count=False).hits
            # Tantivy orders equal scores by its internal address, not by our doc_id: fetch past
            # the k-th score until the tie group at the cut is complete, then sort ourselves.
            if len(hits) < limit or limit >= n_docs or hits[-1][0] < hits[min(k, len(hits)) - 1][0]:
                break
            limit = min(n_docs, limit * 2)
        if not hits:
            return []
        ids = self._searcher.fast_field_values(DOC_ID, [addr for _, addr in hits])
        ranked = sorted(
            ((int(doc_id), float(score)) for (score, _), doc_id in zip(hits, ids, strict=True)),
            key=lambda p: (-p[1], p[0]),
        )
        return ranked[:k]

    # ---------------------------------------------------------------- explain
    @staticmethod
    def terms(query: str) -> list[str]:
        """The distinct analysed terms :meth:`search` ORs for ``query``."""
        return query_terms(query)

    def explain(self, query: str, doc_id: int) -> tuple[float, list[TermExplanation]] | None:
        """Why ``doc_id`` scores what it does for ``query`` (the query :meth:`search` runs): its
        score and each matching term's share, from Tantivy's own explanation (``Query.explain``).
        A document none of the terms match scores 0 with no terms; one not in the index: None."""
        found = self._searcher.search(tantivy.Query.term_query(self._schema, DOC_ID, int(doc_id)), limit=1).hits
        if not found:
            return None
        terms = query_terms(query)
        if not terms:
            return 0.0, []
        try:
            tree = json.loads(self._query(terms).explain(self._searcher, found[0][1]).to_json())
        except ValueError:  # Tantivy explains a document the query does not match as an error
            return 0.0, []
        nodes = tree["details"] if tree["description"].startswith("BooleanClause") else [tree]
        return float(tree["value"]), [_term_explanation(n) for n in nodes if n["description"].startswith("TermQuery")]
