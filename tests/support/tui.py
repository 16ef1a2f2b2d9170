"""Shared helpers for the TUI and inspection tests (not tests themselves)."""

from __future__ import annotations

import io
from pathlib import Path

SIZE = (100, 30)  # the terminal most TUI tests run at


def text_of(widget) -> str:
    """A Static widget's content as plain text (rendered at 200 columns)."""
    from rich.console import Console

    console = Console(width=200, record=True, file=io.StringIO())
    console.print(widget.content)
    return console.export_text()


async def settle(pilot, rounds: int = 4) -> None:
    """Wait for workers and for the messages they posted (a finished worker may start another);
    stop cursor blink so screens render the same every time."""
    from textual.widgets import Input

    app = pilot.app
    from textual.worker import WorkerCancelled

    for _ in range(rounds):
        try:
            await app.workers.wait_for_complete()
        except WorkerCancelled:
            pass  # an exclusive worker replaced by a newer one: the newer one is waited for next round
        await pilot.pause()
    for inp in app.query(Input):
        inp.cursor_blink = False


async def open_inspector(pilot, query_id: str, tier: str) -> None:
    await settle(pilot)
    pilot.app.open_query(query_id, tier)
    await settle(pilot)


def first_near_miss_case(root: Path):
    """(query, tier, inspection) of the first multi-source query with a near miss, largest tier first."""
    from workbench.inspection.rankings import inspect_stored
    from workbench.access.ladder import load_tiers
    from workbench.project.load import load_project

    p = load_project(root)
    tiers = load_tiers(p).tiers
    for tier in reversed(tiers):
        for qid in tier.query_ids:
            q = p.query(qid)
            ins = inspect_stored(p, tier, q)
            if q.is_multi_source and ins.near_misses:
                return p, q, tier, ins
    raise AssertionError("no near miss in the fixture project")


def with_fixed_scores(src: Path, dest: Path) -> Path:
    """A copy of a project whose stored runs carry rank-derived scores (1.000, 0.999, …):
    snapshots then show what the code ranks, not float noise that a torch or BLAS version
    moves in the third decimal. Run keys are kept, so opening the app reuses these runs."""
    import shutil

    import msgspec

    from workbench.records import Hit, RankedList
    from workbench.access.runs import SystemRun

    shutil.copytree(src, dest)
    for path in sorted((dest / ".workbench" / "runs").glob("*/*.json")):
        run = msgspec.json.decode(path.read_bytes(), type=SystemRun)
        fixed = [RankedList(r.query_id, [Hit(h.doc_id, round(1.0 - i / 1000, 3)) for i, h in enumerate(r.hits)])
                 for r in run.rankings]
        path.write_bytes(msgspec.json.encode(msgspec.structs.replace(run, rankings=fixed)))
    return dest


async def until_set(pilot, event, what: str) -> None:
    """Let the app run until a threading.Event is set (the bound only turns a hang into a failure)."""
    await until(pilot, event.is_set, what)


async def until(pilot, condition, what: str) -> None:
    """Let the app run until condition() holds (the bound only turns a hang into a failure)."""
    import asyncio

    async def wait() -> None:
        while not condition():
            await pilot.pause()

    try:
        await asyncio.wait_for(wait(), 60)
    except asyncio.TimeoutError:
        raise AssertionError(f"never happened: {what}") from None
