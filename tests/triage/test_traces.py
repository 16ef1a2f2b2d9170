"""import-traces: spans from the real OpenTelemetry SDK (tests/support/traces.py), exported as
OTLP JSON, imported as production's ranking, reranked list and answers."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from support.traces import Pipeline, all_spans, otlp_lines, write_otlp, write_traces
from workbench.cli import main
from workbench.project.load import load_project
from workbench.triage.queries import read_edits


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def import_traces(root: Path, source: Path, *extra: str, name: str = "prod"):
    return cli("import-traces", root, source, "--name", name, "--no-judge", *extra)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file the import may write (project files and derived state), by relative path."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and "tiers" not in p.parts and "index" not in p.parts:
            out[str(p.relative_to(root))] = p.read_bytes()
    return out


def test_sdk_traces_become_the_run_the_reranked_run_and_the_answers(evaluated_copy, tmp_path):
    project = load_project(evaluated_copy)
    queries = project.queries[:12]
    path = write_traces(evaluated_copy, tmp_path / "traces.otlp.jsonl", queries, with_ids=True)
    assert len(otlp_lines(path)) >= 1 and len(all_spans(path)) == 4 * len(queries)
    result = import_traces(evaluated_copy, path)
    assert result.exit_code == 0, result.output
    assert f"imported {len(queries)} queries: {len(queries)} matched by id, 0 by text, 0 added" in result.output
    from workbench.triage.answers import load_answers
    from workbench.triage.runs import load_imported
    from workbench.triage.traces.store import load_traces

    project = load_project(evaluated_copy)
    p = Pipeline(evaluated_copy)
    run, rerank = load_imported(project, "prod"), load_imported(project, "prod>rerank")
    assert run is not None and rerank is not None and rerank.system == "run:prod>rerank"
    for q in queries:
        ranked = p.retrieve(q.query)
        assert [h.doc_id for h in next(r for r in run.rankings["*"] if r.query_id == q.query_id).hits] == [d for d, _ in ranked]
        reranked = [d for d, _ in p.rerank(q.query, ranked)]
        assert [h.doc_id for h in next(r for r in rerank.rankings["*"] if r.query_id == q.query_id).hits] == reranked
    answers = {a.query_id: a for a in load_answers(project, "prod").answers}
    traces = {t.query_id: t for t in load_traces(project, "prod").queries}
    for q in queries:
        context = [d for d, _ in p.rerank(q.query, p.retrieve(q.query))][:3]
        assert answers[q.query_id].context_doc_ids == context  # what the LLM span was given
        assert answers[q.query_id].answer == p.answer(q, context)
        assert f"Question: {q.query}" in traces[q.query_id].prompt and traces[q.query_id].llm_latency_s is not None
    doc = json.loads(cli("eval", evaluated_copy, "--json").stdout)
    assert {"bm25", "dense", "hybrid", "run:prod", "run:prod>rerank"} <= set(doc["tiers"]["full"])


def test_reimporting_the_same_traces_changes_nothing(evaluated_copy, tmp_path):
    project = load_project(evaluated_copy)
    path = write_traces(evaluated_copy, tmp_path / "t.jsonl", project.queries[:5],
                        text_of=lambda q: q.query if q.query_id != project.queries[0].query_id else "What did production see?")
    assert import_traces(evaluated_copy, path).exit_code == 0
    before, edits = snapshot(evaluated_copy), read_edits(evaluated_copy)
    assert [e.action for e in edits] == ["add_query"]
    again = import_traces(evaluated_copy, path)
    assert again.exit_code == 0, again.output
    assert "4 by text, 1 added unlabelled" not in again.output and "0 added unlabelled" in again.output
    after = snapshot(evaluated_copy)
    changed = [k for k in after if after[k] != before.get(k)]
    # only the importers' own records change (they carry their import time); the rest is byte-identical
    assert {Path(k).parent.as_posix() for k in changed} <= {".workbench/imports/runs", ".workbench/imports/answers"}, changed
    assert len(read_edits(evaluated_copy)) == 1


# ------------------------------------------------------------------ bad input


@pytest.fixture(scope="module")
def good_traces(evaluated, tmp_path_factory) -> Path:
    """Traces of four queries (read-only: a test that damages them writes a copy)."""
    project = load_project(evaluated)
    return write_traces(evaluated, tmp_path_factory.mktemp("traces") / "good.jsonl", project.queries[:4], rerank=False)


def spans_of_kind(docs: list[dict], kind: str) -> list[dict]:
    out = []
    for doc in docs:
        for rs in doc["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                for s in ss["spans"]:
                    if any(a["key"] == "openinference.span.kind" and a["value"].get("stringValue") == kind for a in s["attributes"]):
                        out.append(s)
    return out


def set_attr(span: dict, key: str, value: dict) -> None:
    span["attributes"] = [a for a in span["attributes"] if a["key"] != key] + [{"key": key, "value": value}]


def damaged(good: Path, tmp_path: Path, change) -> Path:
    docs = otlp_lines(good)
    change(docs)
    return write_otlp(tmp_path / "damaged.jsonl", docs)


def _no_trace_id(docs):
    del spans_of_kind(docs, "RETRIEVER")[0]["traceId"]


def _no_documents(docs):
    s = spans_of_kind(docs, "RETRIEVER")[1]
    s["attributes"] = [a for a in s["attributes"] if not a["key"].startswith("retrieval.documents")]


def _float_id(docs):
    set_attr(spans_of_kind(docs, "RETRIEVER")[0], "retrieval.documents.1.document.id", {"doubleValue": 2.5})


def _word_score(docs):
    set_attr(spans_of_kind(docs, "RETRIEVER")[0], "retrieval.documents.0.document.score", {"stringValue": "high"})


def _zero_trace_id(docs):
    for s in spans_of_kind(docs, "LLM")[:1] + spans_of_kind(docs, "RETRIEVER")[:1] + spans_of_kind(docs, "CHAIN")[:1]:
        s["traceId"] = "0" * 32


SKIPS = {
    "span without a trace id": (_no_trace_id, "no valid trace id"),
    "retriever span with no documents": (_no_documents, "retriever span with no documents"),
    "a document id of the wrong type": (_float_id, "a document id must be a string or an integer, not float 2.5"),
    "a score that is not a number": (_word_score, "a score must be a number, not 'high'"),
    "an all-zero (invalid) trace id": (_zero_trace_id, "no valid trace id"),
}


@pytest.mark.parametrize("case", list(SKIPS))
def test_a_span_not_understood_is_a_counted_skip_with_its_place(evaluated_copy, good_traces, tmp_path, case):
    change, reason = SKIPS[case]
    path = damaged(good_traces, tmp_path, change)
    result = import_traces(evaluated_copy, path)
    assert result.exit_code == 0, result.output
    assert "not understood (skipped)" in result.stderr and reason in result.stderr
    assert f"{path}:" in result.stderr  # file:line of the span
    assert "imported 3 queries" in result.output or "imported 4 queries" in result.output


def test_ids_of_mixed_types_and_scores_as_strings_are_read(evaluated_copy, good_traces, tmp_path):
    project = load_project(evaluated_copy)
    by_source = {d.source_id: d.doc_id for d in project.documents.values()}

    def change(docs):
        s = spans_of_kind(docs, "RETRIEVER")[0]
        s_id = next(a for a in s["attributes"] if a["key"] == "retrieval.documents.1.document.id")["value"]["stringValue"]
        set_attr(s, "retrieval.documents.1.document.id", {"intValue": str(by_source[s_id])})  # a DocID, as an int
        set_attr(s, "retrieval.documents.0.document.score", {"stringValue": "7.25"})

    result = import_traces(evaluated_copy, damaged(good_traces, tmp_path, change), "--ids", "source")
    assert result.exit_code == 0, result.output
    from workbench.triage.runs import load_imported

    first = load_imported(load_project(evaluated_copy), "prod").rankings["*"]
    # the int id is looked up like any id (as text): a DocID is no source id here, so it is reported, not guessed
    assert "unknown document(s)" in result.stderr and any(h.score == 7.25 for r in first for h in r.hits)


def truncated(good: Path, tmp_path: Path) -> Path:
    raw = good.read_bytes()
    path = tmp_path / "truncated.jsonl"
    path.write_bytes(raw[: len(raw) - 200])
    return path


def big(good: Path, tmp_path: Path) -> Path:
    path = tmp_path / "big.jsonl"
    with path.open("wb") as f:
        f.truncate(100 * 2**20)  # 100 MiB (sparse: its size is what is refused, before reading)
    return path


def mixed(good: Path, tmp_path: Path) -> Path:
    path = tmp_path / "mixed.jsonl"
    path.write_text(good.read_text() + json.dumps({"name": "a log line"}) + "\n")
    return path


FILES = {
    "truncated JSON": (truncated, ":{line}: malformed JSON"),
    "a 100 MB file": (big, "100 MiB, above the limit of 64 MiB"),
    "a line that is not an OTLP document": (mixed, ":{line}: not an OTLP JSON document"),
    "not UTF-8": (lambda g, t: (t / "bin.jsonl").write_bytes(b"\xff\xfe{\x00") and t / "bin.jsonl", "neither OTLP JSON"),
    "an empty file": (lambda g, t: (t / "empty.jsonl").write_text("") or t / "empty.jsonl", "empty: no spans"),
    "no span of a kind we read": (lambda g, t: damaged(g, t, lambda docs: [s.update(attributes=[]) for d in docs for rs in
                                  d["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]),
                                  "no trace with a retriever or LLM span was understood"),
}


@pytest.mark.parametrize("case", list(FILES))
def test_a_malformed_file_is_refused_whole_and_nothing_is_written(evaluated_copy, good_traces, tmp_path, case):
    make, message = FILES[case]
    path = make(good_traces, tmp_path)
    before = snapshot(evaluated_copy)
    result = import_traces(evaluated_copy, path)
    assert result.exit_code == 2, result.output
    lines = path.read_bytes().count(b"\n") if path.stat().st_size < 2**20 else 0
    assert message.format(line=lines if case == "a line that is not an OTLP document" else lines + 1) in result.output
    assert str(path) in result.output
    assert snapshot(evaluated_copy) == before


# ------------------------------------------------------------------ queries and documents


def test_a_trace_of_an_unknown_query_adds_it_unlabelled_with_who_and_when(evaluated_copy, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_USER", "oncall")
    project = load_project(evaluated_copy)
    known, new = project.queries[0], project.queries[1]
    path = write_traces(evaluated_copy, tmp_path / "t.jsonl", [known, new],
                        text_of=lambda q: f"  {q.query.upper()}  " if q is known else "Which river runs through the log file?")
    result = import_traces(evaluated_copy, path)
    assert result.exit_code == 0, result.output
    assert "1 by text, 1 added unlabelled" in result.output
    project = load_project(evaluated_copy)
    added = [q for q in project.queries if q.query == "Which river runs through the log file?"]
    assert len(added) == 1 and not added[0].is_labelled and added[0].answer == "" and added[0].kind == "production"
    edit = read_edits(evaluated_copy)[-1]
    assert (edit.action, edit.by, edit.query_id) == ("add_query", "user:oncall", added[0].query_id) and edit.at
    from workbench.triage.answers import load_answers

    answers = {a.query_id: a for a in load_answers(project, "prod").answers}
    assert added[0].query_id in answers and known.query_id in answers  # production's answer kept, never as gold
    tags = __import__("workbench.session", fromlist=["x"]).query_sources(project)
    assert {"run:prod", "from:traces"} <= tags[added[0].query_id]


def _with_unknown_document(docs, content: str | None):
    s = spans_of_kind(docs, "RETRIEVER")[0]
    set_attr(s, "retrieval.documents.0.document.id", {"stringValue": "Not_In_The_Corpus"})
    s["attributes"] = [a for a in s["attributes"] if a["key"] != "retrieval.documents.0.document.content"]
    if content is not None:
        set_attr(s, "retrieval.documents.0.document.content", {"stringValue": content})
    set_attr(s, "retrieval.documents.0.document.metadata", {"stringValue": json.dumps({"title": "A New Page"})})


def test_unknown_documents_are_reported_and_added_on_request(evaluated_copy, good_traces, tmp_path):
    documents_before = (evaluated_copy / "documents.jsonl").read_bytes()
    path = damaged(good_traces, tmp_path, lambda docs: _with_unknown_document(docs, "A page production found and we lack."))
    result = import_traces(evaluated_copy, path)
    assert result.exit_code == 0, result.output
    assert "1 unknown document(s)" in result.stderr and "document 'Not_In_The_Corpus' is not in the corpus" in result.stderr
    assert f"{path}:" in result.stderr
    assert (evaluated_copy / "documents.jsonl").read_bytes() == documents_before
    result = import_traces(evaluated_copy, path, "--add-unknown-documents")
    assert result.exit_code == 0, result.output
    assert "1 document(s) added to the corpus" in result.stderr and "tiers and indexes are stale" in result.stderr
    project = load_project(evaluated_copy)
    new = max(project.documents.values(), key=lambda d: d.doc_id)
    assert (new.source_id, new.title, new.text) == ("Not_In_The_Corpus", "A New Page", "A page production found and we lack.")
    assert new.doc_id == max(msgspec.json.decode(line)["doc_id"] for line in documents_before.splitlines()) + 1
    from workbench.triage.runs import load_imported

    first = load_imported(project, "prod").rankings["*"]
    assert any(r.hits and r.hits[0].doc_id == new.doc_id for r in first)
    again = import_traces(evaluated_copy, path, "--add-unknown-documents")  # known now: nothing added twice
    assert "added to the corpus" not in again.stderr and len(load_project(evaluated_copy).documents) == len(project.documents)


def test_an_unknown_document_without_text_is_reported_not_added(evaluated_copy, good_traces, tmp_path):
    path = damaged(good_traces, tmp_path, lambda docs: _with_unknown_document(docs, None))
    result = import_traces(evaluated_copy, path, "--add-unknown-documents")
    assert result.exit_code == 0, result.output
    assert "no document.content to add it from" in result.stderr and "added to the corpus" not in result.stderr


def test_the_genai_convention_reads_the_same_ranking(evaluated_copy, tmp_path):
    project = load_project(evaluated_copy)
    queries = project.queries[:3]
    path = write_traces(evaluated_copy, tmp_path / "genai.jsonl", queries, genai=True)
    result = import_traces(evaluated_copy, path)
    assert result.exit_code == 0, result.output
    from workbench.triage.answers import load_answers
    from workbench.triage.runs import load_imported
    from workbench.triage.traces.store import load_traces

    project = load_project(evaluated_copy)
    p = Pipeline(evaluated_copy)
    run = {r.query_id: [h.doc_id for h in r.hits] for r in load_imported(project, "prod").rankings["*"]}
    assert run == {q.query_id: [d for d, _ in p.retrieve(q.query)] for q in queries}
    answers = {a.query_id: a for a in load_answers(project, "prod").answers}
    assert all(answers[q.query_id].context_doc_ids == [d for d, _ in p.retrieve(q.query)][:3] for q in queries)
    assert all(t.prompt.startswith("[system]\nAnswer from the documents only.") for t in load_traces(project, "prod").queries)


def test_exported_with_export_trec_and_reimported_with_import_run_gives_the_same_figures(evaluated_copy, tmp_path):
    from workbench.access.evaluate import evaluate
    from workbench.rerank.systems import stored_runs
    from workbench.access.ladder import load_tiers
    from workbench.fsutil import safe_name

    project = load_project(evaluated_copy)
    path = write_traces(evaluated_copy, tmp_path / "t.jsonl", project.queries)
    assert import_traces(evaluated_copy, path).exit_code == 0
    out = tmp_path / "trec"
    assert cli("export-trec", evaluated_copy, "--out", out).exit_code == 0
    tiers = load_tiers(load_project(evaluated_copy)).tiers
    for tier in tiers:
        result = cli("import-run", evaluated_copy, out / f"{safe_name(tier.name)}.{safe_name('run:prod')}.run",
                     "--name", "prod-again", "--tier", tier.name)
        assert result.exit_code == 0, result.output
    results = evaluate(load_project(evaluated_copy), tiers, {}, stored=stored_runs)
    fig = {(r.system, r.tier): (msgspec.to_builtins(r.summary), msgspec.to_builtins(r.per_query)) for r in results}
    for tier in tiers:
        assert fig[("run:prod-again", tier.name)] == fig[("run:prod", tier.name)]
    assert fig[("run:prod", "full")][0]["n_queries"] == len(project.queries)


@pytest.mark.llm
def test_traced_answers_are_judged_by_the_project_judge(local_server, tiny_project, tmp_path):
    path = write_traces(tiny_project, tmp_path / "t.jsonl", rerank=False)
    result = cli("import-traces", tiny_project, path, "--name", "prod", "--judge-samples", "1")
    assert result.exit_code == 0, result.output
    from workbench.llm.store import LLMRunStore

    run = LLMRunStore(load_project(tiny_project)).load("run:prod:answers", "full")
    assert run.complete and run.judge == "local" and len(run.qa) == 3
    assert all(r.judge_median is not None or r.judge_failure for r in run.qa)


def _rankings(root: Path) -> dict:
    from workbench.triage.runs import load_imported

    return {r.query_id: [h.doc_id for h in r.hits] for r in load_imported(load_project(root), "prod").rankings["*"]}


def test_one_pretty_printed_document_with_base64_ids_reads_the_same(evaluated_copy, good_traces, tmp_path):
    import base64

    assert import_traces(evaluated_copy, good_traces).exit_code == 0
    want = _rankings(evaluated_copy)
    docs = otlp_lines(good_traces)
    merged = {"resourceSpans": [rs for d in docs for rs in d["resourceSpans"]]}
    for rs in merged["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for s in ss["spans"]:
                for k in ("traceId", "spanId", "parentSpanId"):
                    if k in s:  # as protobuf's json_format writes bytes
                        s[k] = base64.b64encode(bytes.fromhex(s[k])).decode()
    path = tmp_path / "one.json"
    path.write_text(json.dumps(merged, indent=2))
    result = import_traces(evaluated_copy, path, name="prod")
    assert result.exit_code == 0, result.output
    assert "read 12 spans in 4 traces (otlp)" in result.output and _rankings(evaluated_copy) == want


def test_a_trace_with_an_answer_and_no_retriever_imports_its_answer(evaluated_copy, good_traces, tmp_path):
    def drop_retrievers(docs):
        for d in docs:
            for rs in d["resourceSpans"]:
                for ss in rs["scopeSpans"]:
                    ss["spans"] = [s for s in ss["spans"] if not any(a["value"].get("stringValue") == "RETRIEVER" for a in s["attributes"])]

    result = import_traces(evaluated_copy, damaged(good_traces, tmp_path, drop_retrievers))
    assert result.exit_code == 0, result.output
    assert "4 answers as run:prod:answers" in result.output and "without the documents the LLM read" not in result.output
    from workbench.triage.answers import load_answers
    from workbench.triage.runs import load_imported

    project = load_project(evaluated_copy)
    assert load_imported(project, "prod") is None  # no ranking: no run:prod
    # issue 39: what the model read is what its prompt quotes, found in the whole corpus without a retriever span
    p = Pipeline(evaluated_copy)
    for a in load_answers(project, "prod").answers:
        q = project.query(a.query_id)
        assert a.context_doc_ids == [d for d, _ in p.retrieve(q.query)][:p.read], a.query_id  # good_traces: no reranker
