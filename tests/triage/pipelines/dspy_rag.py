"""DSPy RAG programs over hotpotqa-100, traced by openinference-instrumentation-dspy, run in
DSPy's own virtualenv (tests/triage/requirements/dspy.txt): ``python dspy_rag.py SHAPE OUT [N]``.

The retriever is DSPy's own ColBERTv2 client against a ColBERTv2-compatible server on loopback
(the word-overlap ranking of hotpotqa-100, passages as ``title | text`` as ColBERT collections
hold them), or, in the ``module`` shapes, plain Python inside the module (no retriever span). The
chat model is a stub on loopback answering in the adapter's format, its reasoning always quoting
the gold answer. Shapes:
  retrieve-cot    dspy.Retrieve(k=10), ChainOfThought, ChatAdapter
  retrieve-predict dspy.Retrieve(k=10), Predict, ChatAdapter
  module-predict  retrieval in the module (untraced), Predict
  twohop-cot      two dspy.Retrieve hops (the second query written by the model), ChainOfThought
  json-cot        dspy.Retrieve(k=10), ChainOfThought, JSONAdapter
Writes OUT (OTLP JSON) and OUT.log.json (the program's own log)."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import STUFFED, TOP_K, Corpus, FaultServer, Logged, choose_answer, fields_asked, question_in, reasoning_quoting, rows, write_log, write_otlp  # noqa: E402

SHAPES = ("retrieve-cot", "retrieve-predict", "module-predict", "twohop-cot", "json-cot")
HOP = 3  # documents of each hop the two-hop program stuffs


def passage(corpus: Corpus, doc_id: str) -> str:
    d = corpus.by_id[doc_id]
    return f"{d['title']} | {d['text']}"


class ColBERTServer:
    """GET ?query=&k= → {"topk": [{text, pid, score}]}, as a ColBERTv2 server answers."""

    def __init__(self, corpus: Corpus) -> None:
        # a ColBERT collection numbers its passages its own way (here: by title), not as the project does
        pid = {d["doc_id"]: i for i, d in enumerate(sorted(corpus.docs, key=lambda d: (d["title"], d["doc_id"])))}

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                q = parse_qs(urlparse(self.path).query)
                ranked = corpus.rank(q["query"][0], int(q.get("k", ["10"])[0]))
                body = json.dumps({"topk": [{"text": passage(corpus, d), "pid": pid[d], "score": s} for d, s in ranked]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"


def main(shape: str, out: Path, n: int | None) -> None:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm fetches it from the network otherwise
    os.environ.setdefault("DSPY_CACHEDIR", tempfile.mkdtemp(prefix="dspy-cache-"))
    import dspy
    from openinference.instrumentation.dspy import DSPyInstrumentor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    corpus, queries = Corpus(), rows(n)
    by_question = {r["query"]: r for r in queries}
    plan: dict[str, dict] = {}  # question → what the stub says
    for r in queries:
        first = [d for d, _ in corpus.rank(r["query"])]
        if shape == "twohop-cot":
            follow = f"{r['query']} {corpus.by_id[first[0]]['title']}"
            second = [d for d, _ in corpus.rank(follow)]
            stuffed = list(dict.fromkeys(first[:HOP] + second[:HOP]))
            plan[r["query"]] = {"search_query": follow, "ranked": second, "stuffed": stuffed}
        else:
            plan[r["query"]] = {"ranked": None if shape.startswith("module") else first, "stuffed": first[:STUFFED]}
        plan[r["query"]]["answer"] = choose_answer(r, plan[r["query"]]["stuffed"])

    def respond(messages: list[dict]) -> str:
        text = "\n".join(str(m.get("content", "")) for m in messages)
        q = question_in(text, list(by_question))
        names, as_json = fields_asked(messages)
        p = plan[q] if q else {}
        gold = by_question[q]["answer"] if q else ""
        values = {"reasoning": reasoning_quoting(gold, q or ""), "answer": p.get("answer", "?"),
                  "search_query": p.get("search_query", q or "")}
        picked = {k: values.get(k, "") for k in names}
        if as_json:
            return json.dumps(picked)
        return "".join(f"[[ ## {k} ## ]]\n{v}\n\n" for k, v in picked.items()) + "[[ ## completed ## ]]"

    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "dspy-rag"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    DSPyInstrumentor().instrument(tracer_provider=provider)
    server, colbert = FaultServer(respond), ColBERTServer(corpus)
    with server:
        lm = dspy.LM("openai/stub", api_base=server.base_url, api_key="none", cache=False, temperature=0.0, max_tokens=300)
        adapter = dspy.JSONAdapter() if shape.startswith("json") else dspy.ChatAdapter()
        dspy.configure(lm=lm, rm=dspy.ColBERTv2(url=colbert.url), adapter=adapter)
        try:
            dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
        except Exception:  # older DSPy: no request cache to turn off
            pass
        program = build(dspy, shape, corpus)
        log = []
        for r in queries:
            pred = program(question=r["query"])
            p = plan[r["query"]]
            log.append(Logged(r["query_id"], r["query"], p["ranked"], p["stuffed"], pred.answer))
    DSPyInstrumentor().uninstrument()
    provider.force_flush()
    write_otlp(exporter.get_finished_spans(), out)
    write_log(out, log)
    print(f"{len(exporter.get_finished_spans())} spans, {len(log)} queries ({shape})")


def build(dspy, shape: str, corpus: Corpus):
    reader = dspy.ChainOfThought if shape.endswith("cot") else dspy.Predict

    class RAG(dspy.Module):
        def __init__(self) -> None:
            super().__init__()
            self.retrieve = dspy.Retrieve(k=TOP_K)
            self.generate = reader("context, question -> answer")

        def forward(self, question: str):
            context = self.retrieve(question).passages[:STUFFED]
            return self.generate(context=context, question=question)

    class PlainRAG(dspy.Module):
        """Retrieval as plain Python in the module: no span says what was retrieved."""

        def __init__(self) -> None:
            super().__init__()
            self.generate = reader("context, question -> answer")

        def forward(self, question: str):
            context = [corpus.by_id[d]["text"] for d, _ in corpus.rank(question)[:STUFFED]]
            out = self.generate(context=context, question=question)
            return dspy.Prediction(context=context, answer=out.answer)

    class TwoHop(dspy.Module):
        def __init__(self) -> None:
            super().__init__()
            self.retrieve = dspy.Retrieve(k=TOP_K)
            self.follow_up = dspy.Predict("context, question -> search_query")
            self.generate = reader("context, question -> answer")

        def forward(self, question: str):
            first = self.retrieve(question).passages
            query = self.follow_up(context=first[:HOP], question=question).search_query
            second = self.retrieve(query).passages
            context = list(dict.fromkeys(first[:HOP] + second[:HOP]))
            return self.generate(context=context, question=question)

    return {"module-predict": PlainRAG, "twohop-cot": TwoHop}.get(shape, RAG)()


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else None)
