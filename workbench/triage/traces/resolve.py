"""Which corpus document each traced document is, the way production identified it.

In order: the value under `--doc-id-key` in the document's metadata (`metadata`: OpenInference's
JSON string, OpenLLMetry's object, Phoenix's flattened keys); the span's own document id when the
corpus knows it and the span's text, if any, does not say it is another document (`id`: a
ColBERT passage id or a row number is no DocID just because it is a number); an id under a common
metadata key (`id`, `doc_id`, `source_id`, …) the corpus knows (`metadata`); its content matched
against the corpus text, as frameworks write it (`title | text`, `title\ntext`, or the text alone)
— exact (`content`), then with whitespace and escapes normalised (`normalised`), then as the start
of exactly one corpus document, or one corpus document's start of it (`prefix`). What matches
nothing, or more than one document, stays `unresolved`: counted per trace, left out of the
ranking, never a refused file. An unresolved document with text gets an id made from it
(`content:` + hash), so `--add-unknown-documents` can add it like a document with an unknown id;
an unresolved ranked document makes the trace's ranking unresolved (unknown, not shortened).
"""

from __future__ import annotations

import hashlib
from typing import Literal

import msgspec

from workbench.project.files import Project
from workbench.project.labels import source_id_map
from workbench.triage.traces.conventions import ProductionTrace, TraceDoc
from workbench.triage.traces.textmatch import normal

How = Literal["id", "metadata", "content", "normalised", "prefix", "unresolved"]
HOWS: tuple[How, ...] = ("id", "metadata", "content", "normalised", "prefix", "unresolved")
RESOLVED = "\x00docid:"  # a document resolved to a DocID here (never a real id: ids are stripped text)
MIN_PREFIX = 40  # a shorter text is too little to say which document it starts


class Resolution(msgspec.Struct, frozen=True):
    trace_id: str
    where: str
    counts: dict[str, int]  # how → documents
    unresolved: list[str]  # a short quote of each document that matched nothing


ID_KEYS = ("id", "doc_id", "document_id", "docid", "source_id", "corpus_id", "_id", "pid", "passage_id", "chunk_id", "source")
CONTENT_ID = "content:"  # the id of a document known by its text alone
_SPLITS = (" | ", "\n")  # `title | text` (DSPy, ColBERT collections), `title\ntext`


class Corpus:
    def __init__(self, project: Project) -> None:
        # ids the corpus knows, as a source id or a DocID: any other id (LlamaIndex's random node
        # ids) says nothing, and the document is looked for by its content
        self.by_source = source_id_map(project)
        self.known = set(self.by_source) | {str(i) for i in project.documents}
        self.exact: dict[str, list[int]] = {}
        self.normal: dict[str, list[int]] = {}
        self.heads: dict[str, list[int]] = {}  # the first MIN_PREFIX normalised characters → DocIDs
        self.titles: dict[str, list[int]] = {}
        for d in project.documents.values():
            self.exact.setdefault(d.text, []).append(d.doc_id)
            n = normal(d.text)
            self.normal.setdefault(n, []).append(d.doc_id)
            if len(n) >= MIN_PREFIX:
                self.heads.setdefault(n[:MIN_PREFIX], []).append(d.doc_id)
            self.titles.setdefault(normal(d.title).casefold(), []).append(d.doc_id)
        self.texts = {doc_id: n for n, ids in self.normal.items() for doc_id in ids}

    def ids_of(self, did: str) -> set[int]:
        """The DocIDs an id may name: a source id, or a DocID."""
        out = {self.by_source[did]} if did in self.by_source else set()
        if did.isdigit() and int(did) in self.texts:
            out.add(int(did))
        return out

    def by_content(self, content: str) -> tuple[int | None, How]:
        docid, how = self._by_text(content)
        if docid is not None:
            return docid, how
        for sep in _SPLITS:  # `title | text`: the text after the title, when the title is a corpus title too
            title, found, text = content.partition(sep)
            if found and text.strip() and normal(title).casefold() in self.titles:
                docid, how = self._by_text(text)
                if docid is not None:
                    return docid, how
        return None, "unresolved"

    def _by_text(self, content: str) -> tuple[int | None, How]:
        exact = self.exact.get(content) or self.normal.get(normal(content))
        if exact:
            how: How = "content" if content in self.exact else "normalised"
            return (exact[0], how) if len(exact) == 1 else (None, "unresolved")
        n = normal(content)
        if len(n) < MIN_PREFIX:
            return None, "unresolved"
        starts = {d for d in self.heads.get(n[:MIN_PREFIX], []) if self.texts[d].startswith(n) or n.startswith(self.texts[d])}
        return (starts.pop(), "prefix") if len(starts) == 1 else (None, "unresolved")


