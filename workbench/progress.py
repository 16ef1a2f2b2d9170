"""The one progress + cancel protocol of long work, and its Rich front end for the CLI.

Long operations (index builds, evaluation, model runs) take ``progress(stage, done, total)``.
It is called from the working thread; each new ``stage`` is a new bar. Cancelling works one
way: the callback raises ``Cancelled`` (the TUI's callback does when its worker is cancelled;
a test's can do it after N calls), and the operation stops between items, keeping what it
finished. The front ends: ``stage_progress`` (Rich bars, CLI), the TUI's task bar
(screens/app.py), and plain lists in tests.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator, Protocol

if TYPE_CHECKING:
    from rich.console import Console


class Progress(Protocol):
    def __call__(self, stage: str, done: int, total: int) -> None: ...


class Cancelled(Exception):
    """Raised by a progress callback to stop the work that called it (the user cancelled)."""


def no_progress(stage: str, done: int, total: int) -> None:
    """A progress callback that shows nothing and never cancels."""


@contextmanager
def stage_progress(console: "Console", unit: str = "items") -> Iterator[Progress]:
    """Yield progress(stage, done, total) drawing one Rich bar per stage, with items/second."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        ProgressColumn,
        Task,
        TaskID,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.progress import Progress as Bars
    from rich.text import Text

    class RateColumn(ProgressColumn):
        def render(self, task: Task) -> Text:
            return Text(f"{task.speed:,.0f} {unit}/s" if task.speed else "", style="cyan")

    tasks: dict[str, TaskID] = {}
    with Bars(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), RateColumn(),
              TimeElapsedColumn(), TimeRemainingColumn(), console=console) as bar:

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        yield update
