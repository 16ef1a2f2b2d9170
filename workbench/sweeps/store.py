"""Sweeps on disk: .workbench/sweeps/<sweep id>/{meta.json, results.jsonl, judgements.jsonl}.

The id is a hash of the spec: the same command finds its sweep again and continues it. Results
are appended one line per finished arm (flushed and fsynced), so a stopped sweep loses at most
the call in flight; a torn last line is ignored and that arm is simply run again. meta.json is
rewritten atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

import msgspec

from workbench.fsutil import append_record, atomic_write_bytes, sha256_bytes
from workbench.project.files import Project
from workbench.sweeps.records import ArmResult, Judgement, SweepMeta, SweepSpec

SWEEPS_DIR = "sweeps"

# what a per-arm jsonl file holds (each keyed by its arm_id)
Record = TypeVar("Record", ArmResult, Judgement)


def sweep_id(spec: SweepSpec) -> str:
    return f"{spec.kind}-{sha256_bytes(msgspec.json.encode(spec))[:12]}"


class SweepStore:
    def __init__(self, project: Project):
        self.project = project
        self.root = project.state_dir / SWEEPS_DIR

    def dir(self, sid: str) -> Path:
        return self.root / sid

    def save_meta(self, meta: SweepMeta) -> None:
        atomic_write_bytes(self.dir(meta.sweep_id) / "meta.json", msgspec.json.encode(meta))

    def load_meta(self, sid: str) -> SweepMeta | None:
        try:
            return msgspec.json.decode((self.dir(sid) / "meta.json").read_bytes(), type=SweepMeta)
        except (OSError, msgspec.DecodeError):
            return None  # damaged or from an older schema: not trusted

    def list(self) -> list[SweepMeta]:
        """Every readable sweep, oldest first."""
        if not self.root.is_dir():
            return []
        metas = [m for p in self.root.iterdir() if p.is_dir() and (m := self.load_meta(p.name)) is not None]
        return sorted(metas, key=lambda m: (m.created, m.sweep_id))

    def latest(self, kind: str) -> SweepMeta | None:
        metas = [m for m in self.list() if m.spec.kind == kind]
        return metas[-1] if metas else None

    def _append(self, sid: str, name: str, record: msgspec.Struct) -> None:
        # a torn last line (an interrupted write) must not swallow this record: append_record starts a new line
        append_record(self.dir(sid) / name, self.project.root, msgspec.json.encode(record))

    def _read(self, sid: str, name: str, typ: type[Record]) -> dict[str, Record]:
        path = self.dir(sid) / name
        out: dict[str, Record] = {}
        try:
            raw = path.read_bytes()
        except OSError:
            return out
        dec: msgspec.json.Decoder[Record] = msgspec.json.Decoder(typ)
        for line in raw.split(b"\n"):
            if not line.strip():
                continue
            try:
                rec = dec.decode(line)
            except msgspec.DecodeError:
                continue  # a torn last line from an interrupted write: that arm runs again
            out[rec.arm_id] = rec
        return out

    def append_result(self, sid: str, result: ArmResult) -> None:
        self._append(sid, "results.jsonl", result)

    def append_judgement(self, sid: str, j: Judgement) -> None:
        self._append(sid, "judgements.jsonl", j)

    def results(self, sid: str) -> dict[str, ArmResult]:
        return self._read(sid, "results.jsonl", ArmResult)

    def judgements(self, sid: str) -> dict[str, Judgement]:
        return self._read(sid, "judgements.jsonl", Judgement)
