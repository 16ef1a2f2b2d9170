"""Documents in the shapes frameworks write them, wherever a span holds a list of them: objects
with the text under `content` / `page_content` / `text` / `passage` / `long_text` / `chunk` (title
and text in separate fields, LangChain's serialised Document with its `metadata`), `{"documents":
[…]}` wrappers, or plain strings (DSPy's passages, often `title | text`). Every field that is not
the text or the title is kept as metadata, where resolve.py looks for an id under common keys."""

from __future__ import annotations

import json
from typing import Any

TEXT_KEYS = ("content", "page_content", "text", "passage", "long_text", "chunk", "document", "body")
WRAPPER_KEYS = ("documents", "docs", "passages", "contexts", "context", "chunks", "results", "nodes", "source_nodes",
                "retrieved", "hits")
MIN_TEXT = 40  # a list of strings counts as documents only when each is this long (not a list of names)


def decoded(value: Any) -> Any:
    if isinstance(value, str) and value.lstrip()[:1] in ("[", "{"):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return None
    return value


def _text_of(d: dict) -> str | None:
    for k in TEXT_KEYS:
        v = d.get(k)
        if isinstance(v, str) and v.strip():
            return v
        if isinstance(v, dict):  # {"document": {"content": …}} / {"node": {"text": …}}
            inner = _text_of(v)
            if inner:
                return inner
    node = d.get("node")
    return _text_of(node) if isinstance(node, dict) else None


def document_rows(value: Any, strings: bool = False, depth: int = 0) -> list[dict] | None:
    """A list of documents as `{id, score, content, title, metadata}` rows; None when `value` is none.
    ``strings``: a list of plain strings counts (the span is known to be a retriever's)."""
    value = decoded(value)
    if depth > 3:
        return None
    if isinstance(value, dict):
        for k in WRAPPER_KEYS:
            if k in value:
                found = document_rows(value[k], strings, depth + 1)
                if found is not None:
                    return found
        return None
    if not isinstance(value, list) or not value:
        return None
    if all(isinstance(v, str) for v in value):
        if strings or all(len(v) >= MIN_TEXT for v in value):
            return [{"content": v} for v in value]
        return None
    if not all(isinstance(v, dict) for v in value) or not any(_text_of(v) for v in value):
        return None
    if all("role" in v for v in value):  # chat messages, not documents
        return None
    rows = []
    for v in value:
        meta = dict(v.get("metadata")) if isinstance(v.get("metadata"), dict) else {}
        node = v.get("node") if isinstance(v.get("node"), dict) else {}
        for k, x in {**node, **v}.items():
            if k not in TEXT_KEYS and k not in ("metadata", "node", "score", "id") and isinstance(x, (str, int, float)):
                meta.setdefault(k, x)
        title = v.get("title") if isinstance(v.get("title"), str) else meta.get("title")
        score = v.get("score", node.get("score"))
        rows.append({"id": v.get("id", node.get("id_")), "score": score, "content": _text_of(v),
                     "title": title if isinstance(title, str) else None, "metadata": meta or None})
    return rows