def meta_id(d: TraceDoc, key: str) -> str | None:
    v = (d.metadata or {}).get(key)
    if isinstance(v, bool) or not isinstance(v, (str, int)) or not str(v).strip():
        return None
    return str(v).strip()


def content_id(content: str) -> str:
    return CONTENT_ID + hashlib.sha256(normal(content).encode()).hexdigest()[:16]


def resolve_doc(d: TraceDoc, corpus: Corpus, doc_id_key: str | None) -> tuple[TraceDoc, How]:
    if doc_id_key:
        found = meta_id(d, doc_id_key)
        if found is not None:
            return msgspec.structs.replace(d, id=found), "metadata"
    text = d.content if d.content and d.content.strip() else None
    by_text = corpus.by_content(text) if text else (None, "unresolved")
    if d.id is not None and d.id in corpus.known and (by_text[0] is None or by_text[0] in corpus.ids_of(d.id)):
        return d, "id"  # a known id its text does not contradict
    if text is None or by_text[0] is None:
        for key in ID_KEYS:  # an id under a common metadata key, when the corpus knows it
            found = meta_id(d, key)
            if found is not None and found in corpus.known:
                return msgspec.structs.replace(d, id=found), "metadata"
    if by_text[0] is not None:
        return msgspec.structs.replace(d, id=f"{RESOLVED}{by_text[0]}"), by_text[1]
    if d.id is not None and d.id not in corpus.known:
        # an id the corpus lacks stays an id: reported as an unknown document (and added on request)
        return d, "id"
    if text is not None:  # known by its text alone: an id from it, so it can be reported and added
        return msgspec.structs.replace(d, id=content_id(text)), "unresolved"
    return d, "id" if d.id is not None else "unresolved"


def resolve_traces(project: Project, found: list[ProductionTrace], doc_id_key: str | None
                   ) -> tuple[list[ProductionTrace], list[Resolution]]:
    """The traces with every document they could resolve given an id; how, per trace. A ranking
    holding an unresolved document is marked `ranking_unresolved` (its figures are unknown)."""
    corpus = corpus_of(project)
    out, report = [], []
    for t in found:
        counts: dict[str, int] = {}
        unresolved: list[str] = []
        memo: dict[int, tuple[TraceDoc, How]] = {}

        def fix(docs: list[TraceDoc] | None) -> list[TraceDoc] | None:
            if docs is None:
                return None
            fixed = []
            for d in docs:
                if id(d) not in memo:
                    new, how = resolve_doc(d, corpus, doc_id_key)
                    memo[id(d)] = (new, how)
                    counts[how] = counts.get(how, 0) + 1
                    if how == "unresolved":
                        unresolved.append((d.content or d.title or "(no content)")[:60])
                fixed.append(memo[id(d)][0])
            return fixed

        ranking = fix(t.ranking)
        reranked = fix(t.reranked)
        stage = fix(t.stage)
        lost = any(memo[id(d)][1] == "unresolved" for d in (t.ranking or []))
        out.append(msgspec.structs.replace(t, ranking=ranking, reranked=reranked, stage=stage,
                                           ranking_unresolved=t.ranking_unresolved or lost))
        report.append(Resolution(t.trace_id, t.where, counts, unresolved))
    return out, report


_CORPORA: dict[str, Corpus] = {}


def corpus_of(project: Project) -> Corpus:
    """The corpus lookups, built once per documents hash (a collector imports again and again)."""
    key = project.documents_hash()
    if key not in _CORPORA:
        _CORPORA.clear()  # one corpus kept: the lookups hold every text twice
        _CORPORA[key] = Corpus(project)
    return _CORPORA[key]


def settle_ranking(t: ProductionTrace, mapping: dict[str, int]) -> ProductionTrace:
    """Once documents are mapped (and unknown ones added on request): a ranked document known by its
    text alone (no id, or a content id) and still without a DocID leaves the ranking unresolved —
    left out it would shift every rank below it; one added by --add-unknown-documents settles it.
    (An id the corpus lacks is an unknown document, reported as such.)"""
    if not t.ranking:
        return t
    by_text = [d for d in t.ranking if d.id is None or d.id.startswith(CONTENT_ID)]
    if any(d.id is None or d.id not in mapping for d in by_text):
        return t if t.ranking_unresolved else msgspec.structs.replace(t, ranking_unresolved=True)
    if t.ranking_unresolved and by_text and all(d.id is not None and d.id in mapping for d in t.ranking):
        return msgspec.structs.replace(t, ranking_unresolved=False)  # what made it unresolved was added
    return t
