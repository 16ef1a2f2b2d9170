"""Issue 39, the reading itself (quick run): structured answers isolated from reasoning or left
undecided; an instrumentation no test names (an in-house app's own attribute names, spans made and
exported by the OpenTelemetry SDK) read generically, its context from the prompt against the whole
corpus; split parts joined by query text and time; a file nothing can be read from refused, naming
what was looked for and what each kind of span held; documents without ids added by content."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from support.real_pipelines import STUFFED, Corpus, prompt_text, query_rows, write_otlp
from workbench.cli import main
from workbench.project.load import load_project
from workbench.triage.traces.answer import parse_text, parse_value


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


# ------------------------------------------------------------------ the answer, isolated


@pytest.mark.parametrize("text, answer", [
    ("[[ ## reasoning ## ]]\nThe passages mention Paris.\n\n[[ ## answer ## ]]\nLyon\n\n[[ ## completed ## ]]", "Lyon"),
    ('{"reasoning": "It says Paris somewhere.", "answer": "Lyon"}', "Lyon"),
    ('[{"reasoning": "Paris, maybe.", "answer": "Lyon"}]', "Lyon"),  # DSPy's adapter span: a list of one
    ('```json\n{"answer": "Lyon"}\n```', "Lyon"),
    ("<think>Paris is the gold, surely</think>\nLyon", "Lyon"),
    ('{"context": ["Paris is a city."], "answer": "Lyon"}', "Lyon"),
    ("Lyon", "Lyon"),
])
def test_the_answer_is_isolated_from_reasoning(text, answer):
    got = parse_text(text)
    assert (got.answer, got.undecided) == (answer, None)


@pytest.mark.parametrize("text, why", [
    ("[[ ## reasoning ## ]]\nParis, it says.\n\n[[ ## completed ## ]]", "DSPy's output fields"),
    ('{"reasoning": "Paris.", "notes": "Lyon?", "draft": "Nice"}', "none holds the answer alone"),
    ("<think>Paris</think>", "reasoning only"),
])
def test_an_answer_that_cannot_be_isolated_is_undecided_with_why(text, why):
    got = parse_text(text)
    assert got.answer is None and why in (got.undecided or "")


def test_a_tool_call_s_arguments_hold_the_answer():
    got = parse_value({"tool_calls": [{"function": {"name": "final", "arguments": '{"answer": "Lyon"}'}}]})
    assert (got.answer, got.undecided) == ("Lyon", None)


# ------------------------------------------------------------------ an instrumentation no test names


@pytest.fixture
def project(hotpot_copy) -> Path:
    return hotpot_copy


def in_house_spans(path: Path, rows: list[dict], split: bool = False, question: bool = True) -> dict[str, list[str]]:
    """An in-house RAG app's own spans (its own attribute names, none of a convention), made and
    exported by the OpenTelemetry SDK. ``split``: retrieval and chat as two root traces (no id joins
    them). Returns what each query's prompt held (its stuffed documents)."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    corpus, exporter = Corpus(), InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("in-house-rag")
    stuffed = {}
    for row in rows:
        ranked = [d for d, _ in corpus.rank(row["query"])]
        stuffed[row["query_id"]] = ranked[:STUFFED]
        docs = [{"title": corpus.by_id[d]["title"], "text": corpus.by_id[d]["text"]} for d in ranked]
        messages = [{"role": "user", "content": prompt_text(row["query"], [corpus.by_id[d]["text"] for d in ranked[:STUFFED]])}]
        with tracer.start_as_current_span("handle", attributes={"app.request.question": row["query"]} if question else {}):
            with tracer.start_as_current_span("search", attributes={"app.search.results": json.dumps(docs)}):
                pass
            if not split:
                chat(tracer, messages, row["answer"])
        if split:  # the chat span the root of a trace of its own
            chat(tracer, messages, row["answer"])
    write_otlp(exporter.get_finished_spans(), path)
    return stuffed


def chat(tracer, messages: list[dict], answer: str) -> None:
    with tracer.start_as_current_span("llm", attributes={"app.llm.messages": json.dumps(messages), "app.llm.response": answer}):
        pass


def check(project: Path, rows: list[dict], stuffed: dict[str, list[str]]) -> None:
    from workbench.triage.answers import load_answers

    p = load_project(project)
    docid = {d.source_id: d.doc_id for d in p.documents.values()}
    got = {a.query_id: a for a in load_answers(p, "prod").answers}
    for row in rows:
        assert got[row["query_id"]].answer == row["answer"]
        assert got[row["query_id"]].context_doc_ids == [docid[d] for d in stuffed[row["query_id"]]]


