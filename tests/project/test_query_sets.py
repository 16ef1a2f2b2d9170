"""Query-set versions: written aside and never over the original, checked as relabellings, scored
on the original set's tiers without rebuilding them."""

from __future__ import annotations

import json

import msgspec
import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.access.evaluate import evaluate
from workbench.access.ladder import load_tiers, tiers_path
from workbench.project.files import ProjectError
from workbench.project.load import load_project
from workbench.project.versions import (
    LabelRecord,
    lineage,
    list_versions,
    load_queries,
    read_labels,
    version_info,
    versions_dir,
    write_version,
)
from workbench.access.retrievers import make_retrievers


def _relabel(project, query_id, **changes):
    return [msgspec.structs.replace(q, **changes) if q.query_id == query_id else q for q in project.queries]


def test_a_version_is_written_beside_the_original_with_its_provenance(project_copy):
    p = load_project(project_copy)
    original_bytes = (project_copy / "queries.jsonl").read_bytes()
    q0, q1 = p.queries[0], p.queries[1]
    extra = next(d for d in sorted(p.documents) if d not in q0.gold_doc_ids and d not in q0.hard_negative_ids)
    queries = [msgspec.structs.replace(q0, hard_negative_ids=[*q0.hard_negative_ids, extra])] + p.queries[2:]
    labels = [
        LabelRecord(q0.query_id, "add_hard_negative", doc_id=extra, label="HARD_NEGATIVE", reason="Same film, other year.",
                    by="model:local", method="collide", created="2026-11-29T21:00:00+00:00", details={"similarity": 0.61}),
        LabelRecord(q1.query_id, "exclude_query", doc_id=5, label="CONFLICT", reason="It contradicts the answer.",
                    by="model:local", method="collide"),
    ]
    info = write_version(p, queries, labels, made_by="collide", stem="collide", settings={"k": 5})

    assert (project_copy / "queries.jsonl").read_bytes() == original_bytes
    assert info.name == "collide-1" and info.parent == "original" and info.n_queries == len(p.queries) - 1
    assert info.excluded == {q1.query_id: "It contradicts the answer."}
    assert [v.name for v in list_versions(project_copy)] == ["original", "collide-1"]
    assert read_labels(project_copy, "collide-1") == labels
    assert load_queries(project_copy, "collide-1") == queries
    assert version_info(project_copy, "collide-1").settings == {"k": 5}

    # a child of the version: parent defaults to the loaded version; names are never reused
    pv = load_project(project_copy, "collide-1")
    child = write_version(pv, pv.queries[1:], [], made_by="tui:alice", stem="collide")
    assert child.name == "collide-2" and child.parent == "collide-1"
    assert lineage(project_copy, "collide-2") == ["collide-2", "collide-1", "original"]
    assert child.excluded == {pv.queries[0].query_id: "removed"}


def test_a_version_never_overwrites_and_bad_ones_leave_nothing(project_copy):
    p = load_project(project_copy)
    write_version(p, p.queries, [], made_by="test", name="mine")
    with pytest.raises(ProjectError, match="exists already"):
        write_version(p, p.queries[1:], [], made_by="test", name="mine")
    with pytest.raises(ProjectError, match="not 'original'"):
        write_version(p, p.queries, [], made_by="test", name="original")
    assert load_queries(project_copy, "mine") == p.queries

    q = p.queries[3]
    cases = {
        "query": _relabel(p, q.query_id, query="a different question"),
        "answer": _relabel(p, q.query_id, answer="another answer"),
        "gold_doc_ids": _relabel(p, q.query_id, gold_doc_ids=[10**9]),
        "hard_negative_ids": _relabel(p, q.query_id, hard_negative_ids=list(q.gold_doc_ids)),
    }
    for fld, queries in cases.items():
        with pytest.raises(ProjectError) as err:
            write_version(p, queries, [], made_by="test", name=f"bad-{fld.replace('_', '-')}")
        assert any(pr.field == fld and pr.line == 4 for pr in err.value.problems), (fld, err.value.problems)
    new = msgspec.structs.replace(q, query_id="brand-new")
    with pytest.raises(ProjectError, match="cannot add them"):
        write_version(p, [*p.queries, new], [], made_by="test", name="bad-new")
    assert sorted(d.name for d in versions_dir(project_copy).iterdir()) == ["mine"]


def test_a_damaged_version_is_reported_by_file_line_and_field(project_copy):
    p = load_project(project_copy)
    write_version(p, p.queries, [], made_by="test", name="v")
    path = versions_dir(project_copy) / "v" / "queries.jsonl"
    lines = path.read_text().splitlines()
    lines[1] = lines[1].replace('"gold_doc_ids":[', '"gold_doc_ids":["x",')
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ProjectError) as err:
        load_project(project_copy, "v")
    assert str(err.value).startswith(f"{path}:2: gold_doc_ids")
    with pytest.raises(ProjectError, match="known: \\['original', 'v'\\]"):
        load_project(project_copy, "nope")


def test_a_version_is_scored_on_the_original_tiers_without_rebuilding_them(project_copy):
    p = load_project(project_copy)
    tiers = load_tiers(p)
    tiers_mtime = tiers_path(p).stat().st_mtime_ns
    base = next(t for t in tiers.tiers if t.kind == "base")
    q = p.query(base.query_ids[0])
    excluded = base.query_ids[1]
    outside = next(d for d in sorted(p.documents) if d not in base.doc_ids and d not in q.hard_negative_ids)
    queries = [msgspec.structs.replace(x, gold_doc_ids=[*x.gold_doc_ids, outside]) if x.query_id == q.query_id else x
               for x in p.queries if x.query_id != excluded]
    write_version(p, queries, [], made_by="test", name="v")
    systems = make_retrievers(p, ["bm25"])
    before = {r.query_id: r for r in evaluate(p, [base], systems)[0].per_query}

    pv = load_project(project_copy, "v")
    assert load_tiers(pv) == tiers  # not stale: a version does not change the corpus hash
    after = evaluate(pv, [base], make_retrievers(pv, ["bm25"]))[0]
    assert tiers_path(p).stat().st_mtime_ns == tiers_mtime
    assert after.reused  # the stored ranking of the original serves the version
    scored = {r.query_id: r for r in after.per_query}
    assert excluded in before and excluded not in scored
    assert after.summary.n_queries == len(before) - 1
    # the promoted gold document is not in this tier: it counts as not retrieved there
    assert scored[q.query_id].gold_ranks[outside] is None
    n_gold = len(q.gold_doc_ids)
    assert scored[q.query_id].sr_at_k == pytest.approx(before[q.query_id].sr_at_k * n_gold / (n_gold + 1))


def test_cli_eval_and_query_sets_say_which_version(project_copy):
    p = load_project(project_copy)
    write_version(p, p.queries[2:], [], made_by="test", name="v", description="two fewer")
    runner = CliRunner()
    res = runner.invoke(main, ["eval", str(project_copy), "--retrievers", "bm25", "--tiers", "full", "--json",
                               "--queries-version", "v"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["queries_version"] == "v"
    assert doc["tiers"]["full"]["bm25"]["n_queries"] == len(p.queries) - 2
    res = runner.invoke(main, ["eval", str(project_copy), "--tiers", "full", "--queries-version", "nope"])
    assert res.exit_code == 2 and "no query-set version 'nope'" in res.output
    res = runner.invoke(main, ["query-sets", str(project_copy), "--json"])
    assert res.exit_code == 0, res.output
    listed = json.loads(res.stdout)
    assert [v["name"] for v in listed] == ["original", "v"] and listed[1]["description"] == "two fewer"
