"""Use-side results beside the retriever runs: .workbench/runs/<tier>/llm/<system>.json.

Localization is also saved as a workbench.runs.SystemRun (system ``model:<name>:localize``)
through RunStore once complete, so `workbench eval` scores it with the retrievers. Files are
rewritten atomically after every query: an interrupted run resumes from the last saved query,
and a finished result is never lost or duplicated (results are keyed by query id).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import msgspec

from workbench.fsutil import atomic_write_bytes
from workbench.llm.records import TierRun
from workbench.project import Project
from workbench.records import Hit, RankedList, Tier
from workbench.fsutil import safe_name
from workbench.runs import RUNS_DIR, RunStore, SystemRun, tier_hash

LLM_DIR = "llm"


class LLMRunStore:
    """``root`` and ``publish=False`` give a scratch store (the TUI's one-query runs): its runs
    live apart and never replace a tier's full localization run on the access side."""

    def __init__(
        self,
        project: Project,
        root: Path | None = None,
        publish: bool = True,
        on_save: Callable[[TierRun], None] | None = None,
    ):
        self.project = project
        self.root = root or project.state_dir / RUNS_DIR
        self.publish = publish
        self.on_save = on_save  # sees every saved state: how a UI shows results as they arrive

    def path(self, system: str, tier: str) -> Path:
        return self.root / safe_name(tier) / LLM_DIR / f"{safe_name(system)}.json"

    def load(self, system: str, tier: str) -> TierRun | None:
        p = self.path(system, tier)
        if not p.exists():
            return None
        try:
            return msgspec.json.decode(p.read_bytes(), type=TierRun)
        except msgspec.DecodeError:
            return None  # damaged or from an older schema: stale

    def load_if_current(self, system: str, tier: Tier, key: str) -> TierRun | None:
        run = self.load(system, tier.name)
        if run is None or run.key != key or run.tier_hash != tier_hash(self.project, tier):
            return None
        return run

    def save(self, run: TierRun) -> None:
        atomic_write_bytes(self.path(run.system, run.tier), msgspec.json.encode(run))
        if self.on_save is not None:
            self.on_save(run)

    def runs(self, tier: Tier) -> list[TierRun]:
        """Stored runs that match the tier's current contents."""
        d = self.root / safe_name(tier.name) / LLM_DIR
        if not d.exists():
            return []
        th = tier_hash(self.project, tier)
        out = []
        for p in sorted(d.glob("*.json")):
            try:
                run = msgspec.json.decode(p.read_bytes(), type=TierRun)
            except msgspec.DecodeError:
                continue
            if run.tier_hash == th:
                out.append(run)
        return out

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
