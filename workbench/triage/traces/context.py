"""What production's LLM read: the documents of the stage before it (reranker, else retriever)
whose text — the span's `document.content`, else the corpus text of the document it resolved
to — appears in the prompt it was sent. A title or an id mentioned inside another document's
text is no quote: only the document's own text counts (textmatch.quoted).

No prompt recorded: all of the stage's documents (nothing says otherwise). A document that
could not be resolved and is quoted, or a prompt that quotes none of them: the context is unknown
(None), never a guess."""

from __future__ import annotations

from workbench.project.files import Project
from workbench.triage.traces.conventions import TraceDoc
from workbench.triage.traces.textmatch import normal, quoted


def read_context(project: Project, stage: list[TraceDoc], prompt: str, mapping: dict[str, int]) -> list[str] | None:
    """Ids (trace-side, as `mapping` keys them) of the documents the prompt quotes, in stage order."""
    if not prompt.strip():
        return [d.id for d in stage if d.id is not None and d.id in mapping] or None
    p = normal(prompt)
    out: list[str] = []
    for d in stage:
        docid = mapping.get(d.id) if d.id is not None else None
        texts = [t for t in (d.content, project.documents[docid].text if docid is not None and docid in project.documents else None) if t and t.strip()]
        if not any(quoted(t, p) for t in texts):
            continue
        if docid is None:
            return None  # production read a document we cannot name
        if d.id not in out:
            out.append(d.id)  # type: ignore[arg-type]
    # none quoted: production's text differs from ours (chunks, a template that rewrites it), so
    # what it read is unknown — never "nothing", which would make every failure an access failure
    return out or None
