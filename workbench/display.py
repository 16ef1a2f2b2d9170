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


def progress_words(done: int, total: int, elapsed_s: float) -> str:
    """A long task's count, rate and time left, in words: "12,345/40,000 · 310/s · about 1 min 30 s
    left" ("" before anything is counted; the rate and time left once there is a rate to tell)."""
    if total <= 0 and done <= 0:
        return ""
    count = f"{done:,}/{total:,}" if total > 0 else f"{done:,}"
    if done <= 0 or elapsed_s <= 0:
        return count
    rate = done / elapsed_s
    parts = [count, f"{rate:,.0f}/s" if rate >= 10 else f"{rate:.1f}/s"]
    if total > done:
        left = (total - done) / rate
        parts.append(f"about {duration_words(left)} left")
    return " · ".join(parts)


def duration_words(seconds: float) -> str:
    """65.2 → "1 min 5 s"; 3725 → "1 h 2 min"; under a minute in whole seconds."""
    s = int(round(seconds))
    if s < 60:
        return f"{max(s, 1)} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s" if s % 60 else f"{s // 60} min"
    return f"{s // 3600} h {(s % 3600) // 60} min"
