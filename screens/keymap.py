"""User key remapping: a TOML file of binding id = keys, applied with App.set_keymap.

    # ~/.config/nearmiss-workbench/keymap.toml  (or the file named by $NEARMISS_KEYMAP)
    "inspector.next_miss" = "j"
    "inspector.prev_miss" = "k"
    "main.filter" = "slash,ctrl+f"

Every binding's id is listed in the help screen (f1).
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

ENV_VAR = "NEARMISS_KEYMAP"
DEFAULT_PATH = Path("~/.config/nearmiss-workbench/keymap.toml")


class KeymapError(ValueError):
    pass


def keymap_path() -> Path:
    return Path(os.environ.get(ENV_VAR) or DEFAULT_PATH).expanduser()


def load_keymap(path: Path | None = None) -> dict[str, str]:
    """The user's keymap ({} when there is no file); KeymapError names the file and the entry."""
    path = path or keymap_path()
    if not path.exists():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise KeymapError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:  # a folder, no permission: said like a bad file, the TUI starts without it
        raise KeymapError(f"{path}: cannot read: {exc.strerror or exc}") from None
    bad = [k for k, v in data.items() if not isinstance(v, str) or not v.strip()]
    if bad:
        raise KeymapError(f"{path}: {bad[0]}: expected keys as a string, e.g. \"j\" or \"ctrl+j,down\"")
    return dict(data)


def unknown_ids(keymap: dict[str, str], known: set[str]) -> list[str]:
    return sorted(set(keymap) - known)
