"""What every scorer is: (query, documents) → one relevance score per document, higher = more
relevant, and an ``identity``: what its scores depend on (model files or endpoint, truncation,
prompt), never how they are computed (batch size, device, concurrency), so the score cache
survives a change of those."""

from __future__ import annotations

from typing import Callable, Sequence

# Part of every identity: bump when a scorer's text preparation or scoring changes.
SCORER_VERSION = 1


class Scorer:
    name = ""
    identity = ""
    # called as (pairs scored, pairs) by a scorer that makes one call per pair; the job's progress
    # protocol raises Cancelled there, so a cancel stops between calls, not after a whole query
    poll: Callable[[int, int], None] | None = None

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        raise NotImplementedError

    def close(self) -> None:
        """Release connections or servers."""
