"""Issue 38: production's figures stand on the queries production served (n = served; the rest named
"not served", never scored zero), and on what its traces could say (ProductionTrace's contract:
a truncated ranking claims nothing past its depth, an unresolved one is unknown, an answer that
could not be isolated is UNDECIDED). Spans from the real OpenTelemetry SDK (tests/support/traces.py);
where the contract's fields are set, on the trace as read from those spans."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from support.traces import Pipeline, write_traces
from workbench.access.ladder import load_tiers
from workbench.cli import main
from workbench.project.load import load_project


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def eval_json(root: Path) -> dict:
    result = cli("eval", root, "--retrievers", "bm25", "--tiers", "full", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def with_contract(monkeypatch, change) -> None:
    """Each trace as read from the spans, then ``change(trace)`` (what a convention that reads these
    fields would have set): the ledger's handling of the contract, on real spans."""
    from workbench.triage.traces import importer

    real = importer.traces

    def read(*args, **kw):
        found, skipped = real(*args, **kw)
        return [change(t) for t in found], skipped

    monkeypatch.setattr(importer, "traces", read)


def test_n_is_the_served_count_and_the_rest_is_named_not_served(evaluated_copy, tmp_path):
    project = load_project(evaluated_copy)
    served = project.queries[:6]
    path = write_traces(evaluated_copy, tmp_path / "t.jsonl", served, with_ids=True)
    result = cli("import-traces", evaluated_copy, path, "--name", "live", "--no-judge")
    assert result.exit_code == 0, result.output
    doc = eval_json(evaluated_copy)
    labelled = [q.query_id for q in project.queries if q.gold_doc_ids]
    assert doc["tiers"]["full"]["run:live"]["n_queries"] == 6  # before: every query of the project, 94 scored zero
    assert set(doc["queries"]["full"]["run:live"]) == {q.query_id for q in served}
    assert doc["not_served"]["full"]["run:live"] == [q for q in labelled if q not in {s.query_id for s in served}]
    text = " ".join(cli("eval", evaluated_copy, "--retrievers", "bm25", "--tiers", "full").output.split())
    assert f"run:live on full: n = 6 served queries; {len(labelled) - 6} not served" in text
    # the diagnosis: no verdict at all (never an ACCESS failure) for a query production never served
    from workbench.diagnosis.verdicts import read_verdicts

    project = load_project(evaluated_copy)
    full = [t for t in load_tiers(project).tiers if t.kind == "full"]
    qv = read_verdicts(project, full)
    live = [s.name for s in qv.systems if s.access == "run:live" and s.reader != "production"]
    assert live
    assert {v.query_id for v in qv.verdicts if v.system in live} == {q.query_id for q in served}


def test_export_trec_writes_production_s_run_before_any_eval(built_project, tmp_path):
    root = tmp_path / "p"
    import shutil

    shutil.copytree(built_project, root)
    queries = load_project(root).queries[:4]
    path = write_traces(root, tmp_path / "t.jsonl", queries, with_ids=True)
    from workbench.session.production import import_traces

    import_traces(root, str(path), "prod", judge=False)  # as a live collection imports: no figures printed
    result = cli("export-trec", root, "--out", tmp_path / "trec", "--tiers", "full")
    assert result.exit_code == 0, result.output
    assert "no stored runs yet" not in result.output + (result.stderr or "")
    lines = next((tmp_path / "trec").glob("full.run*prod*.run")).read_text().splitlines()
    p = Pipeline(root)
    full = next(t for t in load_tiers(load_project(root)).tiers if t.kind == "full")
    want = [(q.query_id, d) for q in queries for d, _ in p.retrieve(q.query) if d in set(full.doc_ids)]
    assert [(line.split()[0], int(line.split()[2])) for line in lines] == want  # served queries only


def _query_with_gold_below(evaluated_copy, rank: int):
    p = Pipeline(evaluated_copy)
    for q in load_project(evaluated_copy).queries:
        ranked = [d for d, _ in p.retrieve(q.query)]
        if q.gold_doc_ids and not set(q.gold_doc_ids) & set(ranked[:rank]) and len(ranked) > rank:
            return q
    pytest.skip("no query of the slice has its gold below that rank")  # the fixture's data decides, not the code


