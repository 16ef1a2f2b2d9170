"""A trace split in two, joined back by the query id the user names (`--query-id-key`).

An extra instrumentor that does not see the pipeline's context (an OpenAI client instrumentor
beside LangChain's) makes the chat span the root of a trace of its own: one part has the retriever
and no LLM span, the other the LLM span and no retriever. When both parts carry the same query id
they are one production query: the LLM-only part is joined to the retriever-only part of that id
(in start order, one to one). Two whole traces of one id are two asks, never joined."""

from __future__ import annotations

from workbench.triage.traces.spans import LLM, RETRIEVER, Span


def join_split(groups: dict[str, list[Span]], query_id_of, kind_of) -> tuple[dict[str, list[Span]], list[str]]:
    """(groups with split parts joined, one line per join naming both trace ids)."""
    parts: dict[str, list[tuple[int, str, set[str]]]] = {}
    for tid, spans in groups.items():
        qid = query_id_of(spans)
        if qid is not None:
            start = min((s.start_ns or 0) for s in spans)
            parts.setdefault(qid, []).append((start, tid, {k for s in spans if (k := kind_of(s))}))
    out = dict(groups)
    joined = []
    for qid, found in parts.items():
        if len(found) < 2:
            continue
        found.sort()
        retrieval = [tid for _, tid, kinds in found if RETRIEVER in kinds and LLM not in kinds]
        answer = [tid for _, tid, kinds in found if LLM in kinds and RETRIEVER not in kinds]
        for r, a in zip(retrieval, answer):
            out[r] = [*out[r], *out.pop(a)]
            joined.append(f"trace {a} (the LLM span) joined to trace {r} (the retriever): both query id {qid!r}")
    return out, joined
