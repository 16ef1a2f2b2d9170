"""The query of a trace whose spans name none (OpenLIT over the OpenAI SDK: one chat span, the
whole prompt in gen_ai.input.messages): the project query the prompt holds. Every project query
is looked for in the prompt at once (phrases.PhraseIndex: case-folded, whitespace collapsed); the
longest found is the query (a shorter one found inside it is a part of it). A prompt that holds
none is a counted skip naming what was looked for."""

from __future__ import annotations

import msgspec

from workbench.project.files import Project
from workbench.triage.traces.conventions import ProductionTrace
from workbench.triage.traces.phrases import PhraseIndex
from workbench.triage.traces.spans import Skipped

MIN_QUERY_CHARS = 8  # a shorter query text is too little to say the prompt asks it


def queries_from_prompts(project: Project, found: list[ProductionTrace]) -> tuple[list[ProductionTrace], list[Skipped]]:
    """Traces without query text get the project query their prompt holds; those with none are skipped."""
    if all(t.query_text for t in found):
        return found, []
    queries = project.queries
    index = PhraseIndex(((i, q.query.rstrip("?!. ")) for i, q in enumerate(queries)), fold_case=True, min_chars=MIN_QUERY_CHARS)
    out, skipped = [], []
    for t in found:
        if t.query_text:
            out.append(t)
            continue
        hits = index.find(t.prompt)
        if not hits:
            skipped.append(Skipped(t.where, f"trace {t.trace_id}: no query text (input.value / gen_ai.retrieval.query.text / "
                                            f"the root's input), and its prompt holds none of the project's {len(queries)} queries"))
            continue
        best = max(hits, key=lambda f: (f.end - f.start, f.start))
        out.append(msgspec.structs.replace(t, query_text=queries[best.key].query))
    return out, skipped
