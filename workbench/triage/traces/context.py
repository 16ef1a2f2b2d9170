"""What production's LLM read is what its prompt quotes: the corpus documents whose text appears in
the prompt it was sent, found against the WHOLE project corpus (phrases.documents_index), not only
among the documents a retriever span lists, so the context is known when the retriever span is
missing, truncated, or from an earlier hop (multi-hop: the union of what the prompt holds). A
document of the stage before the LLM is also found by its own span text (production's copy may
differ from ours). A title or an id mentioned inside another document's text is no quote: only a
document's own text counts (textmatch.quoted), and a document found inside another found one is
not counted twice (phrases.outermost).

No prompt recorded: all of the stage's documents (nothing says otherwise). A quoted document that
cannot be named, or a prompt that quotes none: the context is unknown (None), never a guess."""

from __future__ import annotations

from workbench.project.files import Project
from workbench.triage.traces.conventions import TraceDoc
from workbench.triage.traces.phrases import documents_index, outermost
from workbench.triage.traces.resolve import RESOLVED
from workbench.triage.traces.textmatch import normal, normal_head, quoted


def read_context(project: Project, stage: list[TraceDoc] | None, prompt: str, mapping: dict[str, int]) -> list[str] | None:
    """Ids (trace-side, as `mapping` keys them) of the documents the prompt quotes, in prompt order.
    A corpus document no span listed gets the id RESOLVED+DocID, added to `mapping`."""
    stage = stage or []
    if not prompt.strip():
        return [d.id for d in stage if d.id is not None and d.id in mapping] or None
    p = normal(prompt)
    at: dict[int, tuple[int, str]] = {}  # DocID → (position in the prompt, trace-side id)
    named: dict[int, str] = {}
    for d in stage:
        if d.id is not None and d.id in mapping:
            named.setdefault(mapping[d.id], d.id)
    for f in outermost(documents_index(project).find_normal(p)):
        key = named.get(f.key, f"{RESOLVED}{f.key}")
        mapping.setdefault(key, f.key)
        at[f.key] = (f.start, key)
    for d in stage:  # production's own copy of a listed document
        if not (d.content and d.content.strip()) or not quoted(d.content, p):
            continue
        if d.id is None or d.id not in mapping:
            return None  # production read a document we cannot name
        docid = mapping[d.id]
        if docid not in at:
            at[docid] = (p.find(normal_head(d.content)), d.id)
    # none quoted: production's text differs from ours (chunks, a template that rewrites it), so
    # what it read is unknown — never "nothing", which would make every failure an access failure
    return [key for _, key in sorted(at.values())] or None
