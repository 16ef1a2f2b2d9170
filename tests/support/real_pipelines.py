"""Small RAG pipelines over hotpotqa-100, traced by the REAL instrumentation libraries, their spans
encoded by the OpenTelemetry SDK's own OTLP encoder into the file the Collector's file exporter
writes (one ``{"resourceSpans": …}`` line per export).

Each pipeline: a word-overlap retriever returning the top 10 of the corpus (as the library's own
document type, with metadata), the top 5 stuffed into one prompt, a chat model behind an
OpenAI-compatible endpoint. The endpoint is either the real llama.cpp server (``llm`` tests) or a
fault-free in-process one (FaultServer): the spans' shape is the instrumentor's, not the model's,
and the in-process one lets the answer be chosen (the gold answer when every gold document was
stuffed, else a wrong one) so the production verdicts are known in advance.

The pipeline's own log (``Run.log``) says what it did — the ranking, the documents stuffed, the
answer — for the acceptance tests to compare the import against.
"""

from __future__ import annotations

import base64
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Literal, Sequence

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

# hotpotqa-100 beside the repository (as support/paths.py finds it; this file also runs as a script)
HOTPOT = Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / "hotpotqa-100"


def hotpot_rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (HOTPOT / name).read_text(encoding="utf-8").splitlines() if line.strip()]

Library = Literal["langchain-openinference", "langchain-openllmetry", "llamaindex-openinference",
                  "llamaindex-openinference-summarize", "openai-v2"]
LIBRARIES: tuple[Library, ...] = ("langchain-openinference", "langchain-openllmetry", "llamaindex-openinference",
                                  "llamaindex-openinference-summarize", "openai-v2")
TOP_K, STUFFED = 10, 5
WRONG = "I could not find it."


def words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


class Corpus:
    """hotpotqa-100's corpus and an idf-weighted word-overlap ranking (deterministic ties)."""

    def __init__(self) -> None:
        self.docs = hotpot_rows("corpus.jsonl")
        self.by_id = {d["doc_id"]: d for d in self.docs}
        self.terms = [set(words(d["title"] + " " + d["text"])) for d in self.docs]
        df: dict[str, int] = {}
        for t in self.terms:
            for w in t:
                df[w] = df.get(w, 0) + 1
        self.idf = {w: math.log(1 + len(self.docs) / n) for w, n in df.items()}

    def rank(self, text: str, k: int = TOP_K) -> list[tuple[str, float]]:
        q = set(words(text))
        scored = sorted(((round(sum(self.idf[w] for w in q & t), 4), -i) for i, t in enumerate(self.terms)), reverse=True)
        return [(self.docs[-i]["doc_id"], s) for s, i in scored[:k]]


@dataclass
class Logged:
    """What the pipeline did for one query, from its own side."""

    query_id: str
    query: str
    ranked: list[str]
    stuffed: list[str]
    answer: str


@dataclass
class Run:
    library: Library
    path: Path
    log: list[Logged] = field(default_factory=list)
    spans: int = 0
    with_ids: bool = False  # the project's query ids attached to the spans


def prompt_text(question: str, docs: Sequence[str]) -> str:
    """The prompt the pipelines stuff: the top documents' text, one after the other, then the question."""
    return "Answer from the context only.\n\nContext:\n" + "\n\n".join(docs) + f"\n\nQuestion: {question}\nAnswer:"


def choose_answer(row: dict, stuffed: list[str]) -> str:
    """Wrong when a gold document was not stuffed (an access failure); with every gold document
    stuffed, right except for one query in three (a use failure): the verdicts are then known."""
    read_all = set(row["gold_doc_ids"]) <= set(stuffed)
    return row["answer"] if read_all and sum(map(ord, row["query_id"])) % 3 else WRONG


def write_otlp(spans: Sequence[ReadableSpan], path: Path, batch: int = 64) -> int:
    """The SDK's OTLP encoder, then protobuf's json_format with ids as hex (as the Collector writes them)."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    lines = []
    for i in range(0, len(spans), batch):
        doc = MessageToDict(encode_spans(spans[i:i + batch]))
        for rs in doc.get("resourceSpans", []):
            for ss in rs.get("scopeSpans", []):
                for s in ss.get("spans", []):
                    for k in ("traceId", "spanId", "parentSpanId"):
                        if s.get(k):
                            s[k] = base64.b64decode(s[k]).hex()
        lines.append(json.dumps(doc, separators=(",", ":")) + "\n")
    path.write_text("".join(lines), encoding="utf-8")
    return len(spans)


class Responder:
    """The in-process endpoint's answers: the one chosen for the question the prompt ends with."""

    def __init__(self) -> None:
        self.answers: dict[str, str] = {}

    def __call__(self, messages: list[dict]) -> str:
        text = "\n".join(str(m.get("content", "")) for m in messages)
        found = re.findall(r"Question: (.*?)\nAnswer:", text)
        return self.answers.get(found[-1], WRONG) if found else WRONG


