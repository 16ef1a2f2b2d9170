"""One base for every error a user can cause (bad input, bad state, a failing endpoint).

Each carries a title (what failed), the message (what exactly, with file/line/field where
known) and a hint (what to do next). Front ends handle them in one place each: the CLI's
`WorkbenchGroup.invoke` (workbench/cli/__init__.py) prints them and exits with `exit_code`; the TUI's
worker-failure handler (screens/app.py) shows them in a modal. Anything that is not a
WorkbenchError is a bug and keeps its traceback.
"""

from __future__ import annotations

BAD_INPUT = 2  # bad input or bad state: the user can fix it and rerun
EXTERNAL = 1  # a call outside our control failed (an endpoint, a server process)


class WorkbenchError(Exception):
    title = "Error"
    hint = ""
    exit_code = BAD_INPUT

    def __init__(self, message: str = "", *, hint: str | None = None, title: str | None = None) -> None:
        super().__init__(message)
        if hint is not None:
            self.hint = hint
        if title is not None:
            self.title = title

    @property
    def message(self) -> str:
        return str(self)


class BadInput(WorkbenchError, ValueError):
    """An unknown name or a bad option value (a tier, a retriever, a task, a variant)."""

    title = "Bad input"


class ExternalError(WorkbenchError):
    """Something outside the workbench failed (exit status 1, not 2)."""

    title = "External call failed"
    exit_code = EXTERNAL
