"""The base of the workbench's own screens: the app, typed, and the screen's palette commands."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, cast

from textual.screen import Screen
from textual.widget import Widget

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


def covered(widget: Widget) -> bool:
    """A full screen (the inspector) over the widget's screen: drawing what nobody sees would hold
    up that screen's keys (a label there changes every verdict: the whole list, the whole tab)."""
    top = widget.app.screen
    return top is not widget.screen and not top.is_modal and widget.screen in widget.app.screen_stack