def _provider() -> tuple[TracerProvider, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "rag-prod"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


# ------------------------------------------------------------------ the pipelines


def _langchain(corpus: Corpus, base_url: str, rows: list[dict], run: Run, answers: Responder, model: str,
               with_ids: bool = False) -> None:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import RunnableLambda, RunnablePassthrough
    from langchain_openai import ChatOpenAI

    class OverlapRetriever(BaseRetriever):
        def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
            return [Document(page_content=corpus.by_id[d]["text"], metadata={"title": corpus.by_id[d]["title"], "source_id": d})
                    for d, _ in corpus.rank(query)]

    llm = ChatOpenAI(base_url=base_url, api_key="none", model=model, temperature=0, max_tokens=32)
    prompt = ChatPromptTemplate.from_messages([("human", "{prompt}")])

    def stuff(x: dict) -> dict:
        return {"prompt": prompt_text(x["question"], [d.page_content for d in x["docs"][:STUFFED]])}

    chain = ({"docs": OverlapRetriever(), "question": RunnablePassthrough()} | RunnableLambda(stuff) | prompt | llm
             | StrOutputParser())
    for row in rows:
        ranked = [d for d, _ in corpus.rank(row["query"])]
        stuffed = ranked[:STUFFED]
        answers.answers[row["query"]] = choose_answer(row, stuffed)
        # with_ids: the project's query id attached as LangChain run metadata (OpenInference's `metadata`
        # attribute, OpenLLMetry's traceloop.association.properties.*)
        out = chain.invoke(row["query"], config={"metadata": {"query_id": row["query_id"]}} if with_ids else None)
        run.log.append(Logged(row["query_id"], row["query"], ranked, stuffed, out))


def _llamaindex(corpus: Corpus, base_url: str, rows: list[dict], run: Run, answers: Responder, model: str,
                mode: str = "compact") -> None:
    """A RetrieverQueryEngine: a BaseRetriever of TextNodes (LlamaIndex's own random node ids, the
    corpus id in the metadata), a postprocessor keeping the top 5, the answer synthesised by
    ``mode``; the LLM a CustomLLM on the OpenAI-compatible endpoint (llama-index-core ships no
    OpenAI client of its own)."""
    import openai
    from llama_index.core import PromptTemplate
    from llama_index.core.base.llms.types import CompletionResponse, CompletionResponseGen, LLMMetadata
    from llama_index.core.llms.callbacks import llm_completion_callback
    from llama_index.core.llms.custom import CustomLLM
    from llama_index.core.postprocessor.types import BaseNodePostprocessor
    from llama_index.core.query_engine import RetrieverQueryEngine
    from llama_index.core.response_synthesizers import get_response_synthesizer
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

    client = openai.OpenAI(base_url=base_url, api_key="none")

    class EndpointLLM(CustomLLM):
        @property
        def metadata(self) -> LLMMetadata:
            return LLMMetadata(context_window=8192, num_output=32, model_name=model)

        @llm_completion_callback()
        def complete(self, prompt: str, formatted: bool = False, **kwargs) -> CompletionResponse:
            out = client.chat.completions.create(model=model, messages=[{"role": "user", "content": prompt}],
                                                 temperature=0, max_tokens=32)
            return CompletionResponse(text=out.choices[0].message.content or "")

        @llm_completion_callback()
        def stream_complete(self, prompt: str, formatted: bool = False, **kwargs) -> CompletionResponseGen:
            raise NotImplementedError

    class OverlapRetriever(BaseRetriever):
        def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
            return [NodeWithScore(node=TextNode(text=corpus.by_id[d]["text"], metadata={"title": corpus.by_id[d]["title"],
                                                                                          "source_id": d},
                                                excluded_llm_metadata_keys=["title", "source_id"]), score=sc)
                    for d, sc in corpus.rank(query_bundle.query_str)]

    class TopFive(BaseNodePostprocessor):
        def _postprocess_nodes(self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None) -> list[NodeWithScore]:
            return nodes[:STUFFED]

    template = PromptTemplate("Answer from the context only.\n\nContext:\n{context_str}\n\nQuestion: {query_str}\nAnswer:")
    llm = EndpointLLM()
    engine = RetrieverQueryEngine(retriever=OverlapRetriever(), node_postprocessors=[TopFive()],
                                  response_synthesizer=get_response_synthesizer(llm=llm, response_mode=mode,  # type: ignore[arg-type]
                                                                                text_qa_template=template))
    for row in rows:
        ranked = [d for d, _ in corpus.rank(row["query"])]
        stuffed = ranked[:STUFFED]
        answers.answers[row["query"]] = choose_answer(row, stuffed)
        out = engine.query(row["query"])
        run.log.append(Logged(row["query_id"], row["query"], ranked, stuffed, str(out.response or "")))


def _openai_v2(corpus: Corpus, base_url: str, rows: list[dict], run: Run, answers: Responder, model: str,
               provider: TracerProvider) -> None:
    """The OpenAI client instrumented by opentelemetry-instrumentation-openai-v2, the retrieval a
    manual span with the OTel GenAI retrieval attributes, both under one root span."""
    import openai

    client = openai.OpenAI(base_url=base_url, api_key="none")
    tracer = provider.get_tracer("rag-pipeline")
    for row in rows:
        ranked_scored = corpus.rank(row["query"])
        ranked = [d for d, _ in ranked_scored]
        stuffed = ranked[:STUFFED]
        answers.answers[row["query"]] = choose_answer(row, stuffed)
        with tracer.start_as_current_span("rag"):
            with tracer.start_as_current_span("retrieval", attributes={
                    "gen_ai.operation.name": "retrieval", "gen_ai.retrieval.query.text": row["query"],
                    "gen_ai.retrieval.documents": json.dumps([{"id": d, "score": s} for d, s in ranked_scored])}):
                pass
            text = prompt_text(row["query"], [corpus.by_id[d]["text"] for d in stuffed])
            out = client.chat.completions.create(model=model, messages=[{"role": "user", "content": text}],
                                                 temperature=0, max_tokens=32)
        run.log.append(Logged(row["query_id"], row["query"], ranked, stuffed, out.choices[0].message.content or ""))


def run_pipeline(library: Library, path: Path, base_url: str, rows: list[dict], answers: Responder,
                 model: str = "local", with_ids: bool = False) -> Run:
    """Run one library's pipeline over ``rows`` (hotpotqa-100 queries) with its instrumentor on, then
    off again (the instrumentors patch process-wide), and write the OTLP JSON file. OpenLLMetry's
    instrumentor traces nothing once instrumented a second time in one process: run it once."""
    corpus = Corpus()
    provider, exporter = _provider()
    run = Run(library, path, with_ids=with_ids)
    instrumentor: object
    if library == "langchain-openinference":
        from openinference.instrumentation.langchain import LangChainInstrumentor

        instrumentor = LangChainInstrumentor()
    elif library == "langchain-openllmetry":
        from opentelemetry.instrumentation.langchain import LangchainInstrumentor

        instrumentor = LangchainInstrumentor()
    elif library.startswith("llamaindex-openinference"):
        from openinference.instrumentation.llama_index import LlamaIndexInstrumentor

        instrumentor = LlamaIndexInstrumentor()
    else:
        from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

        instrumentor = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=provider)  # type: ignore[attr-defined]
    try:
        if library.startswith("langchain"):
            _langchain(corpus, base_url, rows, run, answers, model, with_ids)
        elif library.startswith("llamaindex-openinference"):
            _llamaindex(corpus, base_url, rows, run, answers, model,
                        "simple_summarize" if library.endswith("summarize") else "compact")
        else:
            _openai_v2(corpus, base_url, rows, run, answers, model, provider)
    finally:
        instrumentor.uninstrument()  # type: ignore[attr-defined]
    provider.force_flush()
    run.spans = write_otlp(exporter.get_finished_spans(), path)
    return run


