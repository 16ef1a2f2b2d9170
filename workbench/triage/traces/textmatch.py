"""Text as compared when a document is looked for: in the corpus (resolve.py) or in a prompt
(context.py). A prompt may hold a document's text as a Python list repr (LlamaIndex's
`simple_summarize`) or JSON-escaped (a serialised message): one level of escapes is undone,
then NFKC (a thin space is a space) and whitespace collapsed, on both sides alike."""

from __future__ import annotations

import re
import unicodedata

_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[nrt'\"\\])")
_SIMPLE = {"n": " ", "r": " ", "t": " ", "'": "'", '"': '"', "\\": "\\"}
PREFIX_CHARS = 200  # a document counts as quoted when this much of its start (normalised) is


def _unescape(m: re.Match[str]) -> str:
    e = m.group(1)
    return chr(int(e[1:], 16)) if e[0] in "ux" else _SIMPLE[e]


def normal(text: str) -> str:
    t = _ESCAPE.sub(_unescape, text)
    t = unicodedata.normalize("NFKC", t)
    return re.sub(r"\s+", " ", t).strip()


_HEADS: dict[str, str] = {}  # a document's text → its normalised opening: the same documents recur trace after trace
_HEADS_KEPT = 4096


def normal_head(doc_text: str) -> str:
    """normal(doc_text)[:PREFIX_CHARS], remembered for the documents seen last."""
    found = _HEADS.get(doc_text)
    if found is None:
        if len(_HEADS) >= _HEADS_KEPT:
            _HEADS.clear()
        found = _HEADS[doc_text] = normal(doc_text)[:PREFIX_CHARS]
    return found


def quoted(doc_text: str, prompt_normal: str) -> bool:
    """Is the document's text (not a mention of its title) in the prompt, already normal()-ised."""
    n = normal_head(doc_text)
    return bool(n) and n in prompt_normal
