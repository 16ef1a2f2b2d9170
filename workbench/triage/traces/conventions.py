"""A trace's spans → what production did for one query (ProductionTrace).

The conventions real instrumentations write, whichever a span carries:
- OpenInference (Phoenix; openinference-instrumentation-langchain / -llama-index / …):
  `openinference.span.kind` RETRIEVER / RERANKER / LLM, `input.value`,
  `retrieval.documents.{i}.document.{id,score,content,metadata}` (LangChain's writes no id and no
  score), `reranker.output_documents.{i}.document.*`, `llm.input_messages.{i}.message.{role,content}`,
  `llm.output_messages.*`, `output.value`, `metadata` (a JSON string);
- OpenLLMetry / Traceloop (opentelemetry-instrumentation-langchain): `gen_ai.operation.name`
  `vector_db_retrieve` with its documents in `traceloop.entity.output` (`{"documents": [{page_content,
  metadata}]}`, no id), the query in `traceloop.entity.input`, ids a user attached in
  `traceloop.association.properties.*`, its chat span in the GenAI names below;
- OpenTelemetry GenAI: `gen_ai.operation.name` (retrieval / chat / text_completion / …),
  `gen_ai.retrieval.query.text`, `gen_ai.retrieval.documents` (a JSON list of `{id, score}`, or
  structured), `gen_ai.input.messages` / `gen_ai.output.messages` / `gen_ai.system_instructions`,
  and the previous names `gen_ai.prompt.{i}.{role,content}` / `gen_ai.completion.{i}.content`, or
  `gen_ai.prompt` / `gen_ai.completion` (JSON message lists) on the span's `gen_ai.content.*` events.

Langfuse's OpenTelemetry SDK, DSPy / OpenLIT as conventions of their own and the generic reading of
any other span are in readers.py; documents in frameworks' shapes in docshapes.py. Several
retriever spans are kept in order; the ranking is the last one started before the answer (the one
that fed it), with what it claims beside what it lists (`ranking_claimed`). The first reranker span
is the reranked list; the last LLM span the model call, the answer the program's (program.py). A
document without an id is resolved against the corpus later (resolve.py), what the LLM read is found
in its prompt then (context.py), and a trace naming no query gets the one its prompt asks
(queries_in_prompt.py). Each trace says which convention read it and what it lacked (`missing`).
A span of a kind we read whose documents cannot be read makes the trace a counted skip.
"""

from __future__ import annotations

import json
import math
from typing import Any

import msgspec

from workbench.triage.traces.spans import LLM, RERANKER, RETRIEVER, Skipped, Span
GENAI_KINDS = {"retrieval": RETRIEVER, "retrieve": RETRIEVER, "vector_db_retrieve": RETRIEVER, "rerank": RERANKER,
               "chat": LLM, "text_completion": LLM, "generate_content": LLM, "completion": LLM}
QUERY_KEYS = ("query", "question", "input", "query_str", "text")
CONVENTION_PREFIXES = ("openinference.", "gen_ai.", "traceloop.", "langfuse.", "llm.", "retrieval.", "reranker.")
MAX_INDEX_DIGITS = 6


class TraceDoc(msgspec.Struct, frozen=True):
    id: str | None  # None: the instrumentation wrote none (OpenInference's LangChain, OpenLLMetry)
    score: float | None
    content: str | None
    title: str | None
    metadata: dict[str, Any] | None = None


