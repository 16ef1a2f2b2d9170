"""Rich renderables for the workbench: kinds, figures, diffs, bars. Pure functions."""

from __future__ import annotations

from functools import partial

from rich.text import Text

from workbench.display import fmt as fmt_figure
from workbench.safe_text import visible
from workbench.session import Span

KIND_STYLE = {"gold": "bold green", "hard_negative": "bold red", "other": ""}
KIND_LABEL = {"gold": "GOLD", "hard_negative": "HN", "other": ""}
DIFF_STYLE = {
    "year": "bold black on yellow",
    "number": "bold black on yellow",
    "name": "bold white on dark_magenta",
    "word": "black on cyan",
}


fmt = partial(fmt_figure, digits=2)  # the TUI's tables are narrower than the CLI's


def figure_glyph(value: float | None) -> Text:
    """One cell per tier: ● all gold in top K, ◐ some, ○ none, · not evaluated/not in tier."""
    if value is None:
        return Text("·", style="dim")
    if value >= 1.0:
        return Text("●", style="green")
    if value > 0:
        return Text("◐", style="yellow")
    return Text("○", style="red")


def rank_text(rank: int | None, k: int, depth: int) -> Text:
    """A gold document's rank: #n, or where the ranking stopped without it (a model's localization
    that named no DocID at all has no depth to be beyond)."""
    if rank is None:
        return Text(f">{depth}" if depth else "none", style="bold red")
    return Text(f"#{rank}", style="bold green" if rank <= k else "bold yellow")


def diff_text(spans: list[Span]) -> Text:
    text = Text()
    for s in spans:
        # document text: escape sequences and other control characters drawn as text, never sent raw
        text.append(visible(s.text), style=DIFF_STYLE.get(s.kind, "") if s.changed else "")
    return text


def bar(value: float | None, width: int, style: str) -> Text:
    """A horizontal bar for a 0..1 value, in eighth-blocks."""
    if value is None:
        return Text("–".ljust(width), style="dim")
    value = max(0.0, min(1.0, value))
    eighths = round(value * width * 8)
    full, part = divmod(eighths, 8)
    s = "█" * full + ("" if part == 0 else " ▏▎▍▌▋▊▉"[part])
    return Text(s.ljust(width), style=style)


# The diagnosis' verdicts, as the query list and the inspector colour them
VERDICT_STYLE = {"PASS": "bold green", "ACCESS": "bold dark_orange", "USE": "bold magenta", "USE-UNDER-DISTRACTORS": "bold hot_pink",
                 "BOTH": "bold red", "ACCESS?": "dark_orange", "UNDECIDED": "italic", "NOT-YET": "dim"}


def paths_text(paths: list, width: int) -> str:
    """Written files for a toast: their folder once, then each file name; a line longer than
    ``width`` is broken after a "/" (never inside a name: a path cut mid-word reads as two)."""
    from pathlib import Path

    paths = [Path(p) for p in paths]
    folders = {p.parent for p in paths}
    lines = [f"{visible(str(next(iter(folders))), one_line=True)}/"] if len(folders) == 1 else []
    lines += [visible(p.name if len(folders) == 1 else str(p), one_line=True) for p in paths]
    out: list[str] = []
    for line in lines:
        while len(line) > width and "/" in line[:width]:
            cut = line.rindex("/", 0, width) + 1
            out.append(line[:cut])
            line = "  " + line[cut:]
        out.append(line)
    return "\n".join(out)


TOAST_CSS = "Toast { width: 76; max-width: 95%; }"  # wider than Textual's 60: a path's folder on one line at 120 columns


def toast_room(screen_width: int) -> int:
    """Cells of text in a toast (TOAST_CSS) at this screen width: its padding and border taken off."""
    return min(76, int(screen_width * 0.95)) - 3
