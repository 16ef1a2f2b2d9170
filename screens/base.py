"""The base of the workbench's own screens: the app, typed, and the screen's palette commands."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, cast

from textual.screen import Screen

if TYPE_CHECKING:
    from screens.app import WorkbenchApp

PaletteCommand = tuple[str, Callable[[], object], str]  # (title, callback, help) in the command palette


class WorkbenchScreen(Screen[None]):
    """A screen of the WorkbenchApp (never pushed by another app): `wb` is the app, typed."""

    @property
    def wb(self) -> WorkbenchApp:
        return cast("WorkbenchApp", self.app)

    def palette_commands(self) -> list[PaletteCommand]:
        """This screen's own entries in the command palette (Ctrl+P), after the app-wide ones."""
        return []
