"""The near-miss arm: the gold documents and the query's hard negatives in a seeded order, nothing
else; end to end with the embedded model (llm), and its verdict split over what it answered."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from support.llm_project import TINY_QUERIES, make_tiny_project
from workbench.llm.tasks import nearmiss_order
from workbench.names import TASKS
from workbench.records import Query


def test_the_arm_reads_gold_and_hard_negatives_in_a_seeded_order():
    q3 = TINY_QUERIES[2]  # gold 4, 6; hard negative 5
    assert sorted(nearmiss_order(q3, 0)) == [4, 5, 6]
    assert nearmiss_order(q3, 0) == nearmiss_order(q3, 0)
    orders = {tuple(nearmiss_order(q3, seed)) for seed in range(20)}
    assert len(orders) > 1  # the order is shuffled, not sorted
    assert TASKS["nearmiss"].context == "nearmiss" and not TASKS["nearmiss"].localizes


@pytest.mark.llm
def test_end_to_end_with_the_embedded_model(local_server, tmp_path):
    from workbench.access.ladder import ensure_tiers
    from workbench.cli import main
    from workbench.diagnosis.verdicts import read_verdicts
    from workbench.llm.store import LLMRunStore
    from workbench.project.files import write_project_files
    from workbench.project.load import load_project
    from workbench.records import ModelConfig
    from support.llm_project import TINY_DOCS

    root = make_tiny_project(tmp_path / "tiny", models={"local": ModelConfig(max_tokens=24)})
    # q4 has no hard negative: the arm would be the oracle again, so it is left out
    write_project_files(root, TINY_DOCS, [*TINY_QUERIES, Query("q4", "Which city is known for its cuisine?", "Lyon", [2], [], "geo")])
    args = ["run", str(root), "--task", "nearmiss,oracle,qa", "--tiers", "base:geo", "--judge-samples", "1", "--seed", "5"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    project = load_project(root)
    tier = next(t for t in ensure_tiers(project).tiers if t.name == "base:geo")
    run = next(r for r in LLMRunStore(project).runs(tier) if r.task == "nearmiss")
    assert run.system == "model:local:nearmiss" and run.fits and run.complete and run.seed == 5
    assert [r.query_id for r in run.qa] == ["q1"]  # base:geo's queries: q1 (hard negative 3) and q4 (none)
    (q1,) = run.qa
    assert q1.context_doc_ids == nearmiss_order(project.query("q1"), 5) and q1.judged and q1.answer
    qv = read_verdicts(project, [tier])
    for v in qv.verdicts:
        if v.verdict == "USE-UNDER-DISTRACTORS":  # the arm answered q1: its verdict is split, never D1
            assert v.rule in ("D2", "D3") and "near-miss arm answer" in v.because
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0 and "model calls 0" in again.output, again.output
