"""import-traces on spans the REAL instrumentation libraries emit (tests/support/real_pipelines.py):
a LangChain pipeline over a hotpotqa-100 slice traced by openinference-instrumentation-langchain and
by OpenLLMetry's opentelemetry-instrumentation-langchain, encoded by the SDK's OTLP encoder. Each
import is compared with the pipeline's own log: the ranking, the documents stuffed, the answers,
SR/FR, the verdicts. A test per library fails when its convention stops being read."""

from __future__ import annotations

import os

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from support.real_pipelines import STUFFED, WRONG, Responder, Run, query_rows, run_pipeline
from workbench.cli import main
from workbench.project.load import load_project

SLICE = 20
QUICK = ("langchain-openinference", "langchain-openllmetry", "llamaindex-openinference", "llamaindex-openinference-summarize")


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="session")
def real_runs(tmp_path_factory) -> dict[str, Run]:
    """Each library's pipeline run once over the slice, on a fault-free in-process endpoint."""
    from support.fault_server import FaultServer

    out = tmp_path_factory.mktemp("real-traces")
    answers = Responder()
    runs = {}
    with FaultServer(answers) as server:
        for lib in QUICK:  # OpenLLMetry's run once (see run_pipeline), with the query ids attached
            runs[lib] = run_pipeline(lib, out / f"{lib}.otlp.jsonl", server.base_url, query_rows(SLICE), answers,  # type: ignore[arg-type]
                                     with_ids=lib == "langchain-openllmetry")
        runs["langchain-openinference+ids"] = run_pipeline("langchain-openinference", out / "lc-oi-ids.otlp.jsonl",
                                                           server.base_url, query_rows(SLICE), answers, with_ids=True)
    runs["langchain-openllmetry+ids"] = runs["langchain-openllmetry"]
    return runs


@pytest.fixture
def project(hotpot_copy) -> Path:
    """hotpotqa-100 imported (no indexes: the traces bring production's ranking; tests/triage/conftest.py)."""
    return hotpot_copy


def check_against_log(root: Path, run: Run, name: str, n: int = SLICE) -> None:
    """The import equals what the pipeline did: ranking, context, answers, SR@K/FR@K."""
    from workbench.access.metrics import query_access, summarize
    from workbench.triage.answers import load_answers
    from workbench.triage.runs import load_imported

    from workbench.project.settings import access_k

    p = load_project(root)
    k = access_k(p)
    docid = {d.source_id: d.doc_id for d in p.documents.values()}
    by_text = {q.query: q for q in p.queries}
    imported = {r.query_id: [h.doc_id for h in r.hits] for r in load_imported(p, name).rankings["*"]}
    answers = {a.query_id: a for a in load_answers(p, name).answers}
    assert len(run.log) == n
    mine, theirs = [], []
    for entry in run.log:
        q = by_text[entry.query]
        assert imported[q.query_id] == [docid[d] for d in entry.ranked], q.query_id  # what the retriever returned
        a = answers[q.query_id]
        assert a.answer == entry.answer
        assert a.context_doc_ids == [docid[d] for d in entry.stuffed], q.query_id  # what was stuffed, in order
        gold = list(q.gold_doc_ids)
        mine.append(query_access(q.query_id, imported[q.query_id], gold, k))
        theirs.append(query_access(q.query_id, [docid[d] for d in entry.ranked], gold, k))
    assert summarize(mine, k) == summarize(theirs, k)


def imports_as_logged(project, run, path) -> None:
    """import-traces of ``path`` succeeds and what it stored is what the pipeline's log says."""
    result = cli("import-traces", project, path, "--name", "prod", "--no-judge")
    assert result.exit_code == 0, result.output
    check_against_log(project, run, "prod")


@pytest.mark.parametrize("library", QUICK)
def test_every_trace_of_a_real_instrumented_pipeline_imports_as_it_ran(real_runs, project, library):
    run = real_runs[library]
    result = cli("import-traces", project, run.path, "--name", "prod", "--no-judge", "--query-id-key", "no_such_key")
    assert result.exit_code == 0, result.output
    assert f"imported {SLICE} queries: 0 matched by id, {SLICE} by text, 0 added" in result.output  # no id read: by text
    # no document carries an id: every one resolved by its text against the corpus
    assert f"documents resolved: {SLICE * 10} by content" in result.output
    check_against_log(project, run, "prod")


