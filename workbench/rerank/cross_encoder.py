"""The cross-encoder reranker: sentence-transformers' CrossEncoder from a local folder or a model
already in the offline Hugging Face cache (loading, truncation to max_length and batching are its own)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

from workbench.fsutil import folder_fingerprint
from workbench.records import RerankerConfig
from workbench.rerank.base import SCORER_VERSION, Scorer
from workbench.rerank.errors import RerankError


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
