"""What every command shares: the two consoles, the project argument and the options many
commands take. Defined once here; every `workbench/cli/<section>.py` imports them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import click

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from workbench.session.selection import Selection
else:
    def Table(*args: Any, **kwargs: Any):
        """rich's Table, imported when a command prints one (not at start-up: `eval --json` prints none)."""
        from rich.table import Table as RichTable

        return RichTable(*args, **kwargs)


class _Deferred:
    """A rich Console made when first used: importing rich costs a command that prints nothing
    through it (`eval --json`, a repeat of which must start in well under a second) more than its work."""

    def __init__(self, make: Callable[[], Any]):
        self._make = make
        self._console: Any = None

    def _real(self) -> Any:
        if self._console is None:
            self._console = self._make()
        return self._console

    def __getattr__(self, name: str) -> Any:  # only for what the proxy itself lacks: the console's
        return getattr(self._real(), name)

    # special methods are looked up on the type, not through __getattr__ (rich's Live does `with console:`)
    def __enter__(self) -> Any:
        return self._real().__enter__()

    def __exit__(self, *exc: Any) -> Any:
        return self._real().__exit__(*exc)


def _console(stderr: bool = False, piped_width: int = 120) -> Any:
    from rich.console import Console

    # Piped output gets a width that fits the tables instead of rich's 80-column fallback.
    # emoji=False: ":skull:" in an ID, a title, a system name or an endpoint error stays as written
    if stderr:
        return Console(stderr=True, emoji=False)
    return Console(emoji=False) if sys.stdout.isatty() else Console(width=piped_width, emoji=False)


if TYPE_CHECKING:
    console: Console
    err_console: Console
    wide_console: Console
else:
    console = _Deferred(_console)
    err_console = _Deferred(lambda: _console(stderr=True))
    # For tables of many figure columns (`run`'s summary): wider still when piped.
    wide_console = _Deferred(lambda: _console(piped_width=200))

# The argument is shown as PROJECT; inside a command the folder is `root` and the loaded
# project `project`.
PROJECT_ARG = click.argument("root", metavar="PROJECT", type=click.Path(file_okay=False, path_type=Path))
EXISTING_PROJECT_ARG = click.argument("root", metavar="PROJECT", type=click.Path(exists=True, file_okay=False, path_type=Path))

# Every command that scores queries takes this (eval, run, diagnose, compare, report, open, …):
# load_project(root, queries_version) gives that version's queries on the original's tiers.
QUERIES_VERSION = click.option(
    "--queries-version", default="original", show_default=True, metavar="NAME",
    help="Query-set version to score (`workbench query-sets PROJECT` lists them); tiers are the original set's.",
)

TIERS_OPT = click.option("--tiers", "tier_spec", default="all", show_default=True, help="`all`, or tier names / kinds, comma-separated.")

QUERIES_OPT = click.option("--queries", default="", help="Comma-separated query ids (default: all).")

SEED_OPT = click.option("--seed", default=0, show_default=True, type=int, help="Seed of the bootstrap and the paired test.")


def version_caption(project) -> str:
    """Which query-set version the figures use, for every table title."""
    return f"queries: {project.queries_version} ({len(project.queries)})"


def split_ids(values: tuple[str, ...]) -> list[str]:
    """Repeatable, comma-separated values (`--gold 3 --gold 4,5`) as one list."""
    return [v.strip() for spec in values for v in spec.split(",") if v.strip()]


def load_selection(root: Path, tier_spec: str, queries: str, queries_version: str, rankings: bool = True,
                   systems: list[str] | None = None) -> Selection:
    """The project under the version, its tiers by --tiers, and the --queries ids (None = all),
    for the commands that read stored results (diagnose, compare, report, stealers, unjudged):
    workbench/session/selection.py decides them, and (``rankings``) computes the built-in
    retrievers' missing rankings first, with progress on stderr, or names the command to run."""
    from workbench.session.selection import needs_rankings, ready, select

    sel = select(root, tier_spec, queries, queries_version)
    if rankings and needs_rankings(sel, systems):
        from workbench.progress import stage_progress

        with stage_progress(err_console, unit="queries") as progress:
            done = ready(sel, progress, systems)
        if done:
            err_console.print(f"computed {len(done)} missing ranking(s) (no model needed)", highlight=False)
    return sel
