"""The `llm` reranker against the real embedded llama.cpp server (SmolLM2): the server returns the
first token's log-probabilities, the shared client hands them back and caches them, and the
scores are graded P(yes) values (not the parsed 0 / 0.5 / 1), the same from the cache."""

from __future__ import annotations

import asyncio

import pytest

from support.rerank import configure

pytestmark = pytest.mark.llm


def test_log_probabilities_come_back_through_the_client_and_grade_the_scores(rerank_project, local_server):
    from workbench.llm.providers import open_client, resolve_model
    from workbench.project.load import load_project
    from workbench.rerank.pointwise import TOP_LOGPROBS, relevance_prompt
    from workbench.rerank.scorers import make_scorer

    configure(rerank_project, local={"backend": "llm", "model": "local"})
    project = load_project(rerank_project)
    query = "What is the capital of France?"
    docs = [f"{d.title}\n{d.text}" for d in (project.documents[1], project.documents[4])]

    async def ask():
        name, model = resolve_model(project, "local")
        async with open_client(project, name, model) as client:
            first = await client.complete(relevance_prompt(query, docs[0]), max_tokens=1, temperature=0.0,
                                          top_logprobs=TOP_LOGPROBS)
            again = await client.complete(relevance_prompt(query, docs[0]), max_tokens=1, temperature=0.0,
                                          top_logprobs=TOP_LOGPROBS)
            return first, again, client.stats

    first, again, stats = asyncio.run(ask())
    assert first.top_logprobs and len(first.top_logprobs) >= 2, "llama.cpp's server returns them"
    assert all(alt.logprob <= 0 for alt in first.top_logprobs)
    assert again.cached and again.top_logprobs == first.top_logprobs, "cached with the completion"

    scorer = make_scorer(project, "local")
    scores = scorer.score(query, docs)
    assert all(0.0 < s < 1.0 for s in scores) and not set(scores) <= {0.0, 0.5, 1.0}, scores
    assert scorer.score(query, docs) == scores
