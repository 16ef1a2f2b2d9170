"""Small shared widgets."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import ProgressBar, Static

from workbench.safe_text import markup_escaped


class TaskBar(Horizontal):
    """The one long background task: label + progress; hidden when idle. Watches app.task_state."""

    def compose(self) -> ComposeResult:
        yield Static("", id="task-label")
        yield ProgressBar(total=None, show_eta=False, id="task-progress")

    def on_mount(self) -> None:
        self.watch(self.app, "task_state", self._update, init=True)

    def _update(self, state: tuple[str, int, int]) -> None:
        label, done, total = state
        self.display = bool(label)
        if not label:
            return
        # the label names tiers (data): escaped, never parsed as markup
        self.query_one("#task-label", Static).update(f"{markup_escaped(label, one_line=True)} [dim](x: cancel)[/]")
        bar = self.query_one("#task-progress", ProgressBar)
        bar.update(total=total or None, progress=done)
