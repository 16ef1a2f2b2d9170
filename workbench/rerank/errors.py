"""What a rerank can fail with: bad input (exit 2) or a failing endpoint (exit 1); both name the reranker."""

from __future__ import annotations

from workbench.errors import BadInput, ExternalError


class RerankError(BadInput):
    title = "Cannot rerank"


class RerankEndpointError(ExternalError):
    title = "A rerank endpoint failed"
