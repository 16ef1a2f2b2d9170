"""Which corpus document each traced document is, the way production identified it.

In order: the span's own document id when the corpus knows it (`id`); the value under `--doc-id-key` in the document's
metadata (`metadata`: OpenInference's JSON string, OpenLLMetry's object, Phoenix's flattened
keys); with neither, its content matched against the corpus text — exact (`content`), then
with whitespace and escapes normalised (`normalised`), then as the start of exactly one corpus
document, or one corpus document's start of it (`prefix`). What matches nothing, or more than one
document, stays `unresolved`: counted per trace, left out of the ranking, never a refused file.
"""

from __future__ import annotations

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


class Corpus:
    def __init__(self, project: Project) -> None:
        # ids the corpus knows, as a source id or a DocID: any other id (LlamaIndex's random node
        # ids) says nothing, and the document is looked for by its content
        self.known = set(source_id_map(project)) | {str(i) for i in project.documents}
        self.exact: dict[str, list[int]] = {}
        self.normal: dict[str, list[int]] = {}
        for d in project.documents.values():
            self.exact.setdefault(d.text, []).append(d.doc_id)
            self.normal.setdefault(normal(d.text), []).append(d.doc_id)
        self.texts = list(self.normal.items())

    def by_content(self, content: str) -> tuple[int | None, How]:
        exact = self.exact.get(content) or self.normal.get(normal(content))
        if exact:
            how: How = "content" if content in self.exact else "normalised"
            return (exact[0], how) if len(exact) == 1 else (None, "unresolved")
        n = normal(content)
        if len(n) < MIN_PREFIX:
            return None, "unresolved"
        starts = [ids for text, ids in self.texts if len(text) >= MIN_PREFIX and (text.startswith(n) or n.startswith(text))]
        return (starts[0][0], "prefix") if len(starts) == 1 and len(starts[0]) == 1 else (None, "unresolved")


def meta_id(d: TraceDoc, key: str) -> str | None:
    v = (d.metadata or {}).get(key)
    if isinstance(v, bool) or not isinstance(v, (str, int)) or not str(v).strip():
        return None
    return str(v).strip()


def resolve_doc(d: TraceDoc, corpus: Corpus, doc_id_key: str | None) -> tuple[TraceDoc, How]:
    if doc_id_key:
        found = meta_id(d, doc_id_key)
        if found is not None:
            return msgspec.structs.replace(d, id=found), "metadata"
    if d.id is not None and (d.id in corpus.known or not (d.content and d.content.strip())):
        return d, "id"
    if d.content and d.content.strip():
        docid, how = corpus.by_content(d.content)
        if docid is not None:
            return msgspec.structs.replace(d, id=f"{RESOLVED}{docid}"), how
    # an id the corpus lacks stays an id: reported as an unknown document (and added on request)
    return d, "id" if d.id is not None else "unresolved"


def resolve_traces(project: Project, found: list[ProductionTrace], doc_id_key: str | None
                   ) -> tuple[list[ProductionTrace], list[Resolution]]:
    """The traces with every document they could resolve given an id; how, per trace."""
    corpus = Corpus(project)
    out, report = [], []
    for t in found:
        counts: dict[str, int] = {}
        unresolved: list[str] = []
        memo: dict[int, TraceDoc] = {}

        def fix(docs: list[TraceDoc] | None) -> list[TraceDoc] | None:
            if docs is None:
                return None
            fixed = []
            for d in docs:
                if id(d) not in memo:
                    new, how = resolve_doc(d, corpus, doc_id_key)
                    memo[id(d)] = new
                    counts[how] = counts.get(how, 0) + 1
                    if how == "unresolved":
                        unresolved.append((d.content or d.title or "(no content)")[:60])
                fixed.append(memo[id(d)])
            return fixed

        ranking = fix(t.ranking)
        reranked = fix(t.reranked)
        stage = fix(t.stage)
        out.append(msgspec.structs.replace(t, ranking=ranking, reranked=reranked, stage=stage))
        report.append(Resolution(t.trace_id, t.where, counts, unresolved))
    return out, report
