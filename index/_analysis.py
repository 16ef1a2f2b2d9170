"""The one English analyzer shared by the Tantivy index and the pure-Python BM25 reference.

Tantivy's built-in ``en_stem`` tokenizer is
``SimpleTokenizer -> RemoveLongFilter(40) -> LowerCaser -> Stemmer(English)``.
The index field uses that built-in by name (so an index opened by any Tantivy client analyses the
same way); queries and the reference are analysed with an identical chain built through
``TextAnalyzerBuilder`` (``test_index_sparse`` checks the two agree term for term).

Queries additionally drop English stopwords (Tantivy's built-in list) *before* stemming, so a
stopword-only query is empty. Documents keep their stopwords: document lengths (BM25 fieldnorms)
count every token, exactly as Tantivy does.
"""

from __future__ import annotations

import threading

import tantivy

EN_STEM = "en_stem"
REMOVE_LONG_LIMIT = 40

_local = threading.local()


def _analyzers() -> tuple[tantivy.TextAnalyzer, tantivy.TextAnalyzer]:
    pair = getattr(_local, "pair", None)
    if pair is None:
        doc = (
            tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
            .filter(tantivy.Filter.remove_long(REMOVE_LONG_LIMIT))
            .filter(tantivy.Filter.lowercase())
            .filter(tantivy.Filter.stemmer("english"))
            .build()
        )
        query = (
            tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
            .filter(tantivy.Filter.remove_long(REMOVE_LONG_LIMIT))
            .filter(tantivy.Filter.lowercase())
            .filter(tantivy.Filter.stopword("english"))
            .filter(tantivy.Filter.stemmer("english"))
            .build()
        )
        pair = (doc, query)
        _local.pair = pair
    return pair


def tokenize(text: str) -> list[str]:
    """Tokens of a document exactly as Tantivy's ``en_stem`` indexes them."""
    return _analyzers()[0].analyze(text)


def query_terms(text: str) -> list[str]:
    """Distinct query terms (first-occurrence order): en_stem tokens minus English stopwords."""
    seen: dict[str, None] = {}
    for tok in _analyzers()[1].analyze(text):
        seen.setdefault(tok, None)
    return list(seen)


def doc_body(title: str, text: str) -> str:
    """The single indexed text of a document."""
    return f"{title}\n{text}"
