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
    from workbench.report import render, write_report
    from workbench.session.reading import diagnosis_report
    from workbench.session.reports import report_path

    if since is not None:
        queries = production_window(root, since, queries, queries_version)
        if not queries:
            return
    sel = load_selection(root, tier_spec, queries, queries_version)
    project, _, qids = sel
    report = diagnosis_report(sel, seed, focus="production" if since is not None else "")
    if output is not None and str(output) == "-":
        click.echo(render(report, fmt_).decode(), nl=False)
        return
    path = write_report(report, fmt_, output or report_path(root, project, fmt_, qids))
    err_console.print(f"wrote {markup_escaped(str(path))}", highlight=False)


def production_window(root: Path, since: str, queries: str, queries_version: str) -> str:
    """The --queries of a collection window ("" when nothing came: said, no report written)."""
    from datetime import datetime, timezone

    from workbench.project.load import load_project
    from workbench.session.production import production_since, since_ns

    project = load_project(root, queries_version)
    window = production_since(project, since_ns(since))
    asked = {q.strip() for q in queries.split(",") if q.strip()}
    chosen = [q for q in window.query_ids if not asked or q in asked]
    when = datetime.fromtimestamp(window.since_ns / 1e9, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    err_console.print(f"{len(chosen)} production quer{'y' if len(chosen) == 1 else 'ies'} traced since {when}"
                      + (f" ({window.unknown_start} trace(s) imported before start times were kept: left out; "
                         "import them again to include them)" if window.unknown_start else ""), highlight=False)
    if not chosen:
        err_console.print("nothing to report for that window: no report written", highlight=False)
    return ",".join(chosen)
