"""The loss funnel (workbench/diagnosis/funnel.py): on hotpotqa-100 with production imported from
traces whose prompt holds only the top 3 of a 10-document retrieval, every query's stage equals one
computed here from the stored ranking, the reranked list, the prompt's context and the answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from support.hotpot100 import evaluated_hotpot100
from support.traces import write_traces
from workbench.cli import main
from workbench.correctness import deterministic_decision
from workbench.diagnosis.funnel import STAGES, FunnelCounts, funnel_stage, funnels
from workbench.project.load import load_project
from workbench.project.settings import access_k


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def production(tmp_path_factory) -> Path:
    """hotpotqa-100, evaluated (the cache tests/triage/test_traces_hotpot.py shares), production imported."""
    root = evaluated_hotpot100(tmp_path_factory.mktemp("funnel") / "hotpot")
    path = write_traces(root, root.parent / "prod.otlp.jsonl")
    result = cli("import-traces", root, path, "--name", "prod", "--no-judge")
    assert result.exit_code == 0, result.output
    return root


def _expected(gold: set[int], k: int, ranking: list[int], reranked: list[int], context: list[int], right: bool | None) -> str:
    """The stage, written out from the definitions (not through funnel_stage)."""
    if right:
        return "right"
    if not gold & set(ranking):
        return "not_retrieved"
    if not gold <= set(reranked[:k]):
        return "ranked_out"
    if not gold <= set(context):
        return "not_delivered"
    return "undecided" if right is None else "not_used"


@pytest.mark.slow  # hotpotqa-100 with production imported (the cache tests/triage/test_traces_hotpot.py shares)
def test_production_funnel_matches_the_stored_ranking_context_and_answer(production):
    from workbench.access.ladder import load_tiers
    from workbench.access.runs import RunStore
    from workbench.triage.traces.store import load_traces

    project = load_project(production)
    k = access_k(project)
    doc = json.loads(cli("diagnose", production, "--json").stdout)
    full = next(t for t in load_tiers(project).tiers if t.name == "full")
    runs = {r.system: {x.query_id: [h.doc_id for h in x.hits] for x in r.rankings} for r in RunStore(project).runs(full)}
    by_query = {t.query_id: t for t in load_traces(project, "prod").queries}  # each trace's prompt and context ids
    mine = [v for v in doc["verdicts"] if v["system"] == "run:prod:answers" and v["tier"] == "full"]
    assert len(mine) == len(project.queries)
    seen = set()
    for v in mine:
        q = project.query(v["query_id"])
        a = by_query[q.query_id]
        context = a.context_doc_ids
        assert len(context) == 3  # the prompt held the top 3 of 10
        decision = deterministic_decision(q, a.answer or "").decision
        right = None if decision == "undecided" else decision == "right"
        want = _expected(set(q.gold_doc_ids), k, runs["run:prod"][q.query_id], runs["run:prod>rerank"][q.query_id], context, right)
        assert v["stage"] == want, (q.query_id, v["because"])
        seen.add(want)
    assert {"not_delivered", "right"} <= seen  # the top-3 prompt loses gold the top 10 had
    for f in doc["funnels"]:
        assert sum(f["funnel"].values()) == f["n"] and set(f["funnel"]) == set(STAGES)
    prod = next(f for f in doc["funnels"] if f["system"] == "run:prod:answers" and f["tier"] == "full")
    assert prod["n"] == len(project.queries)
    assert prod["funnel"]["not_delivered"] == sum(v["stage"] == "not_delivered" for v in mine)


def test_stage_rules_first_that_holds():
    from workbench.llm.answers import AnswerCheck

    def ans(correct: bool | None, ctx: list[int]) -> AnswerCheck:
        return AnswerCheck(query_id="q", arm="rag", system="s", tier="t", answer="a", refusal=False, judge=None, judge_score=None,
                           judge_scores=[], judge_trusted=None, judge_reason="", exact=False, contains=False, f1=0.0,
                           correct=bool(correct), basis="", gold_given=set(ctx) >= {1, 2}, context_doc_ids=ctx, run_queries=1,
                           source="tier run", decision="undecided" if correct is None else ("right" if correct else "wrong"))

    assert funnel_stage([1, 2], 2, [9, 8, 7], ans(True, [9])) == "right"  # parametric: right first
    assert funnel_stage([1, 2], 2, [9, 8, 7], ans(False, [9])) == "not_retrieved"
    assert funnel_stage([1, 2], 2, [1, 8, 2], ans(False, [1, 8])) == "ranked_out"  # one gold found, the other below K
    assert funnel_stage([1, 2], 3, [1, 8, 2], ans(False, [1, 8])) == "not_delivered"
    assert funnel_stage([1, 2], 3, [1, 8, 2], ans(False, [1, 2])) == "not_used"
    assert funnel_stage([1, 2], 3, [1, 8, 2], ans(None, [1, 2])) == "undecided"
    assert funnel_stage([1, 2], 3, [1, 8, 2], None) == "no_answer"  # no answer yet: never called undecided (issue 40)
    assert funnel_stage([1, 2], 3, None, None) == "no_answer"
    assert funnel_stage([1, 2], 3, None, ans(False, [1, 2]), context_known=False) == "unknown"
    assert funnel_stage([1, 2], 3, None, ans(False, [5])) == "unknown"  # no ranking: where the gold went is not known
    assert funnel_stage([1, 2], 3, [1, 2], ans(False, [5]), whole_tier=True) == "not_used"  # long context: the tier is delivered
    assert funnel_stage([1, 2], 3, [1, 2, 8], ans(False, [1, 2]), cut=[8, 1, 5, 2]) == "ranked_out"  # the reranker's cut

    class V:
        def __init__(self, stage: str, tier: str = "t") -> None:
            self.system, self.tier, self.level, self.stage = "s", tier, "full", stage

    [f] = funnels([V("right"), V("right"), V("not_used"), V("ranked_out")])
    assert f.n == 4 and f.funnel == FunnelCounts(right=2, not_used=1, ranked_out=1)


def test_report_json_carries_the_funnel_per_system_and_tier(sample_project):
    import msgspec

    from workbench.access.ladder import load_tiers
    from workbench.diagnosis.verdicts import read_verdicts
    from workbench.report.build import build_report
    from workbench.report.render_json import report_json

    p = load_project(sample_project)
    tiers = load_tiers(p).tiers
    doc = msgspec.json.decode(report_json(build_report(p, tiers, seed=0)))
    qv = read_verdicts(p, tiers)
    assert {(f["system"], f["tier"]) for f in doc["funnels"]} == {(v.system, v.tier) for v in qv.verdicts}
    for f in doc["funnels"]:
        stages = [v.stage for v in qv.verdicts if v.system == f["system"] and v.tier == f["tier"]]
        assert f["n"] == len(stages) == sum(f["funnel"].values())
        assert f["funnel"] == {s: stages.count(s) for s in STAGES}
    hybrid = [v for v in qv.of("hybrid")]
    # no reader yet: a query whose gold is all in the top K waits (no answer yet); the others are lost before the reader
    for v in hybrid:
        lost = v.gold_ranks is not None and not all(r is not None and r <= qv.k for r in v.gold_ranks.values())
        assert (v.stage in ("not_retrieved", "ranked_out")) == lost



@pytest.mark.slow
def test_the_one_query_page_shows_productions_imported_answer(production):
    """Issue 33: the one-query report had "no model answer stored for this tier" beside run:prod:answers."""
    from workbench.access.ladder import load_tiers
    from workbench.report.query import build_query_page
    from workbench.report.query_page import query_markdown
    from workbench.triage.traces.store import load_traces

    project = load_project(production)
    t = load_traces(project, "prod").queries[0]
    page = build_query_page(project, load_tiers(project).tiers, t.query_id)
    full = next(v for v in page.tiers if v.tier == "full")
    prod = [a for a in full.answers if a.system.startswith("run:prod")]
    assert [a.answer for a in prod] == [t.answer]
    assert prod[0].context_doc_ids == t.context_doc_ids
    from workbench.report.markdown import answer_line
    from workbench.report.query_page import _answer_name

    full_md = query_markdown(page).split("## ")[-1]
    assert answer_line(_answer_name(prod[0]), prod[0]) in full_md and "no model answer stored" not in full_md


def test_stages_of_the_tiny_project_with_a_rag_reader(tmp_path):
    """tests/support/diagnosis.py: every stage known in advance (K = 2)."""
    from support import diagnosis as ds
    from workbench.access.ladder import load_tiers
    from workbench.diagnosis.verdicts import read_verdicts

    root = ds.make_project(tmp_path / "tiny")
    ds.fill(root)
    p = load_project(root)
    qv = read_verdicts(p, load_tiers(p).tiers)
    stages = {(v.query_id, v.level): v.stage for v in qv.of("hybrid+local")}
    assert stages[("q1", "full")] == "ranked_out"  # gold 1 at #3 > K=2
    assert stages[("q2", "full")] == stages[("q3", "full")] == "not_used"  # gold handed to the reader, answer wrong
    assert stages[("q1", "base")] == "right"
    for f in qv.funnels:
        assert f.n == sum(f.funnel.as_dict().values()) == sum(1 for v in qv.verdicts if (v.system, v.tier) == (f.system, f.tier))