def test_doc_id_key_reads_production_s_own_ids_from_the_metadata(real_runs, project):
    for library in QUICK:
        result = cli("import-traces", project, real_runs[library].path, "--name", "prod", "--no-judge",
                     "--doc-id-key", "source_id")
        assert result.exit_code == 0, result.output
        assert f"documents resolved: {SLICE * 10} by metadata" in result.output, library
        check_against_log(project, real_runs[library], "prod")


def run_log_answer(run: Run) -> str:
    return next(e.answer for e in run.log if e.answer != WRONG)


def test_dry_run_prints_what_would_be_imported_and_writes_nothing(real_runs, project):
    load_project(project)  # its derived corpus cache made first: any read makes it
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    result = cli("import-traces", project, real_runs["langchain-openinference"].path, "--name", "prod", "--dry-run")
    assert result.exit_code == 0, result.output
    assert "dry run: nothing written" in result.output and "would import" in result.output
    assert f"{SLICE * 10} by content" in result.output
    assert f"would import {SLICE} queries: 0 matched by id, {SLICE} by text, 0 added" in result.output
    assert run_log_answer(real_runs["langchain-openinference"]) in result.output  # the answers printed
    after = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    assert after == before


def test_a_document_that_matches_no_corpus_text_is_counted_and_its_answer_still_imported(real_runs, project, tmp_path):
    """One stuffed document's text changed beyond recognition: that trace's context is unknown."""
    run = real_runs["langchain-openinference"]
    text = run.path.read_text()
    first = run.log[0]
    original = load_project(project).documents
    stuffed_text = next(d.text for d in original.values() if d.source_id == first.stuffed[0])
    changed = text.replace(json.dumps(stuffed_text)[1:-1], "Production's own rewrite of this page, in no corpus.")
    # and no id under a common metadata key (`source_id` names the document: issue 39 reads it)
    changed = changed.replace('\\"source_id\\": ', '\\"production_key\\": ')
    assert changed != text and "source_id" not in changed
    path = tmp_path / "changed.otlp.jsonl"
    path.write_text(changed)
    result = cli("import-traces", project, path, "--name", "prod", "--no-judge")
    assert result.exit_code == 0, result.output
    assert "1 trace(s) with unresolved documents" in result.stderr
    assert "Production's own rewrite" in result.stderr
    assert f"{SLICE} answers as" in result.output and "1 without the documents the LLM read" in result.output
    assert STUFFED == 5


# ------------------------------------------------------------------ trace files that are damaged (issue 33)


