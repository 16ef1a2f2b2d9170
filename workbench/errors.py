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


class FileSystemError(WorkbenchError):
    """An operating-system error on a file (read-only, no space, a folder where a file belongs,
    permission): one message naming the path and what to do, exit status 2."""

    title = "A file could not be read or written"


# errno → (what happened, what to do); anything else gets the system's own words
_OS_ADVICE: dict[int, tuple[str, str]] = {
    30: ("the file system is read-only", "Make the project folder writable (or copy it somewhere writable) and rerun."),
    28: ("no space left on the device", "Free some disk space and rerun; nothing half-written was kept."),
    122: ("the disk quota is exceeded", "Free some space within your quota and rerun."),
    21: ("is a folder, where a file belongs", "Remove or rename that folder and rerun."),
    20: ("a part of the path is a file, where a folder belongs", "Remove or rename that file and rerun."),
    13: ("permission denied", "Give yourself read and write permission on it (chmod / chown) and rerun."),
    1: ("operation not permitted", "Give yourself permission on it and rerun."),
    2: ("does not exist", "Check the path and rerun."),
    40: ("is a symbolic link that cannot be followed here", "Replace the link by the file itself and rerun."),
}


def os_error(exc: OSError) -> FileSystemError:
    """``exc`` as the one user-facing message: the path, what happened and what to do."""
    what, hint = _OS_ADVICE.get(exc.errno or 0, (exc.strerror or str(exc), "Check the file and its folder, then rerun."))
    paths = [str(p) for p in (exc.filename, exc.filename2) if p is not None]
    where = " → ".join(paths) if paths else "(a file of the project)"
    return FileSystemError(f"{where}: {what}", hint=hint)


class ExternalError(WorkbenchError):
    """Something outside the workbench failed (exit status 1, not 2)."""

    title = "External call failed"
    exit_code = EXTERNAL
