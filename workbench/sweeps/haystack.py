"""Contexts made of the project's own documents: padding to a token target, evidence placed by depth.

Two ways to place evidence, both measured in tokens of the serialised context:
- whole gold documents between padding documents (volume sweep);
- single fact sentences planted at sentence boundaries inside padding documents (depth and
  distribution sweeps), so a planted fact never splits a sentence.

Padding is taken in a seeded order and always as a prefix of that order: a longer arm contains
every passage of a shorter one (volume grows, nothing else changes). The last passage is cut at a
sentence boundary to land on the target.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

from workbench.correctness import contains_match, normalize
from workbench.project.files import Project
from workbench.records import Document, Query
from workbench.tokens import count_tokens, doc_tokens, serialize_doc

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def sentence_ends(text: str) -> list[int]:
    """Character offsets where a sentence ends (after its final punctuation), the text's end included."""
    ends = [m.start() for m in _SENTENCE_END.finditer(text)]
    if not ends or ends[-1] != len(text.rstrip()):
        ends.append(len(text.rstrip()))
    return ends


def padding_pool(project: Project, domain: str | None, exclude: set[int], answers: list[str]) -> list[int]:
    """Sorted DocIDs usable as padding: same domain (None = any), not excluded, not containing an answer."""
    out = []
    for d in project.documents.values():
        if domain is not None and d.domain != domain:
            continue
        if d.doc_id in exclude:
            continue
        body = f"{d.title} {d.text}"
        if any(normalize(a) and contains_match(body, a) for a in answers):
            continue  # a passage that states an answer would answer
        out.append(d.doc_id)
    return sorted(out)


def query_padding_pool(project: Project, q: Query) -> list[int]:
    """Same-domain passages that do not answer q: its gold and its hard negatives excluded."""
    return padding_pool(project, q.domain or None, set(q.gold_doc_ids) | set(q.hard_negative_ids), [q.answer])


def truncate_to(doc: Document, budget: int, tokenizer: str) -> Document | None:
    """The document cut after the last whole sentence that keeps it within budget tokens (None: not even one)."""
    best = None
    for end in sentence_ends(doc.text):
        cut = Document(doc.doc_id, doc.title, doc.text[:end], doc.domain, doc.source_id)
        if doc_tokens(cut, tokenizer) > budget:
            break
        best = cut
    return best


class NotEnoughPadding(ValueError):
    pass


def fill(project: Project, order: list[int], budget: int, tokenizer: str) -> list[Document]:
    """A prefix of ``order`` totalling about ``budget`` tokens (the last passage cut at a sentence)."""
    docs: list[Document] = []
    used = 0
    for doc_id in order:
        if used >= budget:
            break
        doc = project.documents[doc_id]
        t = doc_tokens(doc, tokenizer)
        if used + t <= budget:
            docs.append(doc)
            used += t
            continue
        cut = truncate_to(doc, budget - used, tokenizer)
        if cut is not None:
            docs.append(cut)
            used += doc_tokens(cut, tokenizer)
        break
    else:
        if used < budget * 0.95:
            raise NotEnoughPadding(f"only {used} tokens of padding available, {budget} needed")
    return docs


def place_documents(padding: list[Document], evidence: list[tuple[Document, float]], tokenizer: str) -> list[Document]:
    """Evidence documents inserted between padding documents at the boundary nearest each token depth
    (0 = before all padding, 1 = after it)."""
    starts, total = [], 0
    for d in padding:
        starts.append(total)
        total += doc_tokens(d, tokenizer)
    starts.append(total)  # the end: after the last padding document
    slots = []
    for i, (_, depth) in enumerate(evidence):
        target = depth * total
        slots.append((min(range(len(starts)), key=lambda j: abs(starts[j] - target)), i))
    out = list(padding)
    for slot, i in sorted(slots, reverse=True):  # from the back, so earlier slots keep their index
        out.insert(slot, evidence[i][0])
    return out


def doc_depths(docs: list[Document], ids: list[int], tokenizer: str) -> list[float]:
    """Token depth of the start of each listed document in the serialised context."""
    starts: dict[int, int] = {}
    total = 0
    for d in docs:
        starts.setdefault(d.doc_id, total)
        total += doc_tokens(d, tokenizer)
    return [round(starts[i] / total, 4) if total else 0.0 for i in ids]


@dataclass(frozen=True)
class Boundary:
    doc_index: int
    char_pos: int  # insert position in the document's text
    token_offset: int  # tokens of the context before this point


def boundaries(docs: list[Document], tokenizer: str) -> tuple[list[Boundary], int]:
    """Every sentence boundary of the context (each text's start and every sentence end), in order."""
    out: list[Boundary] = []
    offset = 0
    for i, d in enumerate(docs):
        header = count_tokens(serialize_doc(Document(d.doc_id, d.title, "", d.domain)), tokenizer)
        offset += header
        out.append(Boundary(i, 0, offset))
        prev = 0
        for end in sentence_ends(d.text):
            offset += count_tokens(d.text[prev:end], tokenizer)
            out.append(Boundary(i, end, offset))
            prev = end
        offset += 1  # separator
    return out, offset


def plant(docs: list[Document], facts: list[tuple[str, float]], tokenizer: str) -> tuple[list[Document], list[float]]:
    """Fact sentences planted at the sentence boundary nearest each depth. Returns (docs, actual depths)."""
    bounds, total = boundaries(docs, tokenizer)
    offsets = [b.token_offset for b in bounds]
    chosen: list[Boundary] = []
    for _, depth in facts:
        target = depth * total
        j = bisect_left(offsets, target)
        cands = [k for k in (j - 1, j) if 0 <= k < len(bounds)]
        chosen.append(bounds[min(cands, key=lambda k: abs(offsets[k] - target))])
    inserts: dict[int, list[tuple[int, str]]] = {}
    for (sentence, _), b in zip(facts, chosen):
        inserts.setdefault(b.doc_index, []).append((b.char_pos, sentence))
    out = list(docs)
    for i, items in inserts.items():
        text = out[i].text
        for pos, sentence in sorted(items, key=lambda x: x[0], reverse=True):
            if pos == 0:
                text = f"{sentence} {text}"
            else:
                text = f"{text[:pos]} {sentence}{text[pos:]}"
        d = out[i]
        out[i] = Document(d.doc_id, d.title, text, d.domain, d.source_id)
    return out, [round(b.token_offset / total, 4) if total else 0.0 for b in chosen]


def answer_sentence(doc: Document, answer: str) -> str | None:
    """The sentence of a document that states the answer (how a project's needle becomes a plantable fact)."""
    prev = 0
    for end in sentence_ends(doc.text):
        s = doc.text[prev:end].strip()
        prev = end
        if contains_match(s, answer):
            return s
    return None
