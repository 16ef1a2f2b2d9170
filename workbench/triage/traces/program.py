"""Production's answer is the program's answer: the outermost chain's output (what the program
returned) is preferred over the LLM span's raw text, and either is parsed when structured
(answer.py). Where neither isolates an answer, the answer is undecided, with the reason; the
raw text is kept for display, never decided on. The LLM span's own reading (its raw text, its tool
calls, the span kinds) is handed in by conventions.py, which calls this: no import back."""

from __future__ import annotations

from typing import Callable

from workbench.triage.traces.answer import Parsed, parse_value
from workbench.triage.traces.readers import output_of
from workbench.triage.traces.spans import RERANKER, RETRIEVER, Span

NOT_A_CHAIN = (RETRIEVER, RERANKER, "EMBEDDING", "LLM")


def outermost_output(spans: list[Span], llm: Span, kind_of: Callable[[Span], str | None]) -> object | None:
    """The output of the outermost span around the LLM span that records one (the program's return value)."""
    by_id = {s.span_id: s for s in spans}
    found, s, seen = None, llm, {llm.span_id}
    while s.parent_id is not None and s.parent_id in by_id and s.parent_id not in seen:
        s = by_id[s.parent_id]
        seen.add(s.span_id)
        if kind_of(s) not in NOT_A_CHAIN:
            out = output_of(s)
            if out is not None:
                found = out
    return found


def program_answer(spans: list[Span], llm: Span, raw: str | None, tool_calls: Callable[[Span], list],
                   kind_of: Callable[[Span], str | None]) -> tuple[str | None, str | None]:
    """(answer, why it is undecided): the answer isolated, or the raw text (``raw``: the LLM span's own
    answer) and the reason it is not."""
    chain = outermost_output(spans, llm, kind_of)
    tried: list[Parsed] = []
    if chain is not None:
        got = parse_value(chain)
        if got is not None:
            if got.answer is not None:
                return got.answer, None
            tried.append(got)
    calls = tool_calls(llm) if not (raw and raw.strip()) else []
    own = parse_value({"tool_calls": calls}) if calls else parse_value(raw)
    if own is not None:
        if own.answer is not None:
            return own.answer, None
        tried.append(own)
    if not tried:
        return raw, None
    shown = raw if raw is not None else (chain if isinstance(chain, str) else "")
    return shown, "; ".join(dict.fromkeys(t.undecided or "" for t in tried))
