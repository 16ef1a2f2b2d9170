"""Production triage: imported runs and answers, unlabelled queries, queries added from a log."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.access.evaluate import evaluate
from workbench.rerank.systems import stored_runs
from workbench.fsutil import safe_name
from workbench.access.ladder import load_tiers
from workbench.project.load import load_project
from workbench.access.retrievers import make_retrievers
from workbench.access.runs import RunStore


@pytest.fixture
def evaluated_copy(evaluated, tmp_path) -> Path:
    dst = tmp_path / "proj"
    shutil.copytree(evaluated, dst)
    return dst


def cli(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])


def figures(results, system: str) -> dict[str, dict]:
    """tier → summary and per-query gold ranks of one system."""
    return {r.tier: {"summary": msgspec.to_builtins(r.summary), "per_query": msgspec.to_builtins(r.per_query)}
            for r in results if r.system == system}


def test_exported_bm25_reimported_equals_bm25_on_every_tier(evaluated_copy, tmp_path):
    out = tmp_path / "trec"
    assert cli("export-trec", evaluated_copy, "--out", out).exit_code == 0
    project = load_project(evaluated_copy)
    tiers = load_tiers(project).tiers
    for tier in tiers:
        path = out / f"{safe_name(tier.name)}.{safe_name('bm25')}.run"  # as export-trec names it
        result = cli("import-run", evaluated_copy, path, "--name", "bm25-again", "--tier", tier.name)
        assert result.exit_code == 0, result.output
    results = evaluate(load_project(evaluated_copy), tiers, make_retrievers(project, ["bm25"]), stored=stored_runs)
    again, bm25 = figures(results, "run:bm25-again"), figures(results, "bm25")
    assert set(again) == {t.name for t in tiers}
    assert again == bm25
    # the imported run is a stored system like the others: export-trec writes it too
    assert cli("export-trec", evaluated_copy, "--out", tmp_path / "again").exit_code == 0
    assert (tmp_path / "again" / f"{safe_name('full')}.{safe_name('run:bm25-again')}.run").read_text().split("\n")[0].split()[:4] == \
        (out / "full.bm25.run").read_text().split("\n")[0].split()[:4]


def test_a_run_for_every_tier_is_restricted_to_each_tier(evaluated_copy, tmp_path):
    project = load_project(evaluated_copy)
    tiers = load_tiers(project).tiers
    full = RunStore(project).load("dense", "full")
    by_source = {d.doc_id: d.source_id for d in project.documents.values()}
    lines = [{"query_id": r.query_id, "ranked": [by_source[h.doc_id] for h in r.hits]} for r in full.rankings[1:]]
    path = tmp_path / "prod.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    result = cli("import-run", evaluated_copy, path, "--name", "prod", "--format", "jsonl")
    assert result.exit_code == 0, result.output
    assert "as source ids" in result.output and "1 project quer(ies) without a ranking" in result.output
    results = evaluate(load_project(evaluated_copy), tiers, {}, stored=stored_runs)
    store = RunStore(project)
    for tier in tiers:
        run = store.load("run:prod", tier.name)
        members = set(tier.doc_ids)
        for r in run.rankings:
            source = full.ranking(r.query_id)
            assert [h.doc_id for h in r.hits] == [d for d in source if d in members]
    full_prod = figures(results, "run:prod")["full"]["per_query"]
    # a query production did not rank was not served: named, never scored zero (issue 38)
    assert full.rankings[0].query_id not in {q["query_id"] for q in full_prod}
    assert len(full_prod) == len(full.rankings) - 1
    assert next(r for r in results if r.system == "run:prod" and r.tier == "full").not_served == [full.rankings[0].query_id]


def test_unknown_ids_are_reported_by_file_and_line_and_counted(evaluated_copy, tmp_path):
    project = load_project(evaluated_copy)
    q = project.queries[0]
    gold = project.documents[q.gold_doc_ids[0]].source_id
    path = tmp_path / "prod.run"
    path.write_text(f"{q.query_id} Q0 {gold} 1 9.0 prod\n{q.query_id} Q0 No_Such_Page 2 8.0 prod\nq-nope Q0 {gold} 1 3.0 prod\n")
    result = cli("import-run", evaluated_copy, path, "--name", "prod")
    assert result.exit_code == 0, result.output
    assert "2 unknown ID(s): 1 document, 1 query" in result.stderr
    assert f"{path}:2: doc_id: document 'No_Such_Page'" in result.stderr
    assert f"{path}:3: query_id: query 'q-nope' is not in the project" in result.stderr
    from workbench.triage.runs import load_imported

    record = load_imported(project, "prod")
    assert (record.unknown_doc_ids, record.unknown_query_ids) == (1, 1)
    assert [h.doc_id for h in record.rankings["*"][0].hits] == [q.gold_doc_ids[0]]


def test_a_malformed_run_file_is_refused_and_nothing_is_written(evaluated_copy, tmp_path):
    path = tmp_path / "bad.run"
    path.write_text("q1 Q0 d1 1 2.0 tag\nq1 Q0 d2 two 1.0 tag\n")
    result = cli("import-run", evaluated_copy, path, "--name", "bad")
    assert result.exit_code == 2
    assert f"{path}:2: rank/score: not a number" in result.output
    assert not (evaluated_copy / ".workbench" / "imports" / "runs" / "bad.json").exists()


def test_a_query_added_without_gold_is_ranked_everywhere_and_left_out_of_the_figures(evaluated_copy):
    from workbench.access.indexing import build_indexes

    before = json.loads(cli("eval", evaluated_copy, "--json").stdout)
    result = cli("add-query", evaluated_copy, "--query", "Which magazine was started first, Arthur's Magazine or First for Women?")
    assert result.exit_code == 0, result.output
    assert "added query added-1 (unlabelled" in result.output
    project = load_project(evaluated_copy)
    added = project.query("added-1")
    assert not added.is_labelled and added.domain == ""  # two domains, no gold: no domain of its own
    tiers = load_tiers(project).tiers  # the ladder was rebuilt on the new query set
    assert {t.kind for t in tiers if "added-1" in t.query_ids} == {"shared", "global", "full"}
    assert build_indexes(project, tiers)["built"] == []  # indexes depend on documents only: none rebuilt
    store = RunStore(project)
    for tier in tiers:
        for system in ("bm25", "dense", "hybrid"):
            if "added-1" in tier.query_ids:
                assert len(store.load(system, tier.name).ranking("added-1")) > 0
    result = cli("eval", evaluated_copy, "--json")
    doc = json.loads(result.stdout)
    assert doc["unlabelled"]["full"] == 1
    assert doc["tiers"]["full"]["bm25"] == before["tiers"]["full"]["bm25"]  # same labelled queries, same figures
    assert "added-1" not in doc["queries"]["full"]["bm25"]
    text = cli("eval", evaluated_copy, "--retrievers", "bm25").stdout
    assert "1 unlabelled query (no gold) ranked but left out" in text


def test_add_query_maps_gold_through_the_id_map_and_refuses_unknown_ids(evaluated_copy):
    project = load_project(evaluated_copy)
    doc = next(iter(project.documents.values()))
    queries_before = (evaluated_copy / "queries.jsonl").read_bytes()
    result = cli("add-query", evaluated_copy, "--query", "x?", "--gold", "No_Such_Page", "--no-run")
    assert result.exit_code == 2 and "--gold: document 'No_Such_Page' is not in the corpus" in result.output
    assert (evaluated_copy / "queries.jsonl").read_bytes() == queries_before
    result = cli("add-query", evaluated_copy, "--query", "x?", "--answer", "y", "--gold", doc.source_id, "--id", "log-7", "--no-run")
    assert result.exit_code == 0, result.output
    q = load_project(evaluated_copy).query("log-7")
    assert q.gold_doc_ids == [doc.doc_id] and q.answer == "y"
    from workbench.triage.queries import read_edits

    edit = read_edits(evaluated_copy)[-1]
    assert (edit.action, edit.query_id) == ("add_query", "log-7") and edit.by.startswith("user:") and edit.at


def test_importing_queries_without_gold_flags_them_unlabelled(tmp_path, source_files):
    docs, queries = source_files
    rows = [json.loads(x) for x in queries.read_text().splitlines()][:3]
    rows[1].pop("gold_doc_ids")
    rows[2]["gold_doc_ids"] = []
    qpath = tmp_path / "q.jsonl"
    qpath.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = cli("import", tmp_path / "p", "--documents", docs, "--queries", qpath)
    assert result.exit_code == 0, result.output
    project = load_project(tmp_path / "p")
    assert [q.is_labelled for q in project.queries] == [True, False, False]
    from workbench.access.ladder import build_ladder

    assert build_ladder(project).tiers[-1].query_ids == [r["query_id"] for r in rows]


def test_production_answers_import_as_a_use_run_with_deterministic_matches(evaluated_copy, tmp_path):
    project = load_project(evaluated_copy)
    q1, q2 = project.queries[:2]
    gold_sources = [project.documents[g].source_id for g in q1.gold_doc_ids]
    path = tmp_path / "answers.jsonl"
    path.write_text(
        json.dumps({"query_id": q1.query_id, "answer": f"It is {q1.answer}.", "context_doc_ids": gold_sources, "latency_s": 1.5}) + "\n"
        + json.dumps({"query_id": q2.query_id, "answer": "no idea", "context_doc_ids": ["No_Such_Page"]}) + "\n")
    result = cli("import-answers", evaluated_copy, path, "--name", "prod", "--no-judge")
    assert result.exit_code == 0, result.output
    assert f"{path}:2: context_doc_ids: document 'No_Such_Page' is not in the corpus" in result.stderr
    said = " ".join(result.output.split())  # rich wraps long lines
    assert "all gold in production's context: 1/2" in said
    from workbench.llm.figures import use_rows

    row = use_rows(project, load_tiers(project).tiers)["full"]["run:prod:answers"]
    # not judged: no QA figure; the deterministic figures stand on every answer (on main n was 0)
    assert row.n == 2 and row.QA is None and row.contains == 0.5 and row.right == 1
    from workbench.llm.store import LLMRunStore

    run = LLMRunStore(project).load("run:prod:answers", "full")
    assert [(r.query_id, r.contains, r.latency_s) for r in run.qa] == [(q1.query_id, True, 1.5), (q2.query_id, False, 0.0)]
    assert run.qa[0].context_doc_ids == q1.gold_doc_ids and run.qa[1].context_doc_ids == []
    assert "contains 0.50 (n=2)" in said


@pytest.mark.llm
def test_production_answers_are_judged_by_the_project_judge(local_server, tiny_project, tmp_path):
    path = tmp_path / "answers.jsonl"
    path.write_text(json.dumps({"query_id": "q1", "answer": "Paris", "context_doc_ids": [1]}) + "\n"
                    + json.dumps({"query_id": "q2", "answer": "Bananas and cream.", "context_doc_ids": [5]}) + "\n")
    result = cli("import-answers", tiny_project, path, "--name", "prod", "--judge-samples", "1")
    assert result.exit_code == 0, result.output
    from workbench.llm.store import LLMRunStore

    run = LLMRunStore(load_project(tiny_project)).load("run:prod:answers", "full")
    assert run.complete and run.judge == "local" and all(r.judged for r in run.qa)
    assert all(r.judge_median is not None or r.judge_failure for r in run.qa)
    stored = LLMRunStore(load_project(tiny_project)).path("run:prod:answers", "full")
    stamp = stored.stat().st_mtime_ns
    again = cli("import-answers", tiny_project, path, "--name", "prod", "--judge-samples", "1")
    assert again.exit_code == 0 and "of 2 judged" in " ".join(again.output.split())
    assert stored.stat().st_mtime_ns == stamp  # nothing judged again: the run was current
