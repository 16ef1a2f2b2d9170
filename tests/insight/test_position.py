"""Position deciles on stored long-context runs: the gold's depth is known from the seeded order."""

from __future__ import annotations

import msgspec

from support.diagnosis import calibrate, qa_result
from support.insight import make_insight_project
from workbench.access.ladder import load_tiers
from workbench.access.runs import tier_hash
from workbench.insight.position import decile, position_tables
from workbench.llm.records import LocalizeResult, TierRun
from workbench.llm.store import LLMRunStore
from workbench.llm.tasks import tier_order
from workbench.project.load import load_project
from workbench.tokens import count_tokens, serialize_docs


def _depth(project, order: list[int], doc_id: int) -> float:
    """Independently of the module: tokens of the serialised prefix before doc_id over the whole."""
    docs = project.docs(order)
    whole = count_tokens(serialize_docs(docs))
    before = docs[: order.index(doc_id)]
    return count_tokens(serialize_docs(before) + "\n") / whole if before else 0.0


def _run(project, tier, task: str, **fields) -> TierRun:
    return TierRun(system=f"model:local:{task}", model="local", task=task, variant="standard", tier=tier.name,
                   tier_hash=tier_hash(project, tier), key="test", fits=True, input_tokens=100, budget_tokens=7000,
                   judge="local" if task == "qa" else None, k=2, complete=True, **fields)


def test_recall_and_correctness_by_the_gold_depth(tmp_path):
    project = load_project(make_insight_project(tmp_path / "p"))
    tier = next(t for t in load_tiers(project).tiers if t.name == "full")
    order = tier_order(tier, 3)
    loc = [LocalizeResult("q1", "1", [1], 0, 10, 1, 0.1), LocalizeResult("q2", "", [], 0, 10, 1, 0.1),
           LocalizeResult("q3", "4", [4], 0, 10, 1, 0.1)]
    LLMRunStore(project).save(_run(project, tier, "localize", localize=loc, seed=3))
    # QA: q1's gold first (right), q2's gold last (wrong)
    first, last = [1, 2, 3, 4, 5, 6, 7], [7, 6, 5, 3, 2, 1, 4]
    qa = [qa_result("q1", "Paris", first), msgspec.structs.replace(qa_result("q2", "pears", last, score=0.0), judge_scores=[0])]
    LLMRunStore(project).save(_run(project, tier, "qa", qa=qa))
    calibrate(project, separates=True)

    table = next(t for t in position_tables(project, [tier]) if t.scope == "full")
    assert (table.localized, table.answered) == (4, 2)
    expect: dict[int, list[int]] = {}
    for g, found in ((1, 1), (4, 0), (4, 1), (6, 0)):  # q1's 1 found; q2's 4 missed; q3's 4 found, 6 missed
        cell = expect.setdefault(decile(_depth(project, order, g)), [0, 0])
        cell[0] += 1
        cell[1] += found
    assert {c.decile: [c.loc_n, c.loc_found] for c in table.cells if c.loc_n} == expect
    d_first, d_last = decile(_depth(project, first, 1)), decile(_depth(project, last, 4))
    assert d_first == 0 and d_last >= 8
    cells = {c.decile: c for c in table.cells}
    assert (cells[d_first].qa_n, cells[d_first].qa_correct, cells[d_last].qa_n, cells[d_last].qa_correct) == (1, 1, 1, 0)


def test_no_long_context_run_no_table(tmp_path):
    project = load_project(make_insight_project(tmp_path / "p"))
    assert position_tables(project, load_tiers(project).tiers) == []
