"""The conventions beyond OpenInference / OpenLLMetry / OTel GenAI's own names (conventions.py):

- Langfuse's OpenTelemetry-based SDK: `langfuse.observation.type` (generation → LLM, retriever →
  RETRIEVER), `langfuse.observation.input` / `.output` (JSON: the decorated function's
  `{"args", "kwargs"}`, messages, documents), `langfuse.trace.metadata.KEY` (JSON-encoded values);
- a generic reading of any OpenTelemetry span no convention names: a span whose attributes hold a
  list of documents is a retriever; a span whose attributes hold a prompt (messages) and an output
  is the LLM; the query from the root's input (or, later, from the prompt: queries_in_prompt.py);
- what a retriever span claims beside what it lists (`gen_ai.retrieval.document_count`, a `top_k`,
  DSPy's / LlamaIndex's `k` in its input), so a truncated list is known to be truncated;
- which convention read a trace (`convention_of`).
"""

from __future__ import annotations

import re
from typing import Any

from workbench.triage.traces.docshapes import decoded, document_rows
from workbench.triage.traces.spans import LLM, RETRIEVER, Span

LANGFUSE_TYPE = "langfuse.observation.type"
LANGFUSE_IN, LANGFUSE_OUT = "langfuse.observation.input", "langfuse.observation.output"
LANGFUSE_KINDS = {"generation": LLM, "retriever": RETRIEVER}
CLAIM_KEYS = ("gen_ai.retrieval.document_count", "retrieval.document_count", "gen_ai.retrieval.top_k", "gen_ai.request.top_k",
              "db.vector.query.top_k", "retrieval.top_k", "top_k")
INPUT_K = ("k", "top_k", "similarity_top_k", "n_results", "num_results", "limit")
INPUT_KEYS = ("input.value", LANGFUSE_IN, "traceloop.entity.input", "langfuse.trace.input", "input")
OUTPUT_KEYS = ("output.value", LANGFUSE_OUT, "traceloop.entity.output", "output")
QUESTION_KEYS = ("question", "query", "input", "query_str", "q", "user_input", "text", "prompt")
DSPY_SPAN = re.compile(r"^(LM\.(__call__|acall)|\w*Adapter\.(__call__|acall)|Predict.*\.forward|ChainOfThought\.forward|"
                       r"ReAct\.forward|Retrieve\.forward|ColBERTv2\.__call__)$")
# the generic reading: attribute names that hold a prompt, an output
PROMPT_NAME = re.compile(r"(^|\.)(prompt|prompts|input_messages|input\.messages|messages|input)$")
OUTPUT_NAME = re.compile(r"(^|\.)(completion|completions|output_messages|output\.messages|response|output|answer)$")


def langfuse_kind(span: Span) -> str | None:
    t = span.attributes.get(LANGFUSE_TYPE)
    if not isinstance(t, str) or not t.strip():
        return None
    return LANGFUSE_KINDS.get(t.strip().lower(), t.strip().upper())


def _is_messages(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(m, dict) and "role" in m for m in v)


def messages_text(v: Any) -> list[tuple[str, str]]:
    """[{role, content | parts}] → (role, text) pairs."""
    out = []
    for m in v:
        content = m.get("content")
        if isinstance(content, list):  # OpenAI's content parts / GenAI parts
            content = "".join(p.get("text") or p.get("content") or "" for p in content if isinstance(p, dict))
        parts = m.get("parts")
        if content is None and isinstance(parts, list):
            content = "".join(p.get("content") or "" for p in parts if isinstance(p, dict) and isinstance(p.get("content"), str))
        out.append((str(m.get("role", "")), content if isinstance(content, str) else ""))
    return out


def prompt_value(value: Any) -> str:
    """A prompt as an input attribute holds it: messages, {"messages": …}, a decorated call's args, text."""
    v = decoded(value)
    if isinstance(v, dict):
        for k in ("messages", "prompt", "input"):
            if k in v:
                return prompt_value(v[k])
        if isinstance(v.get("args"), list) or isinstance(v.get("kwargs"), dict):
            return "\n\n".join(filter(None, (prompt_value(x) for x in [*(v.get("args") or []), *(v.get("kwargs") or {}).values()])))
        return ""
    if _is_messages(v):
        return "\n\n".join(f"[{role}]\n{text}" if role else text for role, text in messages_text(v))
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        return "\n\n".join(v)
    return v if isinstance(v, str) else ""


def output_value(value: Any) -> Any:
    """An output attribute as the program returned it: an assistant message → its text; else as is."""
    v = decoded(value)
    if isinstance(v, dict) and isinstance(v.get("choices"), list) and v["choices"]:
        v = v["choices"][0].get("message", v["choices"][0]) if isinstance(v["choices"][0], dict) else v
    if isinstance(v, dict) and "role" in v and ("content" in v or "tool_calls" in v):
        if v.get("content"):
            return messages_text([v])[0][1]
        return {"tool_calls": v.get("tool_calls")}
    if _is_messages(v):
        texts = [t for role, t in messages_text(v) if role in ("assistant", "")]
        return texts[-1] if texts else None
    return value


