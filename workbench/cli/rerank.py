"""`rerank`: re-score the top documents of a ranking system with a `[rerankers.NAME]` and store the
result as the system `<base>>rerank:<NAME>@<depth>`, which eval, compare, diagnose, report,
export-trec and the TUI then list like any other."""

from __future__ import annotations

from pathlib import Path

import click

from workbench.cli.common import PROJECT_ARG, TIERS_OPT, console, err_console


@click.command("rerank")
@PROJECT_ARG
@click.argument("systems", nargs=-1, required=True, metavar="SYSTEM...")
@TIERS_OPT
@click.option("--k", type=click.IntRange(1, 1000), help="Cut-off K of the figures (default: `[retrievers] k`); depth must reach it.")
def rerank_command(root: Path, systems: tuple[str, ...], tier_spec: str, k: int | None) -> None:
    """Rerank systems named BASE>rerank:NAME@DEPTH (e.g. hybrid>rerank:ce@50) on every selected tier.

    Scores are cached by (reranker, query, document content): a bigger tier reuses a smaller one's,
    and an interrupted rerank resumes where it stopped."""
    from workbench.cli.access import print_eval
    from workbench.cli.project import ensure_indexes
    from workbench.progress import stage_progress
    from workbench.session import fix_selection, rerank

    project, tiers, _ = fix_selection(root, tier_spec)
    ensure_indexes(project, tiers)
    with stage_progress(err_console, unit="queries") as progress:
        done = rerank(project, tiers, list(systems), k, progress)
    print_eval(done.results, done.k, None)
    stats = done.stats
    console.print(f"{stats.scored} pairs scored, {stats.cached} from the score cache; "
                  f"{stats.reused_runs} stored run(s) were current", highlight=False)
