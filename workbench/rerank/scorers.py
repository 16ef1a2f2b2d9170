"""``make_scorer``: a ``[rerankers.NAME]`` table made into its scorer (workbench/rerank/base.py)."""

from __future__ import annotations

from workbench.project.files import Project
from workbench.records import RerankerConfig
from workbench.rerank.base import Scorer
from workbench.rerank.cross_encoder import CrossEncoderScorer
from workbench.rerank.endpoint import EndpointScorer
from workbench.rerank.errors import RerankError
from workbench.rerank.pointwise import LLMScorer


def reranker_config(project: Project, name: str) -> RerankerConfig:
    config = project.config.rerankers.get(name)
    if config is None:
        known = sorted(project.config.rerankers) or "none configured"
        raise RerankError(f"unknown reranker {name!r}; known: {known}",
                          hint=f"add a [rerankers.{name}] table to workbench.toml (README: Trying a fix)")
    return config


def make_scorer(project: Project, name: str) -> Scorer:
    config = reranker_config(project, name)
    if config.backend == "cross-encoder":
        return CrossEncoderScorer(name, config, project.root)
    if config.backend == "endpoint":
        return EndpointScorer(name, config)
    return LLMScorer(project, name, config)