class ProductionTrace(msgspec.Struct, frozen=True):
    trace_id: str
    where: str  # the first span's location
    query_text: str
    query_id: str | None  # from the configured attribute / metadata key
    ranking: list[TraceDoc] | None  # None: no retriever span
    reranked: list[TraceDoc] | None
    answer: str | None  # None: no LLM span
    prompt: str
    context_ids: list[str] | None  # None: nothing to say what the LLM read
    llm_latency_s: float | None
    trace_latency_s: float | None
    start_ns: int
    stage: list[TraceDoc] | None = None  # the documents of the stage before the LLM (reranker, else retriever)
    retrievals: int = 0  # retriever spans in the trace (the one that fed the answer is `ranking`)
    # --- the parsed trace's record, agreed between the reading (issue 39) and the ledger (issue 38) ---
    convention: str = ""  # which convention read it ("openinference", "openllmetry", "genai", "dspy", "openlit", "langfuse", "generic")
    ranking_claimed: int | None = None  # how many documents the retriever span says it returned (document_count, top_k);
    # above len(ranking): the ranking is truncated at len(ranking) and nothing past that depth is claimed
    ranking_unresolved: bool = False  # some ranked documents could not be resolved: the ranking is unknown, not empty
    answer_undecided: str | None = None  # why production's answer could not be isolated (reasoning around it…):
    # the verdict on it is UNDECIDED, never decided on text that also holds reasoning
    missing: list[str] = []  # what the trace lacked for a diagnosis, one phrase each ("no prompt", "no retriever span")

    @property
    def ranking_depth(self) -> int | None:
        """The depth past which the ranking says nothing (None: complete as far as the trace says)."""
        if self.ranking is None:
            return None
        if self.ranking_claimed is not None and self.ranking_claimed > len(self.ranking):
            return len(self.ranking)
        return None


class Unreadable(Exception):
    """A span of a kind we read, with an attribute we cannot read (the trace is skipped)."""


def kind_of(span: Span) -> str | None:
    """The span's kind in OpenInference's names, whichever convention wrote it (None: not one we read)."""
    from workbench.triage.traces.readers import generic_kind, langfuse_kind

    k = span.attributes.get("openinference.span.kind")
    if isinstance(k, str) and k.strip():
        return k.strip().upper()
    op = span.attributes.get("gen_ai.operation.name")
    if isinstance(op, str) and op.strip():
        return GENAI_KINDS.get(op.strip().lower())
    lf = langfuse_kind(span)
    if lf is not None:
        return lf
    # the generic reading only where no convention marked the span (a LangChain step's output
    # holding documents is no retrieval of its own)
    if any(k.startswith(CONVENTION_PREFIXES) for k in span.attributes):
        return None
    return generic_kind(span)


def _json(v: Any) -> Any:
    if isinstance(v, str):
        try:
            return json.loads(v)
        except (ValueError, RecursionError):
            return None
    return v


