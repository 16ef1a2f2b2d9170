"""The query inspector (a package): the screen, and one module per pane that draws it."""

from screens.inspector.rankings import LABEL_KEYS
from screens.inspector.screen import QueryScreen, task_bindings

__all__ = ["LABEL_KEYS", "QueryScreen", "task_bindings"]
