"""The commands that open the terminal workbench: `open` and `demo` (which, without a terminal,
builds the demo and prints its evaluation). The only place the core imports the TUI, lazily."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from workbench.cli.access import print_eval
from workbench.cli.common import PROJECT_ARG, QUERIES_VERSION, err_console
from workbench.safe_text import markup_escaped


def demo_project_path() -> Path:
    """The demo's working copy (user data folder), refreshed from the bundled corpus."""
    from workbench.session import demo_project

    return demo_project()  # from the corpus this installation ships


@click.command()
@click.option("--no-tui", is_flag=True, help="Print the evaluation tables instead of opening the TUI.")
def demo(no_tui: bool) -> None:
    """Open the bundled sample project (its indexes build on first run, in the user's data folder)."""
    from workbench.progress import stage_progress
    from workbench.session import build, evaluate_all, open_session, stage_unit, use_table

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
@click.option("--collect", "collect_port", type=click.IntRange(0, 65535), default=None, metavar="PORT",
              help="Also receive production's traces here (as `workbench collect --port PORT`, on 127.0.0.1; 4318 is "
                   "OTLP/HTTP's): they show in the TUI as they are imported.")
@click.option("--collect-name", default="live", show_default=True, help="With --collect: the traces accumulate as run:NAME.")
@click.option("--feedback-key", default=None, metavar="KEY",
              help="With --collect: the span attribute holding the user's feedback (the list's `flagged`).")
def open_(root: Path, queries_version: str, collect_port: int | None, collect_name: str, feedback_key: str | None) -> None:
    """Open a project in the terminal workbench (TUI); ctrl+p "Queries: version …" switches versions.

    The TUI follows imports made while it is open (import-traces, collect): new production queries
    are counted in the header and marked * in the list."""
    from workbench.session import check_project

    check_project(root, queries_version)  # fail here, readably, on a bad project
    if collect_port is None:
        open_tui(root, queries_version=queries_version)
        return
    from workbench.session import start_collect

    live = start_collect(root, collect_name, port=collect_port, feedback_key=feedback_key)  # loopback only
    try:
        open_tui(root, queries_version=queries_version)
    finally:
        from workbench.cli.collect import status_line

        status = live.stop()  # drains: every complete trace received is imported before the exit
        err_console.print(markup_escaped(f"collected on {live.url}: {status_line(status)}", one_line=True),
                          highlight=False, soft_wrap=True)
