"""What the diagnosis calls a system (an access source paired with a reader: SystemSpec) and
production's name in it: read by the verdicts (collect.py) and their next steps (next_steps.py)."""

from __future__ import annotations

import msgspec

from workbench.names import SystemName


class SystemSpec(msgspec.Struct, frozen=True):
    name: str
    access: str | None  # the ranking system whose top K is the access fact
    model: str | None
    reader: str | None  # "rag" (retrieve-then-read on `access`) | "qa" (the whole tier in context) | "production" | None
    oracle_model: str | None = None  # production: the model whose oracle answers tell ACCESS from BOTH

    @property
    def label(self) -> str:
        if self.reader == "production":
            return f"{self.name} (production: what it read → its answer; oracle {self.oracle_model})"
        if self.reader == "rag":
            return f"{self.access} → {self.model} (retrieve-then-read)"
        if self.reader == "qa":
            return f"{self.model} (long context; access = its own localization)"
        return f"{self.access} (access only)"


def production_name(system: str) -> str:
    """run:<name>:answers → <name>."""
    name = SystemName.parse(system).name
    return name[: -len(":answers")] if name.endswith(":answers") else name
