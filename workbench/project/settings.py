"""The project's settings that many parts read, in one place: the cut-off K of the access
metrics, the rule for when a reading is given. Every part reads them from here, never from a
literal (tests/test_settings_home.py fails on a new literal K)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.project.files import Project

MIN_DECIDED = 5  # fewer decided verdicts behind a (system, tier) or overall figure: no reading is given


def access_k(project: "Project") -> int:
    """K of SR@K / FR@K / MRR@K and of "in the top K": the project's `[retrievers] k`."""
    return project.config.retrievers.k


def reading_given(decided: int) -> bool:
    """The one rule for when a reading (retrieval-bound, use-bound…) is given: enough decided verdicts."""
    return decided >= MIN_DECIDED