def test_a_truncated_ranking_claims_nothing_past_its_depth(evaluated_copy, tmp_path, monkeypatch):
    q = _query_with_gold_below(evaluated_copy, 2)
    other = next(x for x in load_project(evaluated_copy).queries if x.query_id != q.query_id)
    with_contract(monkeypatch, lambda t: msgspec.structs.replace(t, ranking=t.ranking[:2], ranking_claimed=10)
                  if t.ranking and t.query_id == q.query_id else t)
    path = write_traces(evaluated_copy, tmp_path / "t.jsonl", [q, other], with_ids=True)
    result = cli("import-traces", evaluated_copy, path, "--name", "prod", "--no-judge")
    assert result.exit_code == 0, result.output
    assert f"1 ranking(s) truncated (first: {q.query_id} at depth 2)" in " ".join(result.output.split())
    doc = eval_json(evaluated_copy)
    assert doc["unknown_past_depth"]["full"]["run:prod"] == {q.query_id: 2}
    assert q.query_id not in doc["queries"]["full"]["run:prod"]  # not "not retrieved": unknown
    assert other.query_id in doc["queries"]["full"]["run:prod"] and doc["tiers"]["full"]["run:prod"]["n_queries"] == 1
    from workbench.diagnosis.verdicts import VerdictReader

    project = load_project(evaluated_copy)
    full = next(t for t in load_tiers(project).tiers if t.kind == "full")
    assert VerdictReader(project).access(full, "run:prod", project.query(q.query_id)) is None


def test_an_unresolved_ranking_is_unknown_not_empty(evaluated_copy, tmp_path, monkeypatch):
    queries = load_project(evaluated_copy).queries[:3]
    first = write_traces(evaluated_copy, tmp_path / "a.jsonl", queries, with_ids=True)
    assert cli("import-traces", evaluated_copy, first, "--name", "prod", "--no-judge").exit_code == 0
    unresolved = queries[0].query_id
    with_contract(monkeypatch, lambda t: msgspec.structs.replace(t, ranking_unresolved=True) if t.query_id == unresolved else t)
    second = write_traces(evaluated_copy, tmp_path / "b.jsonl", queries, with_ids=True, text_of=lambda q: q.query + " again")
    result = cli("import-traces", evaluated_copy, second, "--name", "prod", "--no-judge")
    assert result.exit_code == 0, result.output
    assert "1 ranking(s) unknown" in result.output
    doc = eval_json(evaluated_copy)
    assert doc["ranking_unknown"]["full"]["run:prod"] == [unresolved]
    assert unresolved not in doc["queries"]["full"]["run:prod"]  # the older ranking is replaced by "unknown", not kept
    assert unresolved not in doc["not_served"].get("full", {}).get("run:prod", [])  # it was served
    assert doc["tiers"]["full"]["run:prod"]["n_queries"] == 2


def test_an_undecided_answer_is_kept_with_why_and_its_verdict_is_undecided(evaluated_copy, tmp_path, monkeypatch):
    project = load_project(evaluated_copy)
    queries = project.queries[:2]
    why = "the answer is wrapped in the model's reasoning"
    undecided = queries[0].query_id
    with_contract(monkeypatch, lambda t: msgspec.structs.replace(t, answer=f"Let me think. {project.query(undecided).answer}",
                                                                  answer_undecided=why) if t.query_id == undecided else t)
    path = write_traces(evaluated_copy, tmp_path / "t.jsonl", queries, with_ids=True)
    result = cli("import-traces", evaluated_copy, path, "--name", "prod", "--no-judge")
    assert result.exit_code == 0, result.output
    from workbench.triage.answers import load_answers

    record = {a.query_id: a for a in load_answers(load_project(evaluated_copy), "prod").answers}
    assert record[undecided].undecided == why and record[queries[1].query_id].undecided is None
    from workbench.diagnosis.verdicts import read_verdicts

    project = load_project(evaluated_copy)
    full = [t for t in load_tiers(project).tiers if t.kind == "full"]
    mine = [v for v in read_verdicts(project, full).verdicts if v.system == "run:prod:answers" and v.query_id == undecided]
    assert mine and all(v.answer is not None and not v.answer.decided and why in v.answer.basis for v in mine)
    assert all(v.verdict not in ("PASS", "USE", "ACCESS", "BOTH") for v in mine)
