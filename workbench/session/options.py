"""Options every command shares that set the core's process-wide behaviour: how long a command that
writes the project's files waits for another to release them (`--lock-timeout`), and the atomic
write a front end uses for a file of its own (docs/cli.md). The values live in workbench/fsutil.py."""

from __future__ import annotations

from workbench import fsutil
from workbench.fsutil import DEFAULT_LOCK_TIMEOUT_S, LOCK_TIMEOUT_ENV, atomic_write_bytes

__all__ = ["DEFAULT_LOCK_TIMEOUT_S", "LOCK_TIMEOUT_ENV", "atomic_write_bytes", "set_lock_timeout"]


def set_lock_timeout(seconds: float | None) -> None:
    """This command's --lock-timeout (None: $NEARMISS_LOCK_TIMEOUT_S, else the default)."""
    fsutil.lock_timeout_option = seconds
