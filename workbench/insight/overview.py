"""The sharper diagnosis in a few lines, for the TUI's overview (through workbench/session/)."""

from __future__ import annotations

from workbench.diagnosis.verdicts import VerdictReader
from workbench.insight.effective_size import EffectiveSize, effective_sizes
from workbench.insight.position import PositionTable, position_tables
from workbench.project.files import Project
from workbench.records import Tier


def headline_sizes(sizes: list[EffectiveSize]) -> list[EffectiveSize]:
    """Per ranking system its FR@K (SR@K when FR@K has nothing to keep), then every answer arm."""
    out = []
    for system in dict.fromkeys(e.system for e in sizes if e.metric != "correct"):
        mine = [e for e in sizes if e.system == system and e.levels]
        # FR@K, unless it is 0 at the smallest level already (nothing to keep): then SR@K
        pick = next((e for e in mine if e.metric.startswith("FR") and e.effective_level), None) or \
            next((e for e in mine if e.effective_level), mine[0] if mine else None)
        if pick:
            out.append(pick)
    return out + [e for e in sizes if e.metric == "correct" and e.levels]


def position_line(t: PositionTable) -> str:
    cells = " ".join(f"{c.decile * 10}%:{c.loc_found}/{c.loc_n}" for c in t.cells if c.loc_n)
    answers = " ".join(f"{c.decile * 10}%:{c.qa_correct}/{c.qa_n}" for c in t.cells if c.qa_n)
    parts = [f"{t.model} on {t.scope}, by the gold's depth"]
    if cells:
        parts.append(f"recall (found/golds) {cells}")
    if answers:
        parts.append(f"answers right {answers}")
    return "; ".join(parts)


def overview_lines(project: Project, tiers: list[Tier]) -> list[str]:
    if not tiers:
        return []
    c = VerdictReader(project)
    lines = [e.sentence for e in headline_sizes(effective_sizes(project, tiers, c))]
    positions = position_tables(project, tiers, c)
    # a level's summary where there is one, else the tiers themselves
    summed = [t for t in positions if t.scope.startswith("level ")]
    lines += [position_line(t) for t in (summed or positions)]
    return lines
