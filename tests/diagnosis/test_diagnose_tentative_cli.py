"""Issue 40, as seen: after pasted `run` commands `diagnose` read "use-bound" from a few decided
verdicts while other queries lost gold, and the reranker and fine-tuning fixes vanished. On the
hotpot slice (hybrid ranked, real indexes) with wrong retrieve-then-read answers stored for six
queries whose gold reaches the reader: the reading says it is tentative and how many verdicts
stand behind it, and the access fixes stay, first."""

from __future__ import annotations

from click.testing import CliRunner

from support import diagnosis as ds
from workbench.access.ladder import load_tiers
from workbench.access.runs import RunStore, tier_hash
from workbench.cli import main
from workbench.diagnosis.overview import ACCESS_FIXES
from workbench.llm.records import TierRun
from workbench.llm.store import LLMRunStore
from workbench.project.load import load_project


def test_use_bound_from_a_few_answers_is_tentative_and_keeps_the_access_fixes(evaluated_copy):
    root = evaluated_copy
    p = load_project(root)
    k = p.config.retrievers.k
    full = next(t for t in load_tiers(p).tiers if t.name == "full")
    hybrid = next(r for r in RunStore(p).runs(full) if r.system == "hybrid")
    reached = []
    for ranked in hybrid.rankings:
        q = p.query(ranked.query_id)
        top = [h.doc_id for h in ranked.hits[:5]]
        if q.is_labelled and set(q.gold_doc_ids) <= set(top):
            reached.append((q, top))
    assert len(reached) >= 6
    answers = [ds.qa_result(q.query_id, "I cannot tell from these documents, sorry.", top, score=None) for q, top in reached[:6]]
    LLMRunStore(p).save(TierRun(system="model:local:rag:hybrid@5", model="local", task="rag", variant="standard", tier="full",
                                tier_hash=tier_hash(p, full), key="test", fits=True, input_tokens=100, budget_tokens=7000,
                                judge=None, k=5, qa=answers, complete=True))
    res = CliRunner().invoke(main, ["diagnose", str(root), "--system", "hybrid+local"], terminal_width=400)
    assert res.exit_code == 0, res.output
    out = " ".join(res.stdout.split())
    lost = sum(1 for r in hybrid.rankings if not set(p.query(r.query_id).gold_doc_ids) <= {h.doc_id for h in r.hits[:k]})
    assert lost, "some queries lose gold: what must keep the access fixes"
    line = out.split("hybrid+local: ", 1)[1].split(" — ", 1)[0]
    assert line.startswith("use-bound (tentative: 6 decided of ") and "wait for an answer" in line, line
    recs = out.split("Recommendations for hybrid+local (access first):", 1)[1]
    for fix in ACCESS_FIXES[1:]:  # the reranker and hard-negative fine-tuning
        assert fix in recs
    assert recs.index(ACCESS_FIXES[1]) < recs.index("prompting")
