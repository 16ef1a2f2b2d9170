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
from typing import TYPE_CHECKING, Any, Callable, Coroutine, Iterator, Protocol, TypeVar

if TYPE_CHECKING:
    from rich.console import Console


T = TypeVar("T")


class Progress(Protocol):
    def __call__(self, stage: str, done: int, total: int) -> None: ...


class Cancelled(Exception):
    """Raised by a progress callback to stop the work that called it (the user cancelled)."""


def no_progress(stage: str, done: int, total: int) -> None:
    """A progress callback that shows nothing and never cancels."""


def _bars(console: "Console") -> Any:
    """Rich bars with items/second (rich.progress imported here: only when there is progress to draw)."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        ProgressColumn,
        Task,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.progress import Progress as Bars
    from rich.text import Text

    class RateColumn(ProgressColumn):
        def render(self, task: Task) -> Text:
            return Text(f"{task.speed:,.0f} {task.fields['unit']}/s" if task.speed else "", style="cyan")

    # markup=False: a stage names a tier, whose domain is data ("[bold]x:skull:" stays as written)
    return Bars(TextColumn("{task.description}", style="bold", markup=False), BarColumn(), MofNCompleteColumn(), RateColumn(),
                TimeElapsedColumn(), TimeRemainingColumn(), console=console)


@contextmanager
def stage_progress(console: "Console", unit: str | Callable[[str], str] = "items") -> Iterator[Progress]:
    """Yield progress(stage, done, total) drawing one Rich bar per stage, with items/second.
    ``unit`` names what the bars count, or says it per stage (embedding counts chunks, BM25 documents).
    The bars start with the first stage: work that finds everything done draws nothing."""
    from workbench.safe_text import visible

    unit_of = unit if callable(unit) else (lambda stage: unit)
    tasks: dict[str, Any] = {}
    bars: list[Any] = []

    def update(stage: str, done: int, total: int) -> None:
        if not bars:
            bars.append(_bars(console))
            bars[0].start()
        if stage not in tasks:
            # stages name tiers, and tier names hold domains: data, shown as text
            tasks[stage] = bars[0].add_task(visible(stage, one_line=True), total=total, unit=unit_of(stage))
        bars[0].update(tasks[stage], completed=done, total=total)

    try:
        yield update
    finally:
        if bars:
            bars[0].stop()


def run_polled(make: Callable[[], Coroutine[Any, Any, T]], poll: Callable[[], None], every_s: float = 0.1,
               on_cancel: Callable[[], object] | None = None) -> T:
    """Run a coroutine to its end on a new event loop (blocking; from a worker thread), calling
    ``poll`` every ``every_s``: when ``poll`` raises Cancelled, ``on_cancel`` runs (on the loop: the
    model clients' cancel hooks), the coroutine is cancelled, awaited, and Cancelled re-raised.
    This is how blocking model work honours the one cancel protocol."""

    import asyncio  # here, not at start-up: only model work runs an event loop

    async def guarded() -> T:
        job = asyncio.ensure_future(make())
        while not job.done():
            try:
                poll()
            except Cancelled:
                if on_cancel is not None:
                    on_cancel()
                job.cancel()
                await asyncio.wait({job})
                raise
            await asyncio.wait({job}, timeout=every_s)
        return job.result()

    return asyncio.run(guarded())
