"""RAG over hotpotqa-100 traced by Langfuse's OpenTelemetry-based SDK, run in its own virtualenv
(tests/triage/requirements/langfuse.txt): ``python langfuse_rag.py SHAPE OUT [N]``.
  observe   @observe on the pipeline, @observe(as_type="retriever") on the search (its documents
            {title, text} as the function returns them), the chat call through langfuse.openai
  explicit  start_as_current_observation: a span, a retriever observation whose output is
            [{id, content, score}], a generation; the query id in the trace metadata
The SDK's own span processor exports to the OpenTelemetry SDK exporter handed to it (nothing
leaves the machine); the chat model is a stub on loopback. Writes OUT (OTLP JSON) and OUT.log.json."""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import STUFFED, Corpus, FaultServer, Logged, choose_answer, question_in, rows, write_log, write_otlp  # noqa: E402

SHAPES = ("observe", "explicit")


def prompt_text(question: str, docs: list[str]) -> str:
    return "Answer from the context only.\n\nContext:\n" + "\n\n".join(docs) + f"\n\nQuestion: {question}\nAnswer:"


def main(shape: str, out: Path, n: int | None) -> None:
    for k, v in {"LANGFUSE_PUBLIC_KEY": "pk-lf-test", "LANGFUSE_SECRET_KEY": "sk-lf-test",
                 "LANGFUSE_BASE_URL": "http://127.0.0.1:9"}.items():  # nothing is sent: the exporter is ours
        os.environ[k] = v
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    corpus, queries = Corpus(), rows(n)
    answers = {r["query"]: choose_answer(r, [d for d, _ in corpus.rank(r["query"])[:STUFFED]]) for r in queries}

    def respond(messages: list[dict]) -> str:
        q = question_in("\n".join(str(m.get("content", "")) for m in messages), list(answers))
        return answers[q] if q else "?"

    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "langfuse-rag"}))
    from langfuse import Langfuse, observe, propagate_attributes

    langfuse = Langfuse(tracer_provider=provider, span_exporter=exporter)
    log = []
    with FaultServer(respond) as server:
        if shape == "observe":
            from langfuse.openai import OpenAI

            client = OpenAI(base_url=server.base_url, api_key="none")

            @observe(as_type="retriever")
            def search(query: str) -> list[dict]:
                return [{"title": corpus.by_id[d]["title"], "text": corpus.by_id[d]["text"]} for d, _ in corpus.rank(query)]

            @observe()
            def rag(question: str) -> str:
                docs = search(question)
                text = prompt_text(question, [d["text"] for d in docs[:STUFFED]])
                got = client.chat.completions.create(model="stub", messages=[{"role": "user", "content": text}],
                                                     temperature=0, max_tokens=32)
                return got.choices[0].message.content or ""

            for r in queries:
                ranked = [d for d, _ in corpus.rank(r["query"])]
                log.append(Logged(r["query_id"], r["query"], ranked, ranked[:STUFFED], rag(r["query"])))
        else:
            import openai

            client = openai.OpenAI(base_url=server.base_url, api_key="none")
            for r in queries:
                ranked_scored = corpus.rank(r["query"])
                ranked = [d for d, _ in ranked_scored]
                with langfuse.start_as_current_observation(as_type="span", name="rag", input={"question": r["query"]}) as root:
                    with propagate_attributes(metadata={"query_id": r["query_id"]}):
                        with langfuse.start_as_current_observation(as_type="retriever", name="search", input=r["query"]) as ret:
                            ret.update(output=[{"id": d, "content": corpus.by_id[d]["text"], "score": s} for d, s in ranked_scored])
                        messages = [{"role": "user", "content": prompt_text(r["query"], [corpus.by_id[d]["text"] for d in ranked[:STUFFED]])}]
                        with langfuse.start_as_current_observation(as_type="generation", name="answer", model="stub",
                                                                   input=messages) as gen:
                            got = client.chat.completions.create(model="stub", messages=messages, temperature=0, max_tokens=32)
                            answer = got.choices[0].message.content or ""
                            gen.update(output=answer)
                        root.update(output=answer)
                log.append(Logged(r["query_id"], r["query"], ranked, ranked[:STUFFED], answer))
    langfuse.flush()
    spans = exporter.get_finished_spans()
    write_otlp(spans, out)
    write_log(out, log)
    print(f"{len(spans)} spans, {len(log)} queries ({shape})")


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else None)
