"""`workbench report`: the diagnosis report as Markdown, one self-contained HTML file, or JSON."""

from __future__ import annotations

from pathlib import Path

import click

from workbench.cli.common import PROJECT_ARG, QUERIES_OPT, QUERIES_VERSION, SEED_OPT, TIERS_OPT, err_console, load_selection
from workbench.safe_text import markup_escaped


@click.command("report")
@PROJECT_ARG
@click.option("--format", "fmt_", type=click.Choice(["md", "html", "json"]), default="md", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Output file (default: PROJECT/reports/diagnosis.<format>; `-` = stdout).")
@TIERS_OPT
@QUERIES_OPT
@click.option("--since", default=None, metavar="TIME",
              help="Only the production queries whose trace began since TIME (an ISO date or time, UTC unless it says: "
                   "2026-12-02, 2026-12-02T09:30Z; `today`; or a span back: 90m, 2h, 1d): what failed in production, and why.")
@SEED_OPT
@QUERIES_VERSION
def report_command(root: Path, fmt_: str, output: Path | None, tier_spec: str, queries: str, since: str | None, seed: int,
                   queries_version: str) -> None:
    """The diagnosis report: Markdown for PRs, one self-contained HTML file, or JSON with everything.

    It leads with access (which queries lose gold, at which level, to which near misses: no model
    needed) and adds use as answers are stored. With exactly one query (`--queries ID`) it is that
    query's own report: its rankings per tier, its near misses' word diffs, its answers. With
    --since, the report of a collection window (`import-traces`, `collect`)."""
    from workbench.session.reports import production_window, rendered_report, report_path, write_report

    if since is not None:
        window = production_window(root, since, queries, queries_version)
        err_console.print(f"{len(window.query_ids)} production quer{'y' if len(window.query_ids) == 1 else 'ies'} traced since {window.since}"
                          + (f" ({window.unknown_start} trace(s) imported before start times were kept: left out; "
                             "import them again to include them)" if window.unknown_start else ""), highlight=False)
        if not window.query_ids:
            err_console.print("nothing to report for that window: no report written", highlight=False)
            return
        queries = ",".join(window.query_ids)
    sel = load_selection(root, tier_spec, queries, queries_version)
    focus = "production" if since is not None else ""
    if output is not None and str(output) == "-":
        click.echo(rendered_report(sel, fmt_, seed, focus).decode(), nl=False)
        return
    path = write_report(sel, fmt_, output or report_path(root, sel.project, fmt_, sel.query_ids), seed, focus)
    err_console.print(f"wrote {markup_escaped(str(path))}", highlight=False)
