"""A trace split in two, joined back: by the query id the user names (`--query-id-key`), else by
query text and time (join_by_text).

An extra instrumentor that does not see the pipeline's context (an OpenAI client instrumentor
beside LangChain's, OpenLIT's LangChain callback) makes the chat span the root of a trace of its own:
one part has the retriever and no LLM span, the other the LLM span and no retriever. When both parts
carry the same query id they are one production query: the LLM-only part is joined to the
retriever-only part of that id (in start order, one to one). Two whole traces of one id are two
asks, never joined. With no id, the LLM-only part whose prompt holds a retriever-only part's query,
started after it, is joined to the latest such part."""

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


JOIN_WINDOW_NS = 600 * 10**9  # an answer more than this after the retrieval is another ask
MIN_QUERY_CHARS = 8


def join_by_text(groups: dict[str, list[Span]], kind_of, query_of, prompt_of) -> tuple[dict[str, list[Span]], list[str]]:
    """Split parts no id joins (OpenLIT's LangChain retrieval and chat as two roots): an LLM-only part
    is joined to the latest retriever-only part started before it (within JOIN_WINDOW_NS) whose
    query text its prompt holds, one to one. ``query_of(spans)`` / ``prompt_of(spans)`` read a part."""
    from workbench.triage.traces.textmatch import normal

    retrieval, answer = [], []
    for tid, spans in groups.items():
        kinds = {k for s in spans if (k := kind_of(s))}
        start = min((s.start_ns or 0) for s in spans)
        if RETRIEVER in kinds and LLM not in kinds:
            q = normal(query_of(spans)).casefold().rstrip("?!. ")
            if len(q) >= MIN_QUERY_CHARS:
                retrieval.append((start, tid, q))
        elif LLM in kinds and RETRIEVER not in kinds:
            answer.append((start, tid, normal(prompt_of(spans)).casefold()))
    out, joined, used = dict(groups), [], set()
    for start, tid, prompt in sorted(answer):
        fits = [(r_start, r_tid) for r_start, r_tid, q in retrieval
                if r_tid not in used and r_start <= start and start - r_start <= JOIN_WINDOW_NS and q in prompt]
        if not fits:
            continue
        _, r = max(fits)
        used.add(r)
        out[r] = [*out[r], *out.pop(tid)]
        joined.append(f"trace {tid} (the LLM span) joined to trace {r} (the retriever): its prompt holds the retrieval's "
                      "query, started after it")
    return out, joined
