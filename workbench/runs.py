"""Stored rankings of every system (retrievers and model localization) per tier.

A run is keyed by (system config, index manifest or model config, tier contents): a rerun
with nothing changed finds its key and recomputes nothing; a changed key means stale.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from workbench.fsutil import atomic_write_bytes, safe_name, sha256_bytes
from workbench.project import Project
from workbench.records import RankedList, Tier

RUNS_DIR = "runs"


class SystemRun(msgspec.Struct, frozen=True):
    system: str  # "bm25", "dense", "hybrid", "model:<name>:localize"
    tier: str
    tier_hash: str
    key: str
    k: int
    rankings: list[RankedList]

    def ranking(self, query_id: str) -> list[int] | None:
        for r in self.rankings:
            if r.query_id == query_id:
                return [h.doc_id for h in r.hits]
        return None


def tier_hash(project: Project, tier: Tier) -> str:
    """Identity of a tier's contents within this corpus version."""
    return sha256_bytes(msgspec.json.encode([project.corpus_hash(), tier.doc_ids, tier.query_ids]))[:16]


def run_key(*parts: object) -> str:
    return sha256_bytes(msgspec.json.encode(parts))[:16]


class RunStore:
    def __init__(self, project: Project):
        self.project = project
        self.root = project.state_dir / RUNS_DIR

    def path(self, system: str, tier: str) -> Path:
        return self.root / safe_name(tier) / f"{safe_name(system)}.json"

    def load(self, system: str, tier: str) -> SystemRun | None:
        p = self.path(system, tier)
        if not p.exists():
            return None
        try:
            return msgspec.json.decode(p.read_bytes(), type=SystemRun)
        except msgspec.DecodeError:
            return None  # a foreign or damaged file is stale, never trusted

    def load_if_current(self, system: str, tier: Tier, key: str) -> SystemRun | None:
        run = self.load(system, tier.name)
        if run is None or run.key != key or run.tier_hash != tier_hash(self.project, tier):
            return None
        return run

    def save(self, run: SystemRun) -> None:
        atomic_write_bytes(self.path(run.system, run.tier), msgspec.json.encode(run))

    def systems(self, tier: Tier) -> list[str]:
        """Systems with a stored run for this tier's current contents."""
        d = self.root / safe_name(tier.name)
        if not d.exists():
            return []
        th = tier_hash(self.project, tier)
        out = []
        for p in sorted(d.glob("*.json")):
            try:
                run = msgspec.json.decode(p.read_bytes(), type=SystemRun)
            except msgspec.DecodeError:
                continue
            if run.tier_hash == th:
                out.append(run.system)
        return out
