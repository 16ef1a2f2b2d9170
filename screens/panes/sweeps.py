"""The Sweeps tab: the latest sweep of each kind, read off the UI thread when the session changes."""

from __future__ import annotations

import asyncio

from rich.console import Group
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import var
from textual.widgets import Static

from workbench.session import Session, sweep_panels

NO_SWEEPS = "No sweeps yet: run `workbench sweep volume PROJECT` (or depth, distribution; --dry-run first) and reopen."


class SweepsPane(VerticalScroll):
    DEFAULT_CSS = """
    SweepsPane { height: 1fr; }
    """

    session: var[Session | None] = var(None, always_update=True)

    def compose(self) -> ComposeResult:
        yield Static(NO_SWEEPS, id="sweeps-body")

    def watch_session(self, session: Session | None) -> None:
        if session is not None:
            self.run_worker(self._load(session), group="sweeps", exclusive=True, exit_on_error=False)

    async def _load(self, session: Session) -> None:
        panels = await asyncio.to_thread(sweep_panels, session)  # file reads and resampling, off the UI thread
        self.query_one("#sweeps-body", Static).update(Group(*panels) if panels else NO_SWEEPS)
