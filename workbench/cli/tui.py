"""The commands that open the terminal workbench: `open` and `demo` (which, without a terminal,
builds the demo and prints its evaluation). The only place the core imports the TUI, lazily."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from workbench.cli.access import print_eval
from workbench.cli.common import PROJECT_ARG, QUERIES_VERSION, err_console
from workbench.project.load import load_project
from workbench.safe_text import markup_escaped


def demo_project_path() -> Path:
    """The demo's working copy (user data folder), refreshed from the bundled corpus."""
    from workbench.project.demo import prepare_demo

    return prepare_demo()  # from the corpus this installation ships


@click.command()
@click.option("--no-tui", is_flag=True, help="Print the evaluation tables instead of opening the TUI.")
def demo(no_tui: bool) -> None:
    """Open the bundled sample project (its indexes build on first run, in the user's data folder)."""
    from workbench.progress import stage_progress
    from workbench.session import build, evaluate_all, open_session, use_table

    from workbench.access.indexing import stage_unit

    root = demo_project_path()
    if not no_tui and tui_available():
        # the TUI is usable at once and builds what is missing in the background, without asking
        open_tui(root, auto_build=True)
        return
    err_console.print(f"demo project: {markup_escaped(str(root))}", highlight=False, soft_wrap=True)
    session, _ = open_session(root)
    with stage_progress(err_console, unit=stage_unit) as progress:
        build(session, progress)
    k = session.k
    with stage_progress(err_console, unit="queries") as progress:
        results = evaluate_all(session, progress)
    print_eval(results, k, use_table(session.project, session.tiers))


def tui_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("screens.app") is not None and sys.stdout.isatty()


def open_tui(root: Path, auto_build: bool = False, queries_version: str | None = None) -> None:
    from screens.app import run_app  # lazy: the core never imports the TUI at module level

    run_app(root, auto_build=auto_build, queries_version=queries_version)


@click.command("open")
@PROJECT_ARG
@QUERIES_VERSION
def open_(root: Path, queries_version: str) -> None:
    """Open a project in the terminal workbench (TUI); ctrl+p "Queries: version …" switches versions."""
    load_project(root, queries_version)  # fail here, readably, on a bad project
    open_tui(root, queries_version=queries_version)
