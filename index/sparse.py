"""BM25 over one Tantivy index per corpus tier.

Schema: ``doc_id`` (u64: indexed, stored, fast) and one text field ``body`` = title + "\\n" + text,
analysed with Tantivy's built-in ``en_stem`` (lowercase + English stemming), positions recorded.
All segments of one index share one set of BM25 statistics (Tantivy sums N and token counts over
segments at search time), so the scores are those of this tier alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import tantivy

from ._analysis import EN_STEM, doc_body, query_terms

DOC_ID = "doc_id"
BODY = "body"
WRITER_HEAP_BYTES = 128_000_000
WRITER_THREADS = 1
PROGRESS_EVERY = 500


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field(DOC_ID, stored=True, indexed=True, fast=True)
    builder.add_text_field(BODY, stored=False, tokenizer_name=EN_STEM, index_option="position")
    return builder.build()


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
        if progress is not None:
            progress(n)

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