def query_rows(n: int | None = None) -> list[dict]:
    rows = hotpot_rows("queries.jsonl")
    return rows if n is None else rows[:n]


Make = Callable[[Library], Run]


def main(argv: list[str]) -> str:
    """``real_pipelines.py LIBRARY OUT.otlp.jsonl [N] [--base-url URL] [--ids]``: the pipeline over the
    first N (default all 100) hotpotqa-100 queries, on the real local llama.cpp server (SmolLM2) unless
    ``--base-url`` names an OpenAI-compatible endpoint; its traces written to OUT, its own log to
    OUT.log.json. ``--ids``: the query ids attached as run metadata (LangChain)."""
    import argparse
    import dataclasses

    from workbench.llm.server import MODEL_ALIAS, default_server

    ap = argparse.ArgumentParser(prog="real_pipelines.py")
    ap.add_argument("library", choices=LIBRARIES)
    ap.add_argument("out", type=Path)
    ap.add_argument("n", type=int, nargs="?")
    ap.add_argument("--base-url")
    ap.add_argument("--ids", action="store_true")
    args = ap.parse_args(argv)
    server = None if args.base_url else default_server()
    try:
        run = run_pipeline(args.library, args.out, args.base_url or server.base_url, query_rows(args.n),  # type: ignore[union-attr]
                           Responder(), "local" if args.base_url else MODEL_ALIAS, with_ids=args.ids)
    finally:
        if server is not None:
            server.stop()
    log = args.out.with_name(args.out.name + ".log.json")
    log.write_text(json.dumps([dataclasses.asdict(e) for e in run.log]), encoding="utf-8")
    return f"{run.spans} spans of {len(run.log)} traces ({args.library}): {run.path}; the pipeline's log: {log}"


def read_log(library: Library, out: Path) -> Run:
    """The Run a ``main`` in another process made."""
    rows = json.loads(out.with_name(out.name + ".log.json").read_text(encoding="utf-8"))
    return Run(library, out, [Logged(**r) for r in rows])


def planned_answers(rows: list[dict]) -> Responder:
    """The in-process endpoint's answers fixed in advance (choose_answer on the ranking's top 5),
    for a pipeline run in another process."""
    corpus, r = Corpus(), Responder()
    for row in rows:
        r.answers[row["query"]] = choose_answer(row, [d for d, _ in corpus.rank(row["query"])[:STUFFED]])
    return r


if __name__ == "__main__":
    import sys

    print(main(sys.argv[1:]))
