"""docs/cli.md, generated from every command's --help, is up to date and covers every command."""

from __future__ import annotations

import difflib
import re

import click
import pytest

from workbench.cli import COMMANDS, main, sweeps
from workbench.cli.reference import DOC, PROG, REGENERATE, commands, render

SECTION = re.compile(r"^## (.+)$", re.MULTILINE)


def sections(text: str) -> list[str]:
    return SECTION.findall(text)


def resolve(path: str) -> click.Command | None:
    """The command a path such as `workbench sweep volume` names, or None."""
    prog, *names = path.split(" ")
    command: click.Command | None = main if prog == PROG else None
    ctx = click.Context(main, info_name=PROG)
    for name in names:
        if not isinstance(command, click.Group):
            return None
        command = command.get_command(ctx, name)
    return command


def committed() -> str:
    if not DOC.exists():
        pytest.fail(f"docs/cli.md is missing; generate it with\n    {REGENERATE}", pytrace=False)
    return DOC.read_text(encoding="utf-8")


def test_docs_cli_md_is_up_to_date():
    expected = render()
    actual = committed()
    if actual != expected:
        diff = "".join(difflib.unified_diff(actual.splitlines(True), expected.splitlines(True),
                                            "docs/cli.md", "generated", n=1))
        lines = diff.splitlines()
        shown = "\n".join(lines[:60]) + (f"\n… {len(lines) - 60} more diff lines" if len(lines) > 60 else "")
        pytest.fail(f"docs/cli.md is out of date with the commands' --help; regenerate it with\n"
                    f"    {REGENERATE}\n{shown}", pytrace=False)


def test_render_does_not_depend_on_the_terminal(monkeypatch):
    first = render()
    for columns in ("40", "250"):
        monkeypatch.setenv("COLUMNS", columns)
        assert render() == first


@pytest.mark.parametrize("source", ["docs/cli.md", "generated"])
def test_every_command_has_a_section_and_every_section_a_command(source):
    text = committed() if source == "docs/cli.md" else render()
    found = sections(text)
    expected = {PROG} | {f"{PROG} {c.name}" for c in COMMANDS}
    expected |= {f"{PROG} sweep {name}" for name in sweeps.sweep.commands}
    assert len(expected) > len(COMMANDS) + 1  # the sweep subcommands are there to check
    missing = sorted(expected - set(found))
    assert not missing, f"{source}: no section for {missing}; regenerate with `{REGENERATE}`"
    unknown = [path for path in found if resolve(path) is None]
    assert not unknown, f"{source}: sections name commands that do not exist: {unknown}"
    assert len(found) == len(set(found)), f"{source}: a command has two sections"


def test_sections_hold_each_commands_help_with_its_full_usage_line():
    text = render()
    for path, _command, _ctx in commands():
        block = re.search(rf"^## {re.escape(path)}\n\n(`{{3,}})text\n(.*?)\n\1$", text, re.MULTILINE | re.DOTALL)
        assert block, f"no fenced help block under ## {path}"
        assert block.group(2).startswith(f"Usage: {path} "), block.group(2).splitlines()[0]
    assert "Usage: workbench sweep volume [OPTIONS] PROJECT" in text
    order = sections(text)
    top = [p for p in order if p.count(" ") == 1]
    assert top == sorted(top), "commands are in alphabetical order"