def question_of(value: Any) -> str:
    """The query in a root's input: text, {"question"|"query"|…: text}, a decorated call's first text arg."""
    v = decoded(value)
    if isinstance(v, str):
        return v.strip()
    if isinstance(v, dict):
        for k in QUESTION_KEYS:
            if isinstance(v.get(k), str) and v[k].strip():
                return v[k].strip()
        args = v.get("args")
        if isinstance(args, list) and args and isinstance(args[0], str):
            return args[0].strip()
        kwargs = v.get("kwargs")
        if isinstance(kwargs, dict):
            return question_of(kwargs)
        for k in ("inputs", "input"):
            if isinstance(v.get(k), dict):
                return question_of(v[k])
    return ""


def root_question(span: Span) -> str:
    """The query on a root span: its input (question_of), else an attribute named like a question."""
    text = question_of(input_of(span))
    if text:
        return text
    for key, value in span.attributes.items():
        if key.rsplit(".", 1)[-1] in QUESTION_KEYS[:5] and isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def generic_documents(span: Span, strings: bool = False) -> list[dict] | None:
    """The first attribute (or flattened attribute list) that holds documents."""
    attrs = span.attributes
    for key in (LANGFUSE_OUT, "output.value", "traceloop.entity.output", *attrs):
        if key in attrs and not key.startswith(("llm.", "gen_ai.input", "gen_ai.output", "gen_ai.prompt", "gen_ai.completion")):
            rows = document_rows(attrs[key], strings=strings and key in (LANGFUSE_OUT, "output.value"))
            if rows:
                return rows
    groups: dict[str, dict[int, dict[str, Any]]] = {}  # flattened lists: PREFIX.{i}.FIELD
    for key, value in attrs.items():
        m = re.match(r"^(.*?)\.(\d{1,6})\.(.+)$", key)
        if m and not key.startswith(("llm.", "gen_ai.", "retrieval.", "reranker.")):
            groups.setdefault(m.group(1), {}).setdefault(int(m.group(2)), {})[m.group(3)] = value
    for rows_by_i in groups.values():
        rows = document_rows([rows_by_i[i] for i in sorted(rows_by_i)])
        if rows:
            return rows
    return None


def generic_llm(span: Span) -> tuple[str, Any] | None:
    """(prompt, output) of a span whose attributes hold both, by their names; None otherwise."""
    prompt, output = "", None
    for key, value in span.attributes.items():
        if not prompt and PROMPT_NAME.search(key):
            prompt = prompt_value(value)
        elif output is None and OUTPUT_NAME.search(key) and value not in (None, ""):
            output = value
    return (prompt, output) if prompt.strip() and output is not None else None


def generic_kind(span: Span) -> str | None:
    if generic_documents(span):
        return RETRIEVER
    if generic_llm(span) is not None and _is_messages(decoded(next(
            (v for k, v in span.attributes.items() if PROMPT_NAME.search(k)), None))):
        return LLM  # a prompt of chat messages and an output: a model call
    return None


def claimed(span: Span) -> int | None:
    """How many documents the retriever span says it returned or was asked for (None: it says nothing)."""
    found = []
    for key in CLAIM_KEYS:
        v = span.attributes.get(key)
        if isinstance(v, (int, float, str)) and not isinstance(v, bool) and str(v).strip().isdigit():
            found.append(int(str(v).strip()))
    for key in INPUT_KEYS:
        v = decoded(span.attributes.get(key))
        if isinstance(v, dict):
            kwargs: dict = v["kwargs"] if isinstance(v.get("kwargs"), dict) else {}
            for scope in (v, kwargs):
                for k in INPUT_K:
                    x = scope.get(k)
                    if isinstance(x, int) and not isinstance(x, bool) and x > 0:
                        found.append(x)
    return max(found) if found else None


def output_of(span: Span) -> Any:
    for key in OUTPUT_KEYS:
        if key in span.attributes and span.attributes[key] not in (None, ""):
            return output_value(span.attributes[key])
    return None


def input_of(span: Span) -> Any:
    for key in INPUT_KEYS:
        if key in span.attributes and span.attributes[key] not in (None, ""):
            return span.attributes[key]
    return None


def convention_of(spans: list[Span]) -> str:
    """Which convention wrote the trace: "langfuse", "openllmetry", "openlit", "dspy", "openinference", "genai", "generic"."""
    keys = {k for s in spans for k in s.attributes}
    if LANGFUSE_TYPE in keys:
        return "langfuse"
    if any(k.startswith("traceloop.") for k in keys):
        return "openllmetry"
    if any(s.attributes.get("telemetry.sdk.name") == "openlit" for s in spans) or "gen_ai.application_name" in keys:
        return "openlit"
    if "openinference.span.kind" in keys:
        return "dspy" if any(DSPY_SPAN.match(s.name) for s in spans) else "openinference"
    if "gen_ai.operation.name" in keys:
        return "genai"
    return "generic"
