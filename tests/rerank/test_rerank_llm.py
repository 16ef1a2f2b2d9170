"""The `llm` reranker: a chat model's pointwise yes/no through the project's chat client (its
retries and response cache); the stub server answers "yes" for documents that name France."""

from __future__ import annotations

import msgspec
import pytest

from support.rerank import configure
from workbench.access.ladder import load_tiers
from workbench.access.runs import RunStore
from workbench.project.files import load_config, write_config
from workbench.project.load import load_project
from workbench.records import ModelConfig
from workbench.rerank.pointwise import parse_relevance
from workbench.rerank.run import rerank


def _yes_for_france(messages: list[dict]) -> str:
    document = messages[-1]["content"].split("Document:", 1)[1]
    return "Yes." if "France" in document else "no"


def test_documents_judged_relevant_rise_to_the_top(rerank_project, fault_server):
    fault_server.responder = _yes_for_france
    config = load_config(rerank_project)
    stub = ModelConfig(model="stub", base_url=fault_server.base_url, max_retries=2)
    write_config(rerank_project, msgspec.structs.replace(config, models={"stub": stub}))
    configure(rerank_project, judge={"backend": "llm", "model": "stub"})
    project = load_project(rerank_project)
    full = [t for t in load_tiers(project).tiers if t.name == "full"]
    fault_server.script = [500]  # retried by the client
    rerank(project, full, ["bm25>rerank:judge@6"], k=3)
    run = RunStore(project).load("bm25>rerank:judge@6", "full")
    base = RunStore(project).load("bm25", "full")
    for r in run.rankings:
        reranked = [h.doc_id for h in r.hits]
        france = [d for d in reranked if "France" in project.documents[d].text]
        assert reranked[: len(france)] == france, "every yes before every no"
        others = [h.doc_id for h in base.hits(r.query_id) if h.doc_id not in france]
        assert reranked[len(france):] == others, "ties keep the base order"
    assert len(fault_server.requests) == 1 + sum(len(r.hits) for r in run.rankings)
    asked = fault_server.requests[-1]
    assert asked["logprobs"] is True and asked["top_logprobs"] >= 2 and asked["max_tokens"] == 1, \
        "log-probabilities are asked for; this server sends none, so the parsed answers ordered the documents"


def test_the_score_is_p_yes_from_the_log_probabilities_else_the_parsed_answer():
    import math

    from workbench.llm.client import Completion, TokenLogprob
    from workbench.rerank.pointwise import relevance

    alts = [TokenLogprob("No", math.log(0.6)), TokenLogprob(" yes", math.log(0.2)), TokenLogprob("The", math.log(0.1)),
            TokenLogprob("Yes", math.log(0.1))]
    assert relevance(Completion("No", 1, 1, 0.1, top_logprobs=alts)) == pytest.approx(0.3 / 0.9)
    assert relevance(Completion("No", 1, 1, 0.1)) == 0.0, "no log-probabilities: the parsed answer"
    assert relevance(Completion("Yes", 1, 1, 0.1, top_logprobs=[TokenLogprob("Maybe", -0.1)])) == 1.0


def test_the_answer_is_parsed_leniently():
    assert parse_relevance("Yes, it does.") == 1.0 and parse_relevance("NO") == 0.0
    assert parse_relevance("I cannot tell") == 0.5


def test_a_cancel_stops_between_calls_and_the_rerank_resumes(rerank_project, fault_server):
    """The job's progress is polled after each pair's call: Cancelled there drops the calls still
    waiting, stores no run, and the same rerank then completes."""
    import pytest

    from workbench.progress import Cancelled

    fault_server.responder = _yes_for_france
    config = load_config(rerank_project)
    write_config(rerank_project, msgspec.structs.replace(config, models={"stub": ModelConfig(model="stub", base_url=fault_server.base_url)}))
    configure(rerank_project, judge={"backend": "llm", "model": "stub"})
    project = load_project(rerank_project)
    full = [t for t in load_tiers(project).tiers if t.name == "full"]
    seen: list[tuple[str, int, int]] = []

    def progress(stage: str, done: int, total: int) -> None:
        seen.append((stage, done, total))
        if stage.startswith("judge: pairs") and done == 2:
            raise Cancelled("cancelled")

    with pytest.raises(Cancelled):
        rerank(project, full, ["bm25>rerank:judge@6"], k=3, progress=progress)
    assert RunStore(project).load("bm25>rerank:judge@6", "full") is None, "nothing half-stored"
    assert [s for s in seen if s[0].startswith("judge: pairs")][-1][1] == 2
    rerank(project, full, ["bm25>rerank:judge@6"], k=3)
    assert RunStore(project).load("bm25>rerank:judge@6", "full") is not None
