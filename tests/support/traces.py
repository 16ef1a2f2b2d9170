"""Production traces made by the real OpenTelemetry SDK: a small hand-written RAG pipeline
(word-overlap retriever, a reranker, an extractive reader) over a project's documents, traced with
OpenInference attributes (or the OTel GenAI ones) and exported through a real span exporter as
OTLP JSON, one resourceSpans document per export batch, as the Collector's file exporter writes it
(the SDK's own OTLP encoder, then protobuf's json_format, ids as hex like the Collector)."""

from __future__ import annotations

import base64
import json
import math
import re
from pathlib import Path
from typing import Sequence

from openinference.semconv.trace import (DocumentAttributes, MessageAttributes, OpenInferenceSpanKindValues,
                                         RerankerAttributes, SpanAttributes)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from workbench.project.load import load_project
from workbench.records import Query

KIND = SpanAttributes.OPENINFERENCE_SPAN_KIND


class OtlpJsonFileExporter(SpanExporter):
    """Appends one OTLP JSON line per export call."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.batches = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        from google.protobuf.json_format import MessageToDict
        from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

        doc = MessageToDict(encode_spans(spans))
        for rs in doc.get("resourceSpans", []):
            for ss in rs.get("scopeSpans", []):
                for s in ss.get("spans", []):
                    for k in ("traceId", "spanId", "parentSpanId"):
                        if k in s:  # json_format writes bytes as base64; OTLP JSON (the Collector) as hex
                            s[k] = base64.b64decode(s[k]).hex()
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(doc, separators=(",", ":")) + "\n")
        self.batches += 1
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass


def words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


class Pipeline:
    """Production as a user might have built it: idf-weighted word overlap, a title-overlap reranker,
    a reader that answers from the context when the answer is in it (else the top sentence)."""

    def __init__(self, root: Path, k: int = 10, read: int = 3) -> None:
        self.project = load_project(root)
        self.k, self.read = k, read
        self.docs = list(self.project.documents.values())
        self.terms = [set(words(d.title + " " + d.text)) for d in self.docs]
        df: dict[str, int] = {}
        for t in self.terms:
            for w in t:
                df[w] = df.get(w, 0) + 1
        self.idf = {w: math.log(1 + len(self.docs) / n) for w, n in df.items()}

    def retrieve(self, text: str) -> list[tuple[int, float]]:
        q = set(words(text))
        scored = [(round(sum(self.idf[w] for w in q & t), 4), -i) for i, t in enumerate(self.terms)]
        scored.sort(reverse=True)
        return [(self.docs[-i].doc_id, s) for s, i in scored[: self.k]]

    def rerank(self, text: str, ranked: list[tuple[int, float]]) -> list[tuple[int, float]]:
        q = set(words(text))
        out = [(d, round(s + 2.0 * len(q & set(words(self.project.documents[d].title))), 4)) for d, s in ranked]
        return sorted(out, key=lambda x: -x[1])

    def answer(self, q: Query, context: list[int]) -> str:
        texts = " ".join(self.project.documents[d].text for d in context)
        if q.answer and q.answer.lower() in texts.lower():
            return q.answer
        top = self.project.documents[context[0]].text if context else ""
        return top.split(". ")[0]

    def doc_key(self, doc_id: int) -> str:
        d = self.project.documents[doc_id]
        return d.source_id if d.source_id is not None else str(doc_id)


def _doc_attrs(prefix: str, p: Pipeline, ranked: list[tuple[int, float]]) -> dict:
    out: dict = {}
    for i, (d, s) in enumerate(ranked):
        out[f"{prefix}.{i}.{DocumentAttributes.DOCUMENT_ID}"] = p.doc_key(d)
        out[f"{prefix}.{i}.{DocumentAttributes.DOCUMENT_SCORE}"] = s
        out[f"{prefix}.{i}.{DocumentAttributes.DOCUMENT_CONTENT}"] = p.project.documents[d].text
    return out


def prompt_messages(p: Pipeline, q: Query, context: list[int]) -> list[tuple[str, str]]:
    docs = "\n\n".join(f"[{p.doc_key(d)}] {p.project.documents[d].text}" for d in context)
    return [("system", "Answer from the documents only."), ("user", f"Documents:\n{docs}\n\nQuestion: {q.query}")]


def write_traces(root: Path, path: Path, queries: list[Query] | None = None, *, with_ids: bool = False,
                 rerank: bool = True, genai: bool = False, text_of=None) -> Path:
    """Run the pipeline for each query (default: all the project's), tracing it with the real SDK."""
    p = Pipeline(root)
    exporter = OtlpJsonFileExporter(path)
    provider = TracerProvider(resource=Resource.create({"service.name": "rag-prod"}))
    provider.add_span_processor(BatchSpanProcessor(exporter, max_export_batch_size=64))
    tracer = provider.get_tracer("rag-pipeline")
    for q in queries if queries is not None else p.project.queries:
        text = text_of(q) if text_of else q.query
        root_attrs = {KIND: OpenInferenceSpanKindValues.CHAIN.value, SpanAttributes.INPUT_VALUE: text}
        if with_ids:
            root_attrs[SpanAttributes.METADATA] = json.dumps({"query_id": q.query_id})
        with tracer.start_as_current_span("rag", attributes=root_attrs):
            ranked = p.retrieve(text)
            if genai:
                with tracer.start_as_current_span("retrieval", attributes={
                        "gen_ai.operation.name": "retrieval", "gen_ai.retrieval.query.text": text,
                        "gen_ai.retrieval.documents": json.dumps([{"id": p.doc_key(d), "score": s} for d, s in ranked])}):
                    pass
            else:
                with tracer.start_as_current_span("retrieve", attributes={
                        KIND: OpenInferenceSpanKindValues.RETRIEVER.value, SpanAttributes.INPUT_VALUE: text,
                        **_doc_attrs(SpanAttributes.RETRIEVAL_DOCUMENTS, p, ranked)}):
                    pass
            final = ranked
            if rerank and not genai:
                final = p.rerank(text, ranked)
                with tracer.start_as_current_span("rerank", attributes={
                        KIND: OpenInferenceSpanKindValues.RERANKER.value, RerankerAttributes.RERANKER_QUERY: text,
                        RerankerAttributes.RERANKER_TOP_K: len(final),
                        **_doc_attrs(RerankerAttributes.RERANKER_INPUT_DOCUMENTS, p, ranked),
                        **_doc_attrs(RerankerAttributes.RERANKER_OUTPUT_DOCUMENTS, p, final)}):
                    pass
            context = [d for d, _ in final[: p.read]]
            msgs = prompt_messages(p, q, context)
            answer = p.answer(q, context)
            if genai:
                attrs = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "reader",
                         "gen_ai.input.messages": json.dumps([{"role": r, "parts": [{"type": "text", "content": c}]} for r, c in msgs]),
                         "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": answer}]}])}
            else:
                attrs = {KIND: OpenInferenceSpanKindValues.LLM.value, SpanAttributes.LLM_MODEL_NAME: "reader",
                         SpanAttributes.OUTPUT_VALUE: answer,
                         f"{SpanAttributes.LLM_OUTPUT_MESSAGES}.0.{MessageAttributes.MESSAGE_ROLE}": "assistant",
                         f"{SpanAttributes.LLM_OUTPUT_MESSAGES}.0.{MessageAttributes.MESSAGE_CONTENT}": answer}
                for i, (r, c) in enumerate(msgs):
                    attrs[f"{SpanAttributes.LLM_INPUT_MESSAGES}.{i}.{MessageAttributes.MESSAGE_ROLE}"] = r
                    attrs[f"{SpanAttributes.LLM_INPUT_MESSAGES}.{i}.{MessageAttributes.MESSAGE_CONTENT}"] = c
            with tracer.start_as_current_span("llm", attributes=attrs):
                pass
    provider.shutdown()
    return path


def otlp_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def all_spans(path: Path) -> list[dict]:
    return [s for doc in otlp_lines(path) for rs in doc["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]


def write_otlp(path: Path, docs: list[dict]) -> Path:
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    return path


if __name__ == "__main__":  # the README's worked example: python tests/support/traces.py PROJECT OUT
    import sys

    if len(sys.argv) != 3:
        sys.exit("usage: traces.py PROJECT OUT.otlp.jsonl  (traces of the pipeline over every query of PROJECT)")
    out = Path(sys.argv[2])
    out.unlink(missing_ok=True)
    write_traces(Path(sys.argv[1]), out)
    print(f"{len(all_spans(out))} spans in {len(otlp_lines(out))} OTLP JSON lines: {out}")
