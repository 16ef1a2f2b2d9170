"""The one builder of the commands the product suggests (in the diagnosis, the fix commands,
collide, error hints, the TUI): `workbench <verb> <absolute project path> <args…>`, every part
shell-quoted, so a path with a space runs when pasted."""

from __future__ import annotations

import shlex
from pathlib import Path


def command(verb: str, root: Path | str, *args: object, **options: object) -> str:
    """``command("eval", root, tiers="a,b")`` → ``workbench eval '/abs/my project' --tiers a,b``.
    An option whose value is True is a flag; None or False is left out; a list is comma-joined."""
    parts = ["workbench", *verb.split(), str(Path(root).expanduser().resolve())]
    parts += [str(a) for a in args]
    for name, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + name.replace("_", "-")
        if value is True:
            parts.append(flag)
        else:
            parts += [flag, ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)]
    return shlex.join(parts)
