"""Scorers: (query, documents) → one relevance score per document, higher = more relevant.

``make_scorer`` turns a ``[rerankers.NAME]`` table into one. Each scorer has an ``identity``: what
its scores depend on (model files or endpoint, truncation, prompt), never how they are computed
(batch size, device, concurrency), so the score cache survives a change of those.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Sequence

from workbench.project.files import Project
from workbench.records import RerankerConfig
from workbench.rerank.errors import RerankError

# Part of every identity: bump when a scorer's text preparation or scoring changes.
SCORER_VERSION = 1


class Scorer:
    name = ""
    identity = ""

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        raise NotImplementedError

    def close(self) -> None:
        """Release connections or servers."""


def reranker_config(project: Project, name: str) -> RerankerConfig:
    config = project.config.rerankers.get(name)
    if config is None:
        known = sorted(project.config.rerankers) or "none configured"
        raise RerankError(f"unknown reranker {name!r}; known: {known}",
                          hint=f"add a [rerankers.{name}] table to workbench.toml (README: Rerankers)")
    return config


def folder_fingerprint(path: Path) -> str:
    """Identity of a model folder without reading its weights: its small files' bytes and every
    file's name and size (a retrained model changes the weights' size or its config)."""
    h = hashlib.sha256()
    for p in sorted(q for q in path.rglob("*") if q.is_file()):
        rel = str(p.relative_to(path)).encode()
        size = p.stat().st_size
        h.update(rel + b"\0" + str(size).encode() + b"\0")
        if size < 64_000:
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


def resolve_model_path(name: str, config: RerankerConfig, root: Path) -> Path:
    """A local folder (relative to the project), else a model already in the offline HF cache."""
    if not config.model:
        raise RerankError(f"reranker {name!r}: `model` is empty (a folder or a cached model name)")
    local = Path(os.path.expanduser(config.model))
    local = local if local.is_absolute() else root / local
    if local.is_dir():
        return local
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(config.model, local_files_only=True))
    except Exception as exc:  # noqa: BLE001 - any failure means: not there offline
        raise RerankError(f"reranker {name!r}: model {config.model!r} is neither a folder nor in the offline "
                          f"Hugging Face cache ({type(exc).__name__})",
                          hint="give the folder of a saved CrossEncoder, or download it once where a network is") from None


class CrossEncoderScorer(Scorer):
    """sentence-transformers' CrossEncoder: loading, truncation to max_length and batching are its own."""

    def __init__(self, name: str, config: RerankerConfig, root: Path):
        self.name = name
        self.config = config
        self.path = resolve_model_path(name, config, root)
        self.identity = f"cross-encoder:{SCORER_VERSION}:{folder_fingerprint(self.path)}:{config.max_length}"
        self._model = None

    @property
    def model(self):
        if self._model is None:
            from sentence_transformers import CrossEncoder

            try:
                self._model = CrossEncoder(str(self.path), max_length=self.config.max_length, device=self.config.device)
            except (OSError, ValueError) as exc:
                raise RerankError(f"reranker {self.name!r}: {self.path} does not load as a CrossEncoder: {exc}") from None
        return self._model

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        if not documents:
            return []
        scores = self.model.predict([(query, d) for d in documents], batch_size=self.config.batch_size,
                                    show_progress_bar=False, convert_to_numpy=True)
        return [float(s) for s in scores.reshape(len(documents), -1)[:, -1]]


def make_scorer(project: Project, name: str) -> Scorer:
    config = reranker_config(project, name)
    if config.backend == "cross-encoder":
        return CrossEncoderScorer(name, config, project.root)
    if config.backend == "endpoint":
        from workbench.rerank.endpoint import EndpointScorer

        return EndpointScorer(name, config)
    from workbench.rerank.pointwise import LLMScorer

    return LLMScorer(project, name, config)
