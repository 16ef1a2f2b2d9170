"""Where things are: the repository and the shared real data, for every test and helper."""

from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HOTPOT = REPO.parent / "shared" / "datasets" / "hotpotqa-100"


def hotpot_rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (HOTPOT / name).read_text().splitlines() if line.strip()]
