"""How a figure is written in every table the workbench prints (CLI and TUI alike)."""

from __future__ import annotations

MISSING = "–"


def fmt(value: float | int | bool | str | None, digits: int = 3) -> str:
    """None → "–" (undefined, e.g. R@1 over no single-source query); floats to `digits` places."""
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)
