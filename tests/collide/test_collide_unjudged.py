"""`collide --from unjudged`: the answer-bearing unjudged documents are the candidates, on a project
whose rankings are fixed by construction (tests/support/insight.py, indexed): on `full` the only
one is document 7 ("Paris museums", bm25 #1 for q1, stating q1's answer). Verdicts come from the
fault server, by DocID."""

from __future__ import annotations

import re
import shutil

import pytest
from click.testing import CliRunner

from support.insight import make_indexed_insight_project
from workbench.cli import main
from workbench.project.load import load_project
from workbench.project.versions import list_versions, read_labels

_CANDIDATE = re.compile(r"Candidate: \[DocID=(\d+)\]")


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    return make_indexed_insight_project(tmp_path_factory.mktemp("collide-unjudged") / "p")


@pytest.fixture
def project(indexed, tmp_path, fault_server):
    root = shutil.copytree(indexed, tmp_path / "p")
    (root / "workbench.toml").write_text(
        (root / "workbench.toml").read_text() + f'\n[models.stub]\nmodel = "fault"\nbase_url = "{fault_server.base_url}"\n')
    return root


def test_the_answer_bearing_unjudged_documents_are_verified_and_the_other_queries_carried(project, fault_server):
    asked: list[int] = []

    def respond(messages):
        doc = int(_CANDIDATE.search(messages[-1]["content"]).group(1))
        asked.append(doc)
        return "FALSE_NEGATIVE: It states that Paris is where the Louvre is." if doc == 7 else "HARD_NEGATIVE: Another topic."

    fault_server.responder = respond
    res = CliRunner().invoke(main, ["collide", str(project), "--model", "stub", "--from", "unjudged"])
    assert res.exit_code == 0, res.output
    assert asked == [7]  # nothing mined: the one answer-bearing unjudged document, verified once
    assert "queries in            1" in res.output and "false negatives       1 promoted to gold" in res.output
    assert "the other 2 carried over unchanged" in res.output
    v = load_project(project, "collide-1")
    assert [q.query_id for q in v.queries] == ["q1", "q2", "q3"]  # q2, q3 had no candidate: kept as they were
    assert v.query("q1").gold_doc_ids == [1, 7]
    original = load_project(project)
    assert [(q.gold_doc_ids, q.hard_negative_ids) for q in v.queries[1:]] == [
        (q.gold_doc_ids, q.hard_negative_ids) for q in original.queries[1:]]
    (record,) = [r for r in read_labels(project, "collide-1") if r.doc_id == 7]
    assert (record.action, record.details["source"]) == ("add_gold", "unjudged")

    # from collide-1, 7 is gold: nothing left to verify, and no version equal to its parent
    res = CliRunner().invoke(main, ["collide", str(project), "--model", "stub", "--from", "unjudged",
                                    "--queries-version", "collide-1"])
    assert res.exit_code == 0, res.output
    assert "nothing to verify" in res.output and [i.name for i in list_versions(project)] == ["original", "collide-1"]


def test_a_mining_option_with_from_unjudged_is_a_usage_error(project):
    res = CliRunner().invoke(main, ["collide", str(project), "--model", "stub", "--from", "unjudged", "--bm25", "3"])
    assert res.exit_code == 2 and "--bm25 shapes mining" in res.output


def test_no_stored_ranking_says_what_to_run(project):
    from workbench.access.runs import RunStore
    from workbench.access.ladder import load_tiers

    p = load_project(project)
    full = next(t for t in load_tiers(p).tiers if t.name == "full")
    for run in RunStore(p).runs(full):
        RunStore(p).path(run.system, run.tier).unlink()
    res = CliRunner().invoke(main, ["collide", str(project), "--model", "stub", "--from", "unjudged"])
    assert res.exit_code == 2, res.output
    assert "no stored ranking on tier 'full'" in res.output and "workbench eval" in res.output
