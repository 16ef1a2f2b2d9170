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
