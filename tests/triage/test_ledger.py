"""Issue 38, the production ledger: everything production sent kept once, whatever door it came
through; run:NAME a view (per query, the latest), a change of source said; traces from the real
OpenTelemetry SDK (tests/support/traces.py)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from support.traces import Pipeline, write_traces
from workbench.cli import main
from workbench.project.load import load_project
from workbench.triage.answers import load_answers
from workbench.triage.runs import load_imported


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def said(result) -> str:
    return " ".join((result.output + (result.stderr or "")).split())  # rich wraps long lines


def rankings(root: Path, name: str = "prod") -> dict[str, list[int]]:
    record = load_imported(load_project(root), name)
    return {r.query_id: [h.doc_id for h in r.hits] for r in record.rankings["*"]} if record else {}


def spans_of(path: Path):
    """The spans of an OTLP file as the live receiver hands them over (spans, skipped, format)."""
    from workbench.triage.traces.importer import read_spans

    kind, spans, skipped = read_spans(str(path), "auto", "default", 64)
    return spans, skipped, kind


def ledger_file(root: Path) -> Path:
    return root / ".workbench" / "ledger.sqlite"  # where the issue asked for it: one SQLite store per project


def rows(root: Path) -> int:
    with sqlite3.connect(ledger_file(root)) as db:
        return db.execute("SELECT COUNT(*) FROM entries").fetchone()[0]


def test_a_second_door_under_one_name_adds_to_the_first(evaluated_copy, tmp_path):
    """import-traces --name live, then the collector's batch under the same name: both kept (before:
    the second replaced the first: SR@10 1.0 → 0.0, no message)."""
    from workbench.session.production import import_traces

    queries = load_project(evaluated_copy).queries
    first = write_traces(evaluated_copy, tmp_path / "file.jsonl", queries[:4], with_ids=True)
    later = write_traces(evaluated_copy, tmp_path / "live.jsonl", queries[4:7], with_ids=True)
    import_traces(evaluated_copy, str(first), "live", judge=False)
    done = import_traces(evaluated_copy, "collector 127.0.0.1:4318", "live", judge=False, spans=spans_of(later))
    assert done.imported.imported == 3 and not done.imported.changes
    p = Pipeline(evaluated_copy)
    assert rankings(evaluated_copy, "live") == {q.query_id: [d for d, _ in p.retrieve(q.query)] for q in queries[:7]}
    assert {a.query_id for a in load_answers(load_project(evaluated_copy), "live").answers} == {q.query_id for q in queries[:7]}
    # a restart hands the same spans again: nothing added twice, nothing dropped
    again = import_traces(evaluated_copy, "collector 127.0.0.1:4318", "live", judge=False, spans=spans_of(later))
    assert again.imported.kept == 3 and len(rankings(evaluated_copy, "live")) == 7


def test_import_run_then_import_traces_is_said_and_the_answers_stay_with_their_trace(evaluated_copy, tmp_path):
    project = load_project(evaluated_copy)
    queries = project.queries[:6]
    by_source = {d.doc_id: d.source_id for d in project.documents.values()}
    docs = sorted(project.documents)[:5]
    run = tmp_path / "prod.jsonl"
    run.write_text("".join(json.dumps({"query_id": q.query_id, "ranked": [by_source[d] for d in docs]}) + "\n" for q in queries))
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"query_id": q.query_id, "answer": "an answer from the batch file"}) + "\n" for q in queries))
    assert cli("import-run", evaluated_copy, run, "--name", "prod", "--format", "jsonl").exit_code == 0
    assert cli("import-answers", evaluated_copy, answers, "--name", "prod", "--no-judge").exit_code == 0
    traces = write_traces(evaluated_copy, tmp_path / "t.jsonl", queries, with_ids=True)
    result = cli("import-traces", evaluated_copy, traces, "--name", "prod", "--no-judge")
    assert result.exit_code == 0, result.output
    text = said(result)
    assert "run:prod: 6 queries from traces replace their import-run rankings" in text
    assert "run:prod: 6 queries from traces replace their import-answers answers" in text
    p = Pipeline(evaluated_copy)
    assert rankings(evaluated_copy) == {q.query_id: [d for d, _ in p.retrieve(q.query)] for q in queries}
    got = {a.query_id: a for a in load_answers(load_project(evaluated_copy), "prod").answers}
    for q in queries:  # the trace's own answer, to the trace's own context: paired
        context = [d for d, _ in p.rerank(q.query, p.retrieve(q.query))][:3]
        assert got[q.query_id].answer == p.answer(q, context) and got[q.query_id].context_doc_ids == context
    # and back: a newer import-run replaces the traces' rankings, said as well (the same file again
    # would add nothing: the ledger holds it already)
    newer = tmp_path / "newer.jsonl"
    newer.write_text("".join(json.dumps({"query_id": q.query_id, "ranked": [by_source[d] for d in docs[::-1]]}) + "\n" for q in queries))
    back = cli("import-run", evaluated_copy, newer, "--name", "prod", "--format", "jsonl")
    assert back.exit_code == 0 and "run:prod: 6 queries from import-run replace their traces rankings" in said(back)
    assert set(map(tuple, rankings(evaluated_copy).values())) == {tuple(docs[::-1])}


def test_re_adding_the_same_traces_adds_nothing(evaluated_copy, tmp_path):
    from workbench.session.production import import_traces

    queries = load_project(evaluated_copy).queries
    a = write_traces(evaluated_copy, tmp_path / "a.jsonl", queries[:3], with_ids=True)
    b = write_traces(evaluated_copy, tmp_path / "b.jsonl", queries[3:5], with_ids=True)
    assert cli("import-traces", evaluated_copy, a, "--name", "prod", "--no-judge").exit_code == 0
    n, data = rows(evaluated_copy), ledger_file(evaluated_copy).read_bytes()
    again = cli("import-traces", evaluated_copy, a, "--name", "prod", "--no-judge")
    assert again.exit_code == 0 and "3 trace(s) already in the ledger: not added twice" in said(again)
    assert rows(evaluated_copy) == n and ledger_file(evaluated_copy).read_bytes() == data
    # an overlapping batch (a collector's retry): only what is new is added
    spans_a, spans_b = spans_of(a), spans_of(b)
    done = import_traces(evaluated_copy, str(a), "prod", judge=False, spans=(spans_a[0] + spans_b[0], [], "otlp"))
    assert done.imported.kept == 3 and rows(evaluated_copy) == n + 2


def test_a_ledger_that_does_not_open_is_a_clear_error(evaluated_copy, tmp_path):
    path = ledger_file(evaluated_copy)
    path.write_bytes(b"this is no database, " * 100)
    run = tmp_path / "r.run"
    q = load_project(evaluated_copy).queries[0]
    run.write_text(f"{q.query_id} Q0 {sorted(load_project(evaluated_copy).documents)[0]} 1 1.0 t\n")
    result = cli("import-run", evaluated_copy, run, "--name", "prod", "--ids", "docid")
    assert result.exit_code == 2, result.output
    assert "ledger" in said(result) and str(path) in said(result) and "Traceback" not in result.output
    assert path.read_bytes() == b"this is no database, " * 100  # primary data: never rebuilt over


def test_report_since_a_span_before_any_date_is_a_clear_error(evaluated_copy):
    result = cli("report", evaluated_copy, "--since", "999999999d")
    assert result.exit_code == 2, result.output
    assert "--since" in said(result) and "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_an_older_release_s_records_are_read_into_the_ledger_once(evaluated_copy, tmp_path):
    """A project imported before the ledger keeps its production run (its JSON records read in once)."""
    import msgspec

    from workbench.records import Hit, RankedList
    from workbench.triage.runs import ImportedRun

    project = load_project(evaluated_copy)
    q = project.queries[0]
    legacy = ImportedRun("old", "trec", "docid", 1.0, {"*": "old.run"}, {"*": "x"},
                         {"*": [RankedList(q.query_id, [Hit(q.gold_doc_ids[0], 2.0)])]}, 0, 0)
    folder = project.state_dir / "imports" / "runs"
    folder.mkdir(parents=True)
    (folder / "old.json").write_bytes(msgspec.json.encode(legacy))
    assert rankings(evaluated_copy, "old") == {q.query_id: [q.gold_doc_ids[0]]}
    n = rows(evaluated_copy)
    assert rankings(evaluated_copy, "old") == {q.query_id: [q.gold_doc_ids[0]]} and rows(evaluated_copy) == n


def test_diagnose_after_a_live_import_reads_the_new_ranking(evaluated_copy, tmp_path):
    """Before: the run store's run:live from the last `eval` was read until the next eval."""
    from workbench.access.evaluate import evaluate
    from workbench.access.ladder import load_tiers
    from workbench.diagnosis.verdicts import VerdictReader
    from workbench.rerank.systems import stored_runs
    from workbench.session.production import import_traces

    project = load_project(evaluated_copy)
    queries = project.queries[:3]
    first = write_traces(evaluated_copy, tmp_path / "1.jsonl", queries, with_ids=True, text_of=lambda q: "an unrelated question")
    import_traces(evaluated_copy, str(first), "live", judge=False)
    evaluate(load_project(evaluated_copy), load_tiers(project).tiers, {}, stored=stored_runs)  # stores run:live
    second = write_traces(evaluated_copy, tmp_path / "2.jsonl", queries, with_ids=True)
    import_traces(evaluated_copy, "collector", "live", judge=False, spans=spans_of(second))
    project = load_project(evaluated_copy)
    full = next(t for t in load_tiers(project).tiers if t.kind == "full")
    p = Pipeline(evaluated_copy)
    want = {q.query_id: [d for d, _ in p.retrieve(q.query)] for q in queries}
    # what a reader of the run store (the inspector) finds: nothing stale — gone until a reader stores it again
    from workbench.access.runs import RunStore

    assert RunStore(project).load("run:live", full.name) is None
    read = VerdictReader(project).tier_store(full).rankings["run:live"]
    assert {q: read[q] for q in read} == want
    stored = RunStore(project).load("run:live", full.name)  # stored again, from the ledger
    assert {r.query_id: [h.doc_id for h in r.hits] for r in stored.rankings} == want