def _text(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _doc_id(v: Any, where: str) -> str:
    if isinstance(v, bool) or not isinstance(v, (str, int)):
        raise Unreadable(f"{where}: a document id must be a string or an integer, not {type(v).__name__} {v!r}")
    s = str(v).strip()
    if not s:
        raise Unreadable(f"{where}: empty document id")
    return s


def _score(v: Any, where: str) -> float | None:
    if v is None:
        return None
    if isinstance(v, bool):
        raise Unreadable(f"{where}: a score must be a number, not {v!r}")
    if isinstance(v, str):  # some instrumentations stringify; a number in text is still that number
        try:
            v = float(v)
        except ValueError:
            raise Unreadable(f"{where}: a score must be a number, not {v!r}") from None
    if not isinstance(v, (int, float)) or not math.isfinite(v):
        raise Unreadable(f"{where}: a score must be a finite number, not {v!r}")
    return float(v)


def _indexed(attrs: dict[str, Any], prefix: str) -> dict[int, dict[str, Any]]:
    """`prefix.{i}.rest` keys → {i: {rest: value}}."""
    out: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        if not key.startswith(prefix + "."):
            continue
        head, _, rest = key[len(prefix) + 1:].partition(".")
        # ASCII digits only, and short: "²" or a 5,000-digit index is no index (int() refuses or crawls)
        if head.isascii() and head.isdigit() and len(head) <= MAX_INDEX_DIGITS and rest:
            out.setdefault(int(head), {})[rest] = value
    return out


def _title(metadata: Any) -> str | None:
    meta = _json(metadata)
    if isinstance(meta, dict):
        for k in ("title", "name", "source"):
            if isinstance(meta.get(k), str) and meta[k].strip():
                return meta[k]
    return None


def documents(span: Span, prefix: str) -> list[TraceDoc] | None:
    """The documents under `prefix` (OpenInference flattened, or a GenAI JSON / structured list); None if absent."""
    attrs = span.attributes
    rows = _indexed(attrs, prefix)
    if not rows and prefix in attrs:
        value = _json(attrs[prefix])
        if not isinstance(value, list):
            raise Unreadable(f"{prefix}: expected a list of documents, got {type(attrs[prefix]).__name__}")
        rows = {i: ({f"document.{k}": v for k, v in d.items()} if isinstance(d, dict) else {"document.id": d})
                for i, d in enumerate(value)}
    if not rows:
        return None
    docs, seen = [], set()
    for i in sorted(rows):
        r = {k.removeprefix("document."): v for k, v in rows[i].items()}
        at = f"{prefix}.{i}"
        meta = _json(r.get("metadata"))
        if not isinstance(meta, dict):  # flattened by the reader: document.metadata.KEY
            meta = {k.removeprefix("metadata."): v for k, v in r.items() if k.startswith("metadata.")} or None
        did = _doc_id(r["id"], f"{at}.id") if r.get("id") is not None else None
        if did is not None and did in seen:
            continue  # the same document twice in one list: its first rank counts
        if did is not None:
            seen.add(did)
        content = _text(r.get("content")) or _meta_text(meta)
        docs.append(TraceDoc(did, _score(r.get("score"), f"{at}.score"), content, _text(r.get("title")) or _title(meta), meta))
    return docs


def _meta_text(meta: dict | None) -> str | None:
    """The text where a framework put it beside the title, in the metadata."""
    for k in ("text", "content", "page_content", "passage", "long_text", "chunk"):
        if meta and isinstance(meta.get(k), str) and meta[k].strip():
            return meta[k]
    return None


def shaped_documents(span: Span, strings: bool = False) -> list[TraceDoc] | None:
    """Documents in the shapes frameworks write (docshapes.py), from whichever attribute holds them."""
    from workbench.triage.traces.readers import generic_documents

    rows = generic_documents(span, strings)
    if rows is None:
        return None
    docs, seen = [], set()
    for i, r in enumerate(rows):
        did = _doc_id(r["id"], f"document {i} id") if r.get("id") is not None else None
        if did is not None and did in seen:
            continue
        if did is not None:
            seen.add(did)
        docs.append(TraceDoc(did, _score(r.get("score"), f"document {i} score"), r.get("content"), r.get("title"), r.get("metadata")))
    return docs


def traceloop_documents(span: Span) -> list[TraceDoc] | None:
    """OpenLLMetry's retriever span: `traceloop.entity.output` = {"documents": [{page_content, metadata}]}."""
    out = _json(span.attributes.get("traceloop.entity.output"))
    if not isinstance(out, dict) or "documents" not in out:
        return None
    rows = out["documents"]
    if not isinstance(rows, list):
        raise Unreadable("traceloop.entity.output.documents: expected a list of documents")
    docs = []
    for i, d in enumerate(rows):
        if not isinstance(d, dict):
            raise Unreadable(f"traceloop.entity.output.documents.{i}: not a document object")
        meta = d.get("metadata") if isinstance(d.get("metadata"), dict) else None
        did = d.get("id")
        docs.append(TraceDoc(_doc_id(did, f"traceloop.entity.output.documents.{i}.id") if did is not None else None,
                             None, _text(d.get("page_content")), _title(meta), meta))
    return docs


def retrieved(span: Span) -> list[TraceDoc] | None:
    """A retriever span's documents, whichever convention wrote them."""
    docs = documents(span, "retrieval.documents")
    if docs is None:
        docs = documents(span, "gen_ai.retrieval.documents")
    if docs is None:
        docs = traceloop_documents(span)
    marked = "openinference.span.kind" in span.attributes or "gen_ai.operation.name" in span.attributes
    if docs is None and not marked:  # Langfuse's observation output, any attribute holding a list of documents
        docs = shaped_documents(span, strings=True)
    return docs


def query_text(span: Span) -> str:
    a = span.attributes
    for key in ("gen_ai.retrieval.query.text", "reranker.query"):
        if isinstance(a.get(key), str) and a[key].strip():
            return a[key]
    value = a.get("input.value")
    if value is None and isinstance(a.get("traceloop.entity.input"), str):  # OpenLLMetry: {"query"|"inputs": …}
        parsed = _json(a["traceloop.entity.input"])
        if isinstance(parsed, dict):
            for k in ("query", "inputs", *QUERY_KEYS):
                if isinstance(parsed.get(k), str):
                    return parsed[k]
        return ""
    if not isinstance(value, str):
        return ""
    if str(a.get("input.mime_type", "")).endswith("json") or value.lstrip().startswith("{"):
        parsed = _json(value)
        if isinstance(parsed, dict):
            for k in QUERY_KEYS:
                if isinstance(parsed.get(k), str):
                    return parsed[k]
        if parsed is not None and not isinstance(parsed, str):
            return ""
    return value


def _genai_text(messages: Any) -> list[tuple[str, str]]:
    out = []
    for m in _json(messages) or []:
        if not isinstance(m, dict):
            continue
        parts = m.get("parts")
        if isinstance(parts, list):
            # text parts only: a `reasoning` part is the model's thinking, never its answer
            text = "".join(p["content"] for p in parts if isinstance(p, dict) and isinstance(p.get("content"), str)
                           and p.get("type", "text") == "text")
        else:
            text = m["content"] if isinstance(m.get("content"), str) else ""
        out.append((str(m.get("role", "")), text))
    return out


def messages(span: Span, prefix: str) -> list[tuple[str, str]]:
    rows = _indexed(span.attributes, prefix)
    out = []
    for i in sorted(rows):
        r = rows[i]
        content = r.get("message.content")
        if not isinstance(content, str):  # multimodal: message.contents.{j}.message_content.text
            content = "".join(v for k, v in sorted(r.items()) if k.startswith("message.contents.") and k.endswith(".text")
                              and isinstance(v, str))
        out.append((str(r.get("message.role", "")), content))
    return out


def prompt_of(span: Span) -> str:
    """The exact text the model was sent, role by role."""
    a = span.attributes
    msgs = messages(span, "llm.input_messages")
    if not msgs and "gen_ai.input.messages" in a:
        system = _text(a.get("gen_ai.system_instructions"))
        msgs = ([("system", system)] if system else []) + _genai_text(a["gen_ai.input.messages"])
    if not msgs:  # the GenAI conventions' previous names: gen_ai.prompt.{i}.{role,content}
        msgs = [(str(r.get("role", "")), r["content"]) for _, r in sorted(_indexed(a, "gen_ai.prompt").items())
                if isinstance(r.get("content"), str)]
    if not msgs and isinstance(a.get("gen_ai.prompt"), str):  # a content event's JSON list of messages
        msgs = _genai_text(a["gen_ai.prompt"]) or [("", a["gen_ai.prompt"])]
    if msgs:
        return "\n\n".join(f"[{role}]\n{text}" if role else text for role, text in msgs)
    prompts = a.get("llm.prompts")
    if isinstance(prompts, list) and all(isinstance(p, str) for p in prompts):
        return "\n\n".join(prompts)
    from workbench.triage.traces.readers import LANGFUSE_IN, generic_llm, prompt_value

    if LANGFUSE_IN in a:  # Langfuse's generation: its input (messages, text, a decorated call's arguments)
        return prompt_value(a[LANGFUSE_IN])
    if "input.value" not in a:
        found = generic_llm(span)
        if found is not None:
            return found[0]
    return _text(a.get("input.value")) or ""


def answer_of(span: Span) -> str | None:
    a = span.attributes
    out = [t for role, t in messages(span, "llm.output_messages") if role in ("", "assistant")]
    if not out and "gen_ai.output.messages" in a:
        out = [t for _, t in _genai_text(a["gen_ai.output.messages"])]
    if not out:  # previous names: gen_ai.completion.{i}.content
        out = [r["content"] for _, r in sorted(_indexed(a, "gen_ai.completion").items()) if isinstance(r.get("content"), str)]
    if not out and isinstance(a.get("gen_ai.completion"), str):
        out = [t for _, t in _genai_text(a["gen_ai.completion"])] or [a["gen_ai.completion"]]
    if out:
        return out[-1]
    from workbench.triage.traces.readers import LANGFUSE_OUT, generic_llm, output_value

    if LANGFUSE_OUT in a:
        v = output_value(a[LANGFUSE_OUT])
        return v if isinstance(v, str) else json.dumps(v)
    if "output.value" not in a:
        found = generic_llm(span)
        if found is not None:
            v = output_value(found[1])
            return v if isinstance(v, str) else json.dumps(v)
    return _text(a.get("output.value"))


def tool_calls_of(span: Span) -> list[dict]:
    """The model's tool calls, when it answered through one: OpenInference's
    `llm.output_messages.{i}.message.tool_calls.{j}.tool_call.function.{name,arguments}`, GenAI's
    `tool_call` parts."""
    calls = []
    for _, r in sorted(_indexed(span.attributes, "llm.output_messages").items()):
        for _, c in sorted(_indexed({k: v for k, v in r.items()}, "message.tool_calls").items()):
            args = c.get("tool_call.function.arguments")
            if args is not None:
                calls.append({"name": c.get("tool_call.function.name"), "arguments": args})
    for m in _json(span.attributes.get("gen_ai.output.messages")) or []:
        for part in (m.get("parts") or []) if isinstance(m, dict) else []:
            if isinstance(part, dict) and part.get("type") == "tool_call":
                calls.append({"name": part.get("name"), "arguments": part.get("arguments")})
    return calls


def query_id_of(spans: list[Span], key: str) -> str | None:
    """The configured key: a span attribute, or a key of the OpenInference `metadata` JSON attribute."""
    for s in spans:
        for k in (key, f"metadata.{key}", f"traceloop.association.properties.{key}"):
            v = s.attributes.get(k)
            if isinstance(v, (str, int)) and not isinstance(v, bool) and str(v).strip():
                return str(v).strip()
        for k in (f"langfuse.trace.metadata.{key}", f"langfuse.observation.metadata.{key}"):
            v = s.attributes.get(k)  # Langfuse JSON-encodes metadata values, strings included
            v = _json(v) if isinstance(v, str) and v.startswith('"') else v
            if isinstance(v, (str, int)) and not isinstance(v, bool) and str(v).strip():
                return str(v).strip()
        meta = _json(s.attributes.get("metadata"))
        if isinstance(meta, dict) and isinstance(meta.get(key), (str, int)) and not isinstance(meta.get(key), bool):
            return str(meta[key]).strip() or None
    return None


def root_of(spans: list[Span]) -> Span:
    """The outermost span: the first started whose parent is not in the trace."""
    ids = {s.span_id for s in spans}
    return next((s for s in spans if s.parent_id is None or s.parent_id not in ids), spans[0])


def query_of(span: Span) -> str:
    from workbench.triage.traces.readers import LANGFUSE_IN, question_of

    text = query_text(span).strip()
    return text or (question_of(span.attributes[LANGFUSE_IN]) if LANGFUSE_IN in span.attributes else "")


def nothing_read(trace_id: str, spans: list[Span]) -> str:
    """Why a trace gave nothing: what was looked for, and what each kind of span held instead."""
    by_kind: dict[str, set[str]] = {}
    for s in spans:
        by_kind.setdefault(kind_of(s) or "unmarked", set()).update(s.attributes)
    found = "; ".join(f"{len([s for s in spans if (kind_of(s) or 'unmarked') == k])} {k} span(s) with "
                      + (", ".join(sorted(keys)[:10]) + (", …" if len(keys) > 10 else "") if keys else "no attributes")
                      for k, keys in sorted(by_kind.items()))
    return (f"trace {trace_id}: no retriever and no LLM span. Looked for openinference.span.kind RETRIEVER / LLM, "
            "gen_ai.operation.name retrieval / chat, langfuse.observation.type retriever / generation, or attributes "
            f"holding a list of documents, or a prompt of messages and an output; found {found}")


def assemble(trace_id: str, spans: list[Span], query_id_key: str) -> ProductionTrace | Skipped:
    from workbench.triage.traces.program import program_answer
    from workbench.triage.traces.readers import claimed, convention_of, root_question

    spans = sorted(spans, key=lambda s: (s.start_ns or 0, s.where))
    first = spans[0].where
    by_kind: dict[str, list[Span]] = {}
    for s in spans:
        k = kind_of(s)
        if k:
            by_kind.setdefault(k, []).append(s)
    llm = by_kind[LLM][-1] if by_kind.get(LLM) else None
    retrievers = by_kind.get(RETRIEVER, [])
    reranker = next(iter(by_kind.get(RERANKER, [])), None)
    if not retrievers and llm is None:
        return Skipped(first, nothing_read(trace_id, spans))
    retriever, ranking, culprit = None, None, reranker
    try:
        # several retrievals (query rewriting, multi-hop) kept in order: the last one with documents
        # started before the answer fed it; a retriever span wrapping another (LlamaIndex's
        # retrieve/_retrieve) has its documents on one of the two only
        with_docs = []
        for r in retrievers:
            culprit = r
            docs = retrieved(r)
            if docs:
                with_docs.append((r, docs))
        culprit = reranker
        fed = [x for x in with_docs if llm is None or (x[0].start_ns or 0) <= (llm.start_ns or 0)] or with_docs
        if retrievers and not fed:
            return Skipped(retrievers[0].where, "retriever span with no documents")
        if fed:
            retriever, ranking = fed[-1]
        reranked = documents(reranker, "reranker.output_documents") if reranker else None
    except Unreadable as exc:
        return Skipped((culprit or spans[0]).where, str(exc))
    root = root_of(spans)
    text = next((t for t in (query_of(x) for x in (*retrievers[:1], retriever, reranker, llm, spans[0]) if x is not None) if t), "")
    if not text and root.span_id not in {s.span_id for s in (llm, retriever) if s is not None}:
        text = root_question(root)
    prompt = prompt_of(llm) if llm else ""
    missing: list[str] = []
    if not text:
        if not prompt.strip():
            return Skipped(first, f"trace {trace_id}: no query text (input.value / gen_ai.retrieval.query.text / the root's "
                                  "input) and no prompt to find the query in")
        missing.append("no query text in the spans (looked for in the prompt)")
    answer, undecided = program_answer(spans, llm, answer_of(llm), tool_calls_of, kind_of) if llm else (None, None)
    claim = claimed(retriever) if retriever is not None else None
    if ranking is None:
        missing.append("no retriever span: the ranking is unknown")
    elif claim is not None and claim > len(ranking):
        missing.append(f"the retriever span lists {len(ranking)} of the {claim} documents it says it returned")
    if llm is None:
        missing.append("no LLM span: no answer")
    elif not prompt.strip():
        missing.append("no prompt: what the model read is taken from the retriever")
    if undecided:
        missing.append(f"the answer is not isolated: {undecided}")
    stage = reranked or ranking
    starts = [s.start_ns for s in spans if s.start_ns is not None]
    ends = [s.end_ns for s in spans if s.end_ns is not None]
    return ProductionTrace(
        trace_id=trace_id, where=first, query_text=text, query_id=query_id_of(spans, query_id_key),
        ranking=ranking, reranked=reranked, answer=answer, prompt=prompt,
        context_ids=None,  # read from the prompt once the documents are resolved (context.py)
        stage=(stage or []) if llm is not None else None, retrievals=len(retrievers),
        llm_latency_s=llm.seconds if llm else None,
        trace_latency_s=(max(ends) - min(starts)) / 1e9 if starts and ends and max(ends) >= min(starts) else None,
        start_ns=min(starts) if starts else 0,
        convention=convention_of(spans), ranking_claimed=claim, answer_undecided=undecided, missing=missing,
    )


def _retrieval_query(spans: list[Span]) -> str:
    from workbench.triage.traces.readers import root_question

    ordered = sorted(spans, key=lambda s: s.start_ns or 0)
    return next((q for s in ordered if kind_of(s) == RETRIEVER and (q := query_of(s))), "") or root_question(root_of(ordered))


def _llm_prompt(spans: list[Span]) -> str:
    return next((prompt_of(s) for s in sorted(spans, key=lambda s: s.start_ns or 0, reverse=True) if kind_of(s) == LLM), "")


def traces(spans: list[Span], query_id_key: str, joined: list[str] | None = None) -> tuple[list[ProductionTrace], list[Skipped]]:
    """The traces understood and those skipped; split traces joined by their query id (said in `joined`)."""
    from workbench.triage.traces.split import join_by_text, join_split

    groups: dict[str, list[Span]] = {}
    for s in spans:
        groups.setdefault(s.trace_id, []).append(s)
    groups, said = join_split(groups, lambda g: query_id_of(g, query_id_key), kind_of)
    groups, by_text = join_by_text(groups, kind_of, _retrieval_query, _llm_prompt)
    said = [*said, *by_text]
    if joined is not None:
        joined.extend(said)
    out: list[ProductionTrace] = []
    skipped: list[Skipped] = []
    for trace_id, group in groups.items():
        t = assemble(trace_id, group, query_id_key)
        if isinstance(t, Skipped):
            skipped.append(t)
        else:
            out.append(t)
    return out, skipped
