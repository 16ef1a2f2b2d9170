"""Rich progress bars for long CLI work: one bar per stage, with items/second."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from workbench.safe_text import markup_escaped


class RateColumn(ProgressColumn):
    def __init__(self, unit: str):
        super().__init__()
        self.unit = unit

    def render(self, task: Task) -> Text:
        unit = task.fields.get("unit", self.unit)
        return Text(f"{task.speed:,.0f} {unit}/s" if task.speed else "", style="cyan")


@contextmanager
def stage_progress(console: Console, unit: str | Callable[[str], str] = "items") -> Iterator[Callable[[str, int, int], None]]:
    """Yield progress(stage, done, total); each new stage gets its own bar. ``unit`` names what the
    bars count, or says it per stage (embedding counts chunks, BM25 counts documents)."""
    unit_of = unit if callable(unit) else (lambda stage: unit)
    tasks: dict[str, TaskID] = {}
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn("items"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
    ) as bar:

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(markup_escaped(stage, one_line=True), total=total,  # stages name tiers: data
                                            unit=unit_of(stage))
            bar.update(tasks[stage], completed=done, total=total)

        yield update