def read_only(folder: Path) -> None:
    """The folder read-only as a mount makes it (root ignores file modes): a read-only bind mount."""
    import os
    import subprocess

    import pytest

    if os.geteuid() != 0:
        for p in [folder, *folder.iterdir()]:
            p.chmod(0o555 if p.is_dir() else 0o444)
        return
    if subprocess.run(["mount", "--bind", str(folder), str(folder)], capture_output=True).returncode != 0:
        pytest.skip("cannot bind-mount here: the read-only reading is covered where mounts are allowed (CI runs as root)")
    subprocess.run(["mount", "-o", "remount,ro,bind", str(folder)], check=True)


def writable(folder: Path) -> None:
    import os
    import subprocess

    if os.geteuid() != 0:
        for p in [folder, *folder.iterdir()]:
            p.chmod(0o755 if p.is_dir() else 0o644)
    else:
        subprocess.run(["umount", "-l", str(folder)], check=True)  # lazily: a file still open does not hold it


def test_a_ledger_of_before_the_view_index_reads_the_same_writable_or_not(evaluated_copy, tmp_path):
    """The view's index (the `latest` table: per query and slot, the row that fills it) is built once
    for a ledger written before it — in a read-only project, for the reading connection only — and
    the view, the batch's latest rows and the served queries read exactly as the index-less rows say."""
    from workbench.session.production import import_traces
    from workbench.triage import ledger

    queries = load_project(evaluated_copy).queries
    import_traces(evaluated_copy, str(write_traces(evaluated_copy, tmp_path / "a.jsonl", queries[:5], with_ids=True)), "prod",
                  judge=False)
    import_traces(evaluated_copy, str(write_traces(evaluated_copy, tmp_path / "b.jsonl", queries[3:8], with_ids=True,
                                                   rerank=False)), "prod", judge=False)  # 3, 4 served again: the later rows
    project = load_project(evaluated_copy)

    def read() -> tuple:
        ledger._VIEWS.clear()
        v = ledger.view(project, "prod")
        flat = {(slot, part, q): row.id for slot, parts in v.slots.items() for part, qs in parts.items() for q, row in qs.items()}
        latest = {k: r.id for k, r in ledger.latest_rows(project, "prod", [q.query_id for q in queries[:8]]).items()}
        return flat, latest, ledger.served_ids(project, "prod")

    before = read()
    assert before[1][(queries[3].query_id, "ranking")] > before[1][(queries[0].query_id, "ranking")]
    with sqlite3.connect(ledger_file(evaluated_copy)) as db:  # as a release before the index wrote it
        db.execute("DROP TABLE latest")
        db.execute("DELETE FROM meta WHERE key = 'latest'")
    state = evaluated_copy / ".workbench"
    read_only(state)
    try:
        assert read() == before  # read-only: built for the connection, nothing written
    finally:
        writable(state)
    with sqlite3.connect(ledger_file(evaluated_copy)) as db:
        assert not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'latest'").fetchone()
    assert read() == before  # writable: built once, kept
    with sqlite3.connect(ledger_file(evaluated_copy)) as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'latest'").fetchone() == ("1",)


