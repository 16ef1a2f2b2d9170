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
@SEED_OPT
@QUERIES_VERSION
def report_command(root: Path, fmt_: str, output: Path | None, tier_spec: str, queries: str, seed: int, queries_version: str) -> None:
    """The diagnosis report: Markdown for PRs, one self-contained HTML file, or JSON with everything.

    It leads with access (which queries lose gold, at which level, to which near misses: no model
    needed) and adds use as answers are stored. With exactly one query (`--queries ID`) it is that
    query's own report: its rankings per tier, its near misses' word diffs, its answers."""
    from workbench.report import render, write_report
    from workbench.session.reading import diagnosis_report
    from workbench.session.reports import report_path

    sel = load_selection(root, tier_spec, queries, queries_version)
    project, _, qids = sel
    report = diagnosis_report(sel, seed)
    if output is not None and str(output) == "-":
        click.echo(render(report, fmt_).decode(), nl=False)
        return
    path = write_report(report, fmt_, output or report_path(root, project, fmt_, qids))
    err_console.print(f"wrote {markup_escaped(str(path))}", highlight=False)
