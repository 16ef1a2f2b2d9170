"""The ``llm`` reranker: pointwise relevance from any configured OpenAI-compatible chat model.

Each (query, document) is one call asking "does this document help answer the question? yes or
no", through the project's chat client (its response cache, retries and concurrency). The score
is the parsed answer: yes 1, no 0, anything else 0.5; ties keep the base system's order (the
stage sorts stably). Log-probabilities would give a finer score, but the shared chat client
returns only the text today (see the README's Rerankers section).
"""

from __future__ import annotations

import asyncio
import re
from typing import Sequence

from workbench.project.files import Project
from workbench.records import RerankerConfig
from workbench.rerank.base import SCORER_VERSION, Scorer

PROMPT_VERSION = 1
SYSTEM = "You judge whether a document helps answer a question. Reply with one word: yes or no."
_ANSWER = re.compile(r"\b(yes|no)\b", re.IGNORECASE)


def relevance_prompt(query: str, document: str) -> list[dict]:
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Question: {query}\n\nDocument:\n{document}\n\n"
                                        "Does this document contain information that helps answer the question? "
                                        "Answer yes or no."}]


def parse_relevance(text: str) -> float:
    m = _ANSWER.search(text)
    return 0.5 if m is None else float(m[1].lower() == "yes")


class LLMScorer(Scorer):
    def __init__(self, project: Project, name: str, config: RerankerConfig):
        from workbench.llm.providers import endpoint, resolve_model

        self.project = project
        self.name = name
        self.config = config
        self.model_name, self.model = resolve_model(project, config.model or None)
        _, ident = endpoint(self.model)
        self.identity = f"llm:{SCORER_VERSION}:{PROMPT_VERSION}:{ident}:{self.model.model}:{config.max_length}"

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        return asyncio.run(self._score(query, [d[: 4 * self.config.max_length] for d in documents]))

    async def _score(self, query: str, documents: list[str]) -> list[float]:
        from workbench.llm.providers import open_client

        async with open_client(self.project, self.model_name, self.model) as client:
            tasks = [asyncio.ensure_future(client.complete(relevance_prompt(query, d), max_tokens=3, temperature=0.0))
                     for d in documents]
            try:
                for n, answer in enumerate(asyncio.as_completed(tasks), 1):
                    await answer
                    if self.poll is not None:
                        self.poll(n, len(tasks))  # may raise Cancelled: the calls still waiting are dropped
            except BaseException:
                for t in tasks:
                    t.cancel()  # aborts their HTTP requests: the server stops generating
                await asyncio.gather(*tasks, return_exceptions=True)
                raise
        return [parse_relevance(t.result().text) for t in tasks]