def otlp_docs(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def spans_of(doc: dict) -> list[dict]:
    return [s for rs in doc["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]


def rewrite(docs: list[dict], path: Path, prefix: bytes = b"") -> Path:
    path.write_bytes(prefix + "".join(json.dumps(d) + "\n" for d in docs).encode())
    return path


def test_a_byte_order_mark_before_the_otlp_file_is_no_problem(real_runs, project, tmp_path):
    run = real_runs["langchain-openinference"]
    path = rewrite(otlp_docs(run.path), tmp_path / "bom.otlp.jsonl", prefix=b"\xef\xbb\xbf")
    result = cli("import-traces", project, path, "--name", "prod", "--no-judge")
    assert result.exit_code == 0, result.output
    check_against_log(project, run, "prod")


def test_attribute_indexes_that_are_no_ascii_number_are_ignored(real_runs, project, tmp_path):
    """'٣' is a digit to str.isdigit() and 5,000 digits are more than int() takes: neither is an index."""
    run = real_runs["langchain-openinference"]
    docs = otlp_docs(run.path)
    retriever = next(s for s in spans_of(docs[0]) if any(a["value"].get("stringValue") == "RETRIEVER" for a in s["attributes"]))
    for index in ("٣", "7" * 5000):
        retriever["attributes"].append({"key": f"retrieval.documents.{index}.document.content", "value": {"stringValue": "odd"}})
    imports_as_logged(project, run, rewrite(docs, tmp_path / "idx.otlp.jsonl"))


def test_json_nested_too_deeply_is_a_problem_at_its_line_not_a_crash(real_runs, project, tmp_path):
    run = real_runs["langchain-openinference"]
    docs = otlp_docs(run.path)
    path = rewrite(docs, tmp_path / "deep.otlp.jsonl")
    with path.open("a") as f:  # a line nested beyond the decoder's limit
        f.write('{"resourceSpans": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    result = cli("import-traces", project, path, "--name", "prod", "--no-judge")
    assert result.exit_code == 2, result.output
    assert "problem(s) in the trace file" in result.output and f"{path}:{len(docs) + 1}" in result.output
    assert "nested too deeply" in result.output and "Traceback" not in result.output
    # an attribute nested deep (but decodable) is cut, the trace still read
    deep: dict = {"stringValue": "x"}
    for _ in range(150):  # deeper than any_value reads (MAX_NESTING), within what the decoder takes
        deep = {"arrayValue": {"values": [deep]}}
    spans_of(docs[0])[0]["attributes"].append({"key": "deep", "value": deep})
    imports_as_logged(project, run, rewrite(docs, tmp_path / "deep2.otlp.jsonl"))


def test_two_different_spans_under_one_span_id_are_refused_naming_both(real_runs, project, tmp_path):
    run = real_runs["langchain-openinference"]
    docs = otlp_docs(run.path)
    first = spans_of(docs[0])[0]
    twin = {**json.loads(json.dumps(spans_of(docs[-1])[-1])), "traceId": first["traceId"], "spanId": first["spanId"]}
    twin["name"] = "an impostor"
    docs[-1]["resourceSpans"][0]["scopeSpans"][0]["spans"].append(twin)
    path = rewrite(docs, tmp_path / "twins.otlp.jsonl")
    result = cli("import-traces", project, path, "--name", "prod", "--no-judge")
    assert result.exit_code == 2, result.output
    assert "problem(s) in the trace file" in result.output
    assert f"span id {first['spanId']}" in result.output and "an impostor" in result.output and first["name"] in result.output
    assert not (project / ".workbench" / "imports").exists() or not any((project / ".workbench" / "imports").rglob("prod*"))
    # the same span exported twice (a retry) is one span
    docs = otlp_docs(run.path)
    docs.append(json.loads(json.dumps(docs[0])))
    imports_as_logged(project, run, rewrite(docs, tmp_path / "retry.otlp.jsonl"))


# ------------------------------------------------------------------ on the real llama.cpp server


@pytest.mark.llm
@pytest.mark.parametrize("library", ["langchain-openinference", "llamaindex-openinference"])
def test_the_pipeline_on_the_real_local_server_imports_as_it_ran(local_server, project, tmp_path, library):
    """The same pipelines with SmolLM2 answering (whatever it says): the spans' shape is the
    instrumentor's, and the import still equals the pipeline's log."""
    from workbench.llm.server import MODEL_ALIAS

    n = 3
    run = run_pipeline(library, tmp_path / "real.otlp.jsonl", local_server.base_url, query_rows(n), Responder(), MODEL_ALIAS)
    result = cli("import-traces", project, run.path, "--name", "prod", "--no-judge")
    assert result.exit_code == 0, result.output
    assert f"imported {n} queries" in result.output
    check_against_log(project, run, "prod", n)


# ------------------------------------------------------------------ the verdicts, beside the built-in systems


@pytest.fixture(scope="module")
def hotpot100_evaluated(tmp_path_factory) -> Path:
    from support.hotpot100 import evaluated_hotpot100

    return evaluated_hotpot100(tmp_path_factory.mktemp("h100-verdicts") / "hotpot")


@pytest.mark.slow
@pytest.mark.parametrize("library", QUICK)
def test_production_verdicts_follow_what_the_pipeline_did(real_runs, hotpot100_evaluated, tmp_path, library):
    """right → PASS; wrong with every gold document stuffed → USE; wrong otherwise → ACCESS?."""
    root = tmp_path / "proj"
    shutil.copytree(hotpot100_evaluated, root)
    run = real_runs[library]
    assert cli("import-traces", root, run.path, "--name", "prod", "--no-judge").exit_code == 0
    doc = json.loads(cli("diagnose", root, "--json", "--tiers", "full").stdout)
    got = {v["query_id"]: v["verdict"] for v in doc["verdicts"] if v["system"] == "run:prod:answers"}
    p = load_project(root)
    by_text = {q.query: q for q in p.queries}
    docid = {d.source_id: d.doc_id for d in p.documents.values()}
    expected = {}
    for entry in run.log:
        q = by_text[entry.query]
        read_all = set(q.gold_doc_ids) <= {docid[d] for d in entry.stuffed}
        expected[q.query_id] = "PASS" if entry.answer != WRONG else "USE" if read_all else "ACCESS?"
    assert got == expected
    assert {"PASS", "USE", "ACCESS?"} <= set(expected.values())  # the slice exercises every verdict


# ------------------------------------------------------------------ the OTel GenAI conventions


def test_openai_v2_with_a_manual_retrieval_span_imports_as_it_ran(project, tmp_path, monkeypatch):
    from support.fault_server import FaultServer

    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "span_only")
    monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
    answers = Responder()
    with FaultServer(answers) as server:
        run = run_pipeline("openai-v2", tmp_path / "v2.otlp.jsonl", server.base_url, query_rows(SLICE), answers)
    result = cli("import-traces", project, run.path, "--name", "prod", "--no-judge")
    assert result.exit_code == 0, result.output
    check_against_log(project, run, "prod")


@pytest.mark.parametrize("where", ["attributes", "events"])
def test_genai_previous_attribute_names_are_read(project, tmp_path, where):
    """gen_ai.prompt.{i}.* / gen_ai.completion.{i}.* (the GenAI conventions before gen_ai.input.messages),
    or gen_ai.prompt / gen_ai.completion on the span's gen_ai.content.* events, on spans the SDK made,
    with a retrieval span of `{id, score}` documents only."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from support.real_pipelines import Corpus, prompt_text, write_otlp

    corpus, exporter = Corpus(), InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("rag")
    rows = query_rows(3)
    for row in rows:
        ranked = corpus.rank(row["query"])
        with tracer.start_as_current_span("rag"):
            with tracer.start_as_current_span("retrieval", attributes={
                    "gen_ai.operation.name": "retrieval", "gen_ai.retrieval.query.text": row["query"],
                    "gen_ai.retrieval.documents": json.dumps([{"id": d, "score": s} for d, s in ranked])}):
                pass
            # a title of a document ranked 6th quoted inside the prompt is no quote of that document
            text = prompt_text(row["query"], [corpus.by_id[d]["text"] for d, _ in ranked[:STUFFED]]) + f"\n[{ranked[5][0]}]"
            if where == "attributes":
                with tracer.start_as_current_span("chat", attributes={
                        "gen_ai.operation.name": "chat", "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": text,
                        "gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": row["answer"]}):
                    pass
            else:
                with tracer.start_as_current_span("chat", attributes={"gen_ai.operation.name": "chat"}) as span:
                    span.add_event("gen_ai.content.prompt", {"gen_ai.prompt": json.dumps([{"role": "user", "content": text}])})
                    span.add_event("gen_ai.content.completion",
                                   {"gen_ai.completion": json.dumps([{"role": "assistant", "content": row["answer"]}])})
    path = tmp_path / "old-genai.otlp.jsonl"
    write_otlp(exporter.get_finished_spans(), path)
    result = cli("import-traces", project, path, "--name", "prod", "--no-judge")
    assert result.exit_code == 0, result.output
    assert "imported 3 queries" in result.output and "30 by id" in result.output
    from workbench.triage.answers import load_answers

    p = load_project(project)
    docid = {d.source_id: d.doc_id for d in p.documents.values()}
    got = {a.query_id: a for a in load_answers(p, "prod").answers}
    for row in rows:
        assert got[row["query_id"]].answer == row["answer"]
        assert got[row["query_id"]].context_doc_ids == [docid[d] for d, _ in corpus.rank(row["query"])[:STUFFED]]


def test_an_unmatched_query_is_added_and_its_answer_imported(real_runs, project, tmp_path):
    run = real_runs["langchain-openinference"]
    first = run.log[0].query
    path = tmp_path / "asked.otlp.jsonl"
    path.write_text(run.path.read_text().replace(json.dumps(first)[1:-1], "What did production really ask?"))
    result = cli("import-traces", project, path, "--name", "prod", "--no-judge")
    assert result.exit_code == 0, result.output
    assert f"imported {SLICE} queries: 0 matched by id, {SLICE - 1} by text, 1 added unlabelled" in result.output
    assert f"{SLICE} answers as" in result.output
    added = [q for q in load_project(project).queries if q.query == "What did production really ask?"]
    assert len(added) == 1 and added[0].query_id.startswith("trace-")
    # Issue 33 (5): the added query's answer is on its one-query report page (no reference answer: undecided).
    from workbench.access.ladder import load_tiers
    from workbench.report.query import build_query_page
    from workbench.report.query_page import query_markdown

    p = load_project(project)
    page = build_query_page(p, load_tiers(p).tiers, added[0].query_id)
    shown = [a for v in page.tiers for a in v.answers if a.system == "run:prod:answers"]
    assert [(a.answer, a.tier, a.decision) for a in shown] == [(run.log[0].answer, "full", "undecided")]
    assert run.log[0].answer in query_markdown(page) and "no reference answer" in query_markdown(page)
    # ... and in the inspector's model panel on full (with its trace's prompt), as for a matched query
    from workbench.session import known_results, open_session

    session, _ = open_session(project)
    ev = known_results(session, session.tier("full"), added[0].query_id)["run:prod:answers"]
    assert (ev.answer, ev.decision) == (run.log[0].answer, "undecided") and "no reference answer" in ev.basis
    assert ev.prompt and "production trace" in ev.note
    assert "run:prod:answers" not in known_results(session, session.tier("base:general"), added[0].query_id)
    matched = build_query_page(p, load_tiers(p).tiers, run.log[1].query_id)  # a labelled query: its judged answer only
    assert [a.decision != "undecided" or "no reference answer" not in a.basis
            for v in matched.tiers for a in v.answers if a.system == "run:prod:answers"] == [True]


# ------------------------------------------------------------------ query ids, split traces


@pytest.mark.parametrize("library", ["langchain-openinference", "langchain-openllmetry"])
def test_query_ids_attached_as_run_metadata_match_by_id(real_runs, project, library):
    """OpenInference's `metadata` attribute; OpenLLMetry's traceloop.association.properties.query_id."""
    run = real_runs[f"{library}+ids"]
    result = cli("import-traces", project, run.path, "--name", "prod", "--no-judge")
    assert result.exit_code == 0, result.output
    assert f"imported {SLICE} queries: {SLICE} matched by id, 0 by text, 0 added" in result.output
    check_against_log(project, run, "prod")


def split_first_trace(run: Run, path: Path, keep_ids: bool = True) -> tuple[str, str]:
    """The first trace's chat span made the root of a trace of its own (as an extra OpenAI
    instrumentor does); returns (old trace id, new trace id)."""
    docs = otlp_docs(run.path)
    spans = [s for d in docs for s in spans_of(d)]
    llm = next(s for s in spans if any(a["value"].get("stringValue") == "LLM" for a in s["attributes"]))
    old, new = llm["traceId"], "f" * 32
    llm["traceId"] = new
    llm.pop("parentSpanId", None)
    if not keep_ids:
        llm["attributes"] = [a for a in llm["attributes"] if a["key"] != "metadata"]
    rewrite(docs, path)
    return old, new


def test_a_split_trace_is_joined_back_by_its_query_id(real_runs, project, tmp_path):
    run = real_runs["langchain-openinference+ids"]
    old, new = split_first_trace(run, tmp_path / "split.otlp.jsonl")
    result = cli("import-traces", project, tmp_path / "split.otlp.jsonl", "--name", "prod", "--no-judge")
    assert result.exit_code == 0, result.output
    assert "1 split trace(s)" in result.stderr and f"trace {new} (the LLM span) joined to trace {old}" in result.stderr
    assert f"imported {SLICE} queries: {SLICE} matched by id" in result.output
    check_against_log(project, run, "prod")


def test_a_split_trace_without_a_shared_id_is_joined_by_its_query_text_and_time(real_runs, project, tmp_path):
    """Issue 39: no id joins the parts, but the chat part's prompt holds the retrieval part's query and
    started after it: one production query, as it ran."""
    run = real_runs["langchain-openinference+ids"]
    old, new = split_first_trace(run, tmp_path / "split.otlp.jsonl", keep_ids=False)
    result = cli("import-traces", project, tmp_path / "split.otlp.jsonl", "--name", "prod", "--no-judge")
    assert result.exit_code == 0, result.output
    assert f"trace {new} (the LLM span) joined to trace {old} (the retriever): its prompt holds" in result.stderr
    assert "not understood" not in result.stderr and f"{SLICE} answers as" in result.output
    check_against_log(project, run, "prod")


# ------------------------------------------------------------------ all of hotpotqa-100, each library in its own process


@pytest.mark.slow
@pytest.mark.llm  # no LLM needed (the in-process endpoint answers), but kept out of the quick run: 5 × 100 traces
@pytest.mark.parametrize("library", (*QUICK, "openai-v2"))
def test_all_100_queries_of_each_library_import_as_they_ran(hotpot100_evaluated, tmp_path, library):
    """The done-when: 100/100 traces, every ranking, every context, SR@10/FR@10 and every verdict as
    the pipeline's log says (each library in a fresh process: instrumentors patch process-wide)."""
    import subprocess
    import sys

    from support.fault_server import FaultServer
    from support.paths import REPO
    from support.real_pipelines import planned_answers, read_log

    out = tmp_path / f"{library}.otlp.jsonl"
    with FaultServer(planned_answers(query_rows())) as server:
        # the GenAI instrumentation records message content only when asked (as production turns it on)
        env = {**os.environ, "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "span_only",
               "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental"}
        done = subprocess.run([sys.executable, str(REPO / "tests" / "support" / "real_pipelines.py"), library, str(out),
                               "--base-url", server.base_url], capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    run = read_log(library, out)  # type: ignore[arg-type]
    root = tmp_path / "proj"
    shutil.copytree(hotpot100_evaluated, root)
    result = cli("import-traces", root, out, "--name", "prod", "--no-judge")
    assert result.exit_code == 0, result.output
    assert "imported 100 queries: 0 matched by id, 100 by text, 0 added" in result.output
    check_against_log(root, run, "prod", 100)
    # eval's figures on `full` for run:prod are those of the pipeline's own log (the full tier holds every document)
    from workbench.access.metrics import query_access, summarize
    from workbench.project.settings import access_k

    p = load_project(root)
    k = access_k(p)
    docid = {d.source_id: d.doc_id for d in p.documents.values()}
    by_text = {q.query: q for q in p.queries}
    logged = summarize([query_access(by_text[e.query].query_id, [docid[d] for d in e.ranked],
                                     list(by_text[e.query].gold_doc_ids), k) for e in run.log], k)
    figures = json.loads(cli("eval", root, "--json", "--tiers", "full").stdout)["tiers"]["full"]["run:prod"]
    assert (figures["n_queries"], figures[f"SR@{k}"], figures[f"FR@{k}"]) == (100, logged.sr_at_k, logged.fr_at_k)
    doc = json.loads(cli("diagnose", root, "--json", "--tiers", "full").stdout)
    got = {v["query_id"]: v["verdict"] for v in doc["verdicts"] if v["system"] == "run:prod:answers"}
    expected = {}
    for entry in run.log:
        q = by_text[entry.query]
        read_all = set(q.gold_doc_ids) <= {docid[d] for d in entry.stuffed}
        expected[q.query_id] = "PASS" if entry.answer != WRONG else "USE" if read_all else "ACCESS?"
    assert got == expected
