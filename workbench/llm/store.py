"""Use-side results beside the retriever runs: .workbench/runs/<tier>/llm/<system>.json.

Localization is also saved as a workbench.runs.SystemRun (system ``model:<name>:localize``)
through RunStore once complete, so `workbench eval` scores it with the retrievers. Files are
rewritten atomically after every query: an interrupted run resumes from the last saved query,
and a finished result is never lost or duplicated (results are keyed by query id).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from workbench.llm.records import TierRun
from workbench.project import Project
from workbench.records import Hit, RankedList
from workbench.runs import JsonRunStore, RunStore, SystemRun

LLM_DIR = "llm"
TUI_DIR = "tui"  # .workbench/tui/<query>/: the one-query runs started in the TUI, one store per query


class LLMRunStore(JsonRunStore):
    """``root`` and ``publish=False`` give a scratch store (the TUI's one-query runs): its runs
    live apart and never replace a tier's full localization run on the access side."""

    record_type = TierRun
    subdir = LLM_DIR

    def __init__(
        self,
        project: Project,
        root: Path | None = None,
        publish: bool = True,
        on_save: Callable[[TierRun], None] | None = None,
    ):
        super().__init__(project, root)
        self.publish = publish
        self.on_save = on_save  # sees every saved state: how a UI shows results as they arrive

    def save(self, run: TierRun) -> None:
        super().save(run)
        if self.on_save is not None:
            self.on_save(run)

    def save_localization(self, run: TierRun) -> SystemRun | None:
        """The access-side view of a finished localization run."""
        if not self.publish:
            return None
        k = run.k
        rankings = [
            RankedList(r.query_id, [Hit(d, float(len(r.doc_ids) - i)) for i, d in enumerate(r.doc_ids)])
            for r in run.localize
        ]
        sr = SystemRun(system=run.system, tier=run.tier, tier_hash=run.tier_hash, key=run.key, k=k, rankings=rankings)
        RunStore(self.project).save(sr)
        return sr

    def drop_localization(self, system: str, tier: str) -> None:
        if self.publish:
            RunStore(self.project).path(system, tier).unlink(missing_ok=True)


def tui_root(project: Project, query_id: str) -> Path:
    from workbench.fsutil import safe_name

    return project.state_dir / TUI_DIR / safe_name(query_id)


def tui_stores(project: Project) -> list[LLMRunStore]:
    """The scratch stores of every query the TUI ran a model on (never published on the access side)."""
    base = project.state_dir / TUI_DIR
    roots = sorted(p for p in base.iterdir() if p.is_dir()) if base.is_dir() else []
    return [LLMRunStore(project, root=r, publish=False) for r in roots]
