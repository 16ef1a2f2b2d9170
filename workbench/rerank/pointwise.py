"""The ``llm`` reranker: pointwise relevance from any configured OpenAI-compatible chat model.

Each (query, document) is one call asking "does this document help answer the question? yes or
no", through the project's chat client (its response cache, retries and concurrency), for one
token with its top log-probabilities. The score is P(yes) among the yes/no answers of that first
token, where the server returns log-probabilities (llama.cpp's server does): a graded score, so a
small model that answers "no" to everything still orders the documents. Where it does not, or no
yes/no is among the alternatives, the parsed answer: yes 1, no 0, anything else 0.5; ties keep the
base system's order (the stage sorts stably).
"""

from __future__ import annotations

import asyncio
import math
import re
from typing import TYPE_CHECKING, Sequence

from workbench.project.files import Project
from workbench.records import RerankerConfig
from workbench.rerank.base import SCORER_VERSION, Scorer

if TYPE_CHECKING:
    from workbench.llm.client import Completion

PROMPT_VERSION = 2  # 2: one token with its log-probabilities
TOP_LOGPROBS = 10  # alternatives asked for: enough to hold both "yes" and "no" in any casing
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


def relevance(completion: Completion) -> float:
    """P(yes | yes or no) from the first token's log-probabilities, else the parsed answer."""
    mass = {"yes": 0.0, "no": 0.0}
    for alt in completion.top_logprobs or []:
        word = alt.token.strip().strip(".,!:;\"'").lower()
        if word in mass:
            mass[word] += math.exp(alt.logprob)
    total = mass["yes"] + mass["no"]
    return mass["yes"] / total if total > 0 else parse_relevance(completion.text)


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
            tasks = [asyncio.ensure_future(client.complete(relevance_prompt(query, d), max_tokens=1, temperature=0.0,
                                                           top_logprobs=TOP_LOGPROBS))
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
        return [relevance(t.result()) for t in tasks]
