"""RAG over hotpotqa-100 traced by OpenLIT (OTel GenAI), run in OpenLIT's own virtualenv
(tests/triage/requirements/openlit.txt): ``python openlit_rag.py SHAPE OUT [N]``.
  openai     retrieval in plain Python, one chat call through the OpenAI SDK: one chat span per
             query, the whole prompt and answer in gen_ai.input/output.messages, no query attribute
  langchain  a LangChain chain (retriever | prompt | ChatOpenAI | StrOutputParser): OpenLIT's
             retrieval span records the first 3 of the 10 documents it counts
The chat model is a stub on loopback. Writes OUT (OTLP JSON) and OUT.log.json."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import STUFFED, Corpus, FaultServer, Logged, choose_answer, question_in, rows, write_log, write_otlp  # noqa: E402

SHAPES = ("openai", "langchain")


def prompt_text(question: str, docs: list[str]) -> str:
    return "Answer from the context only.\n\nContext:\n" + "\n\n".join(docs) + f"\n\nQuestion: {question}\nAnswer:"


def main(shape: str, out: Path, n: int | None) -> None:
    from opentelemetry import trace
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    corpus, queries = Corpus(), rows(n)
    answers = {}
    for r in queries:
        answers[r["query"]] = choose_answer(r, [d for d, _ in corpus.rank(r["query"])[:STUFFED]])

    def respond(messages: list[dict]) -> str:
        q = question_in("\n".join(str(m.get("content", "")) for m in messages), list(answers))
        return answers[q] if q else "?"

    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "openlit-rag"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)  # OpenLIT reuses the provider it finds
    pricing = Path(tempfile.mkdtemp()) / "pricing.json"
    pricing.write_text("{}")  # OpenLIT fetches its price list from the network otherwise
    import openlit

    openlit.init(application_name="rag", disable_metrics=True, disable_events=True, pricing_json=str(pricing),
                 disabled_instrumentors=["requests", "urllib3", "urllib", "httpx", "aiohttp-client"])
    log = []
    with FaultServer(respond) as server:
        if shape == "openai":
            import openai

            client = openai.OpenAI(base_url=server.base_url, api_key="none")
            for r in queries:
                ranked = [d for d, _ in corpus.rank(r["query"])]
                text = prompt_text(r["query"], [corpus.by_id[d]["text"] for d in ranked[:STUFFED]])
                got = client.chat.completions.create(model="stub", messages=[{"role": "user", "content": text}],
                                                     temperature=0, max_tokens=32)
                log.append(Logged(r["query_id"], r["query"], None, ranked[:STUFFED], got.choices[0].message.content or ""))
        else:
            from langchain_core.callbacks import CallbackManagerForRetrieverRun
            from langchain_core.documents import Document
            from langchain_core.output_parsers import StrOutputParser
            from langchain_core.prompts import ChatPromptTemplate
            from langchain_core.retrievers import BaseRetriever
            from langchain_core.runnables import RunnableLambda, RunnablePassthrough
            from langchain_openai import ChatOpenAI

            class OverlapRetriever(BaseRetriever):
                def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
                    return [Document(page_content=corpus.by_id[d]["text"],
                                     metadata={"title": corpus.by_id[d]["title"], "source": f"wiki/{d}.txt"})
                            for d, _ in corpus.rank(query)]

            llm = ChatOpenAI(base_url=server.base_url, api_key="none", model="stub", temperature=0, max_tokens=32)
            prompt = ChatPromptTemplate.from_messages([("human", "{prompt}")])

            def stuff(x: dict) -> dict:
                return {"prompt": prompt_text(x["question"], [d.page_content for d in x["docs"][:STUFFED]])}

            chain = ({"docs": OverlapRetriever(), "question": RunnablePassthrough()} | RunnableLambda(stuff) | prompt | llm
                     | StrOutputParser())
            for r in queries:
                ranked = [d for d, _ in corpus.rank(r["query"])]
                got = chain.invoke(r["query"])
                log.append(Logged(r["query_id"], r["query"], ranked, ranked[:STUFFED], got))
    provider.force_flush()
    spans = exporter.get_finished_spans()
    write_otlp(spans, out)
    write_log(out, log)
    print(f"{len(spans)} spans, {len(log)} queries ({shape})")


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else None)