def test_an_in_house_instrumentation_is_read_generically(project, tmp_path):
    rows = query_rows(6)
    stuffed = in_house_spans(tmp_path / "app.otlp.jsonl", rows)
    dry = cli("import-traces", project, tmp_path / "app.otlp.jsonl", "--name", "prod", "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert dry.output.count("read as generic; nothing missing") == 6
    result = cli("import-traces", project, tmp_path / "app.otlp.jsonl", "--name", "prod", "--no-judge")
    assert result.exit_code == 0, result.output
    assert "imported 6 queries: 0 matched by id, 6 by text, 0 added" in result.output
    assert "documents resolved: 60 by content" in result.output  # {title, text}, no id: by their text
    check(project, rows, stuffed)


@pytest.mark.parametrize("shape", ["no query attribute", "split"])
def test_the_query_from_the_prompt_and_split_parts_joined_by_query_text_and_time(project, tmp_path, shape):
    """No query attribute anywhere: the project query the prompt asks. Retrieval and chat as two root
    traces, no id joining them: joined by the query text the prompt holds, the chat after the retrieval."""
    rows = query_rows(5)
    split = shape == "split"
    stuffed = in_house_spans(tmp_path / "app.otlp.jsonl", rows, split=split, question=split)
    result = cli("import-traces", project, tmp_path / "app.otlp.jsonl", "--name", "prod", "--no-judge")
    assert result.exit_code == 0, result.output
    assert "imported 5 queries: 0 matched by id, 5 by text, 0 added" in result.output and "5 answers as" in result.output
    assert result.stderr.count("its prompt holds the retrieval's query, started after it") == (5 if split else 0)
    check(project, rows, stuffed)


def test_a_file_nothing_can_be_read_from_is_refused_naming_what_was_looked_for(project, tmp_path):
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with provider.get_tracer("web").start_as_current_span("GET /ask", attributes={"http.route": "/ask", "http.status_code": 200}):
        pass
    write_otlp(exporter.get_finished_spans(), tmp_path / "web.otlp.jsonl")
    result = cli("import-traces", project, tmp_path / "web.otlp.jsonl", "--name", "prod", "--no-judge")
    assert result.exit_code == 2, result.output
    out = " ".join(result.output.split())
    assert "no retriever and no LLM span" in out and "openinference.span.kind" in out and "langfuse.observation.type" in out
    assert "1 unmarked span(s) with http.route, http.status_code" in out  # what it found instead


def test_documents_without_ids_are_added_by_content_on_request(project, tmp_path):
    """A ranked document the corpus lacks and the span gives no id: the ranking is unknown until it is
    added by its text (--add-unknown-documents), then complete."""
    from workbench.triage.runs import load_imported

    rows = query_rows(3)
    corpus = Corpus()
    lacking = [d for d, _ in corpus.rank(rows[0]["query"])][7]  # ranked 8th for the first query
    gone = next(d.doc_id for d in load_project(project).documents.values() if d.source_id == lacking)
    docs, queries = project / "documents.jsonl", project / "queries.jsonl"
    docs.write_text("".join(line + "\n" for line in docs.read_text().splitlines() if json.loads(line).get("source_id") != lacking))
    kept = []  # the project lacks the document: no query names it (it is no query's gold)
    for line in queries.read_text().splitlines():
        q = json.loads(line)
        assert gone not in q["gold_doc_ids"]
        kept.append(json.dumps({**q, "hard_negative_ids": [d for d in q.get("hard_negative_ids", []) if d != gone]}) + "\n")
    queries.write_text("".join(kept))
    in_house_spans(tmp_path / "app.otlp.jsonl", rows)
    first = cli("import-traces", project, tmp_path / "app.otlp.jsonl", "--name", "prod", "--no-judge")
    assert first.exit_code == 0, first.output
    p = load_project(project)
    run = load_imported(p, "prod")
    assert run is not None and rows[0]["query_id"] not in {r.query_id for r in run.rankings["*"]}  # unknown, not shortened
    again = cli("import-traces", project, tmp_path / "app.otlp.jsonl", "--name", "prod", "--no-judge", "--add-unknown-documents")
    assert again.exit_code == 0, again.output
    assert "1 document(s) added to the corpus" in again.stderr
    p = load_project(project)
    added = max(p.documents.values(), key=lambda d: d.doc_id)
    assert (added.title, added.text) == (corpus.by_id[lacking]["title"], corpus.by_id[lacking]["text"])
    ranking = {r.query_id: r for r in load_imported(p, "prod").rankings["*"]}[rows[0]["query_id"]]
    assert len(ranking.hits) == 10 and ranking.hits[7].doc_id == added.doc_id
