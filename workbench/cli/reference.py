"""docs/cli.md, the reference of every `workbench` command, generated from the commands' own --help.

    python -m workbench.cli.reference            # print the document
    python -m workbench.cli.reference --write    # replace docs/cli.md (atomically)

The help is rendered at a fixed width (WIDTH), never the caller's terminal, so the document is the
same on every machine; tests/cli/test_cli_reference.py fails when docs/cli.md is out of date."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import click

from workbench.cli import main
from workbench.session.options import atomic_write_bytes

WIDTH = 100
PROG = "workbench"
REPO = Path(__file__).resolve().parents[2]  # workbench/cli/reference.py -> the repository root
DOC = REPO / "docs" / "cli.md"
REGENERATE = "python -m workbench.cli.reference --write"


def _context(command: click.Command, name: str, parent: click.Context | None) -> click.Context:
    # What make_context would build (the command's context_settings, e.g. -h/--help) without
    # parsing any arguments; the width is fixed so shutil.get_terminal_size / COLUMNS never count.
    settings = {**command.context_settings, "terminal_width": WIDTH, "max_content_width": WIDTH}
    return click.Context(command, info_name=name, parent=parent, **settings)


def commands(root: click.Command = main) -> Iterator[tuple[str, click.Command, click.Context]]:
    """(full command path, command, its context) of the group and every visible command below it,
    depth first, each group's commands in its list_commands order (alphabetical for click.Group)."""
    yield from _walk(root, PROG, None)


def _walk(command: click.Command, name: str, parent: click.Context | None) -> Iterator[tuple[str, click.Command, click.Context]]:
    ctx = _context(command, name, parent)
    yield ctx.command_path, command, ctx
    if isinstance(command, click.Group):
        for sub_name in command.list_commands(ctx):
            sub = command.get_command(ctx, sub_name)
            if sub is not None and not sub.hidden:
                yield from _walk(sub, sub_name, ctx)


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading (lowercase, spaces to hyphens, punctuation dropped)."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def _fence(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render(root: click.Command = main) -> str:
    """The whole document, as docs/cli.md holds it."""
    entries = list(commands(root))
    out = [
        f"# `{PROG}` command reference",
        "",
        f"Generated from the commands' own `--help` by `{REGENERATE}`"
        " (or `python -m workbench.cli.reference > docs/cli.md`); do not edit by hand.",
        "",
        "| Command | Summary |",
        "| --- | --- |",
    ]
    for path, command, _ctx in entries:
        summary = command.get_short_help_str(limit=1000)
        out.append(f"| [`{path}`](#{_anchor(path)}) | {_cell(summary)} |")
    for path, command, ctx in entries:
        help_text = command.get_help(ctx).rstrip()
        fence = _fence(help_text)
        out += ["", f"## {path}", "", f"{fence}text", help_text, fence]
    return "\n".join(out) + "\n"


def write(path: Path = DOC) -> Path:
    atomic_write_bytes(path, render().encode("utf-8"))
    return path


def run(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workbench.cli.reference", description="Print (or --write) docs/cli.md.")
    parser.add_argument("--write", action="store_true", help=f"replace {DOC.relative_to(REPO)} instead of printing")
    args = parser.parse_args(argv)
    if args.write:
        print(f"wrote {write()}", file=sys.stderr)
    else:
        sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    sys.exit(run())
