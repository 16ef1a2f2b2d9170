"""Stored rankings of every system (retrievers and model localization) per tier.

A run is keyed by (system config, index manifest or model config, tier contents): a rerun
with nothing changed finds its key and recomputes nothing; a changed key means stale.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from workbench.fsutil import atomic_write_bytes, safe_name, sha256_bytes
from workbench.project.files import Project
from workbench.records import Hit, RankedList, Tier

RUNS_DIR = "runs"
_DECODED: dict[tuple, object] = {}  # see JsonRunStore._decode
_DECODED_MAX = 256


class SystemRun(msgspec.Struct, frozen=True):
    system: str  # "bm25", "dense", "hybrid", "model:<name>:localize"
    tier: str
    tier_hash: str
    key: str
    k: int
    rankings: list[RankedList]
    # query_id → hash of the query text each ranking was computed for: a ranking whose query is
    # unchanged is reused when only the tier's query set changed (same key = same index).
    texts: dict[str, str] = {}

    def hits(self, query_id: str) -> list[Hit] | None:
        for r in self.rankings:
            if r.query_id == query_id:
                return list(r.hits)
        return None

    def ranking(self, query_id: str) -> list[int] | None:
        hits = self.hits(query_id)
        return None if hits is None else [h.doc_id for h in hits]


def tier_hash(project: Project, tier: Tier) -> str:
    """Identity of a tier's contents within this corpus version."""
    return sha256_bytes(msgspec.json.encode([project.corpus_hash(), tier.doc_ids, tier.query_ids]))[:16]


def tier_docs_hash(project: Project, tier: Tier) -> str:
    """Identity of a tier's documents alone: an index built on them stays valid when queries or
    their labels change (adding a query from a log, marking gold) — only the rankings' scoring does not."""
    return sha256_bytes(msgspec.json.encode([project.documents_hash(), tier.doc_ids]))[:16]


def query_text_hash(text: str) -> str:
    return sha256_bytes(text.encode())[:12]


def run_key(*parts: object) -> str:
    return sha256_bytes(msgspec.json.encode(parts))[:16]


class JsonRunStore:
    """Run records as JSON files under runs/<tier>/[subdir/]<system>.json.

    A file that does not decode (damaged, foreign, an older schema) is stale, never trusted;
    a run whose tier_hash differs from the tier's current contents is not current."""

    record_type: type = SystemRun
    subdir = ""

    def __init__(self, project: Project, root: Path | None = None):
        self.project = project
        self.root = root or project.state_dir / RUNS_DIR

    def _dir(self, tier: str) -> Path:
        d = self.root / safe_name(tier)
        return d / self.subdir if self.subdir else d

    def path(self, system: str, tier: str) -> Path:
        return self._dir(tier) / f"{safe_name(system)}.json"

    def _decode(self, path: Path):
        # Decoded files are remembered by (path, inode, size, mtime): every write is a rename,
        # so a changed file misses; inspecting query after query re-decodes nothing.
        try:
            st = path.stat()
        except OSError:
            return None
        memo = (str(path), st.st_ino, st.st_size, st.st_mtime_ns, self.record_type)
        if memo in _DECODED:
            return _DECODED[memo]
        run: object
        try:
            run = msgspec.json.decode(path.read_bytes(), type=self.record_type)
        except (OSError, msgspec.DecodeError):
            run = None
        if len(_DECODED) >= _DECODED_MAX:
            _DECODED.pop(next(iter(_DECODED)))  # oldest first
        _DECODED[memo] = run
        return run

    def load(self, system: str, tier: str):
        return self._decode(self.path(system, tier))

    def load_if_current(self, system: str, tier: Tier, key: str):
        run = self.load(system, tier.name)
        if run is None or run.key != key or run.tier_hash != tier_hash(self.project, tier):
            return None
        return run

    def save(self, run) -> None:
        atomic_write_bytes(self.path(run.system, run.tier), msgspec.json.encode(run))

    def fingerprint(self, tier: str) -> tuple:
        """Changes whenever a run of this tier is written, added or removed (reads no file)."""
        out = []
        for p in sorted(self._dir(tier).glob("*.json")):
            try:
                st = p.stat()
            except OSError:
                continue
            out.append((p.name, st.st_ino, st.st_size, st.st_mtime_ns))
        return tuple(out)

    def runs(self, tier: Tier) -> list:
        """Stored runs that match the tier's current contents, by system name."""
        th = tier_hash(self.project, tier)
        decoded = (self._decode(p) for p in sorted(self._dir(tier.name).glob("*.json")))
        return [r for r in decoded if r is not None and r.tier_hash == th]


class RunStore(JsonRunStore):
    """Rankings (SystemRun) of retrievers and model localization: what the access side scores."""

    def systems(self, tier: Tier) -> list[str]:
        """Systems with a stored run for this tier's current contents."""
        return [r.system for r in self.runs(tier)]