def test_a_parsed_trace_is_kept_deflated_and_an_earlier_plain_one_still_reads(evaluated_copy, tmp_path):
    """The parsed traces (their documents' text and prompt) are the ledger's bulk: stored deflated; a
    row an earlier release stored as plain JSON reads the same."""
    import zlib

    from workbench.session.production import import_traces
    from workbench.triage import ledger

    queries = load_project(evaluated_copy).queries
    import_traces(evaluated_copy, str(write_traces(evaluated_copy, tmp_path / "a.jsonl", queries[:3], with_ids=True)), "prod",
                  judge=False)
    project = load_project(evaluated_copy)
    read = ledger.parsed_traces(project, "prod")
    with sqlite3.connect(ledger_file(evaluated_copy)) as db:
        stored = [(rid, bytes(p)) for rid, p in db.execute("SELECT id, parsed FROM entries WHERE parsed IS NOT NULL ORDER BY id")]
        assert len(stored) == 3 and all(p[:1] != b"{" and len(p) < len(zlib.decompress(p)) for _, p in stored)
        db.execute("UPDATE entries SET parsed = ? WHERE id = ?", (zlib.decompress(stored[0][1]), stored[0][0]))
    assert ledger.parsed_traces(project, "prod") == read and json.loads(read[0])["trace_id"]
