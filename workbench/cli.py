"""The `workbench` command line. Headless: only `open` and `demo` import the TUI, lazily.

Commands call the application layer (workbench.session). Errors a user can cause are
WorkbenchError and are handled in one place, `WorkbenchGroup.invoke`: a readable message on
stderr and exit status 2 (bad input or state) or 1 (a failed external call), never a traceback.
A new command is a function plus one `main.add_command(...)` line at the end of this file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from workbench.display import fmt
from workbench.llm.report import UseTable
from workbench.retrievers import retriever_names
from workbench.errors import WorkbenchError
from workbench.llm.cli import run_command, serve_command
from workbench.sweeps.cli import sweep as sweep_group
from workbench.project import init_project, load_project

# Piped output gets a width that fits the tables instead of rich's 80-column fallback.
console = Console() if sys.stdout.isatty() else Console(width=120)
err_console = Console(stderr=True)

PROJECT_ARG = click.argument("project", type=click.Path(file_okay=False, path_type=Path))


def report_error(exc: WorkbenchError) -> None:
    err_console.print(f"[red]error:[/] {escape(exc.title)}", highlight=False)
    click.echo(str(exc), err=True)  # plain: file:line: field lines must not be wrapped or styled
    if exc.hint:
        err_console.print(f"[dim]{escape(exc.hint)}[/]", highlight=False)


class WorkbenchGroup(click.Group):
    """The one CLI handler of user-causable errors, around every subcommand."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except WorkbenchError as exc:
            report_error(exc)
            ctx.exit(exc.exit_code)


@click.group(cls=WorkbenchGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="nearmiss-workbench")
def main() -> None:
    """Nearmiss Workbench: is a wrong answer an evidence-access or an evidence-use failure?"""


@main.command()
@PROJECT_ARG
@click.option("--name", help="Project name (default: the folder's name).")
def init(project: Path, name: str | None) -> None:
    """Make an empty project folder."""
    init_project(project, name)
    console.print(f"initialised [bold]{project}[/]")


@main.command("import")
@PROJECT_ARG
@click.option("--documents", required=True, type=click.Path(exists=True, path_type=Path),
              help="Documents JSONL (or, with --format beir, the BEIR dataset folder).")
@click.option("--queries", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Queries JSONL.")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "beir"]), default="jsonl", show_default=True)
@click.option("--split", default="test", show_default=True, help="BEIR qrels split.")
def import_(project: Path, documents: Path, queries: Path | None, fmt: str, split: str) -> None:
    """Fill a project (creating it if absent) from documents and queries."""
    from workbench.importers import import_dataset
    from workbench.project import CONFIG_FILE

    if not (project / CONFIG_FILE).exists():
        init_project(project)
    n_docs, n_queries = import_dataset(project, documents, queries, fmt, split)
    console.print(f"imported {n_docs} documents and {n_queries} queries into [bold]{project}[/]")


def print_tiers(tierset, project) -> None:
    table = Table(title=f"Tiers of {project.config.name}; queries = all (single/multi-source)", title_justify="left")
    for col in ("tier", "budget", "docs", "tokens", "domains", "queries"):
        table.add_column(col, justify="left" if col in ("tier", "domains") else "right", no_wrap=True)
    for t in tierset.tiers:
        multi = sum(project.query(q).is_multi_source for q in t.query_ids)
        domains = t.domains[0] if len(t.domains) == 1 else f"{len(t.domains)} domains"
        table.add_row(t.name, f"{t.budget:,}", f"{len(t.doc_ids):,}", f"{t.tokens:,}", domains,
                      f"{len(t.query_ids)} ({len(t.query_ids) - multi}/{multi})")
    console.print(table)


@main.command()
@PROJECT_ARG
def ladder(project: Path) -> None:
    """Build the reference-corpus ladder (tiers) from the spec in workbench.toml."""
    from workbench.ladder import write_ladder

    p = load_project(project)
    print_tiers(write_ladder(p), p)


@main.command()
@PROJECT_ARG
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def tiers(project: Path, as_json: bool) -> None:
    """Print each tier's documents, tokens, domains and queries."""
    from workbench.ladder import load_tiers

    p = load_project(project)
    tierset = load_tiers(p)
    if as_json:
        click.echo(json.dumps([
            {"name": t.name, "kind": t.kind, "budget": t.budget, "docs": len(t.doc_ids), "tokens": t.tokens,
             "domains": t.domains, "queries": len(t.query_ids)} for t in tierset.tiers], indent=2))
    else:
        print_tiers(tierset, p)


def ensure_indexes(p, tiers, force: bool = False, kinds=("sparse", "dense")) -> dict:
    from workbench.progress import stage_progress
    from workbench.session import build_indexes

    with stage_progress(err_console, unit="docs") as progress:
        return build_indexes(p, tiers, kinds=kinds, force=force, progress=progress)


@main.command()
@PROJECT_ARG
@click.option("--force", is_flag=True, help="Rebuild even indexes that are current.")
@click.option("--only", type=click.Choice(["sparse", "dense"]), help="Build one kind of index only.")
def index(project: Path, force: bool, only: str | None) -> None:
    """Build the BM25 and dense indexes of every tier (building the ladder first if needed)."""
    from workbench.ladder import ensure_tiers

    p = load_project(project)
    tierset = ensure_tiers(p)
    done = ensure_indexes(p, tierset.tiers, force, (only,) if only else ("sparse", "dense"))
    console.print(f"built {len(done['built'])} index(es), {len(done['kept'])} already current")


def print_eval(results, k: int, use: UseTable | None) -> None:
    table = Table(title=f"Evidence access (K={k}); n = single/multi-source queries", title_justify="left")
    for c in ("tier", "system", "n", "R@1", f"SR@{k}", f"FR@{k}", "SR−FR", f"MRR@{k}", "nDCG@10"):
        table.add_column(c, justify="left" if c in ("tier", "system") else "right", no_wrap=c in ("tier", "system"))
    last_tier = None
    for r in results:
        s = r.summary
        if last_tier is not None and r.tier != last_tier:
            table.add_section()
        table.add_row(r.tier if r.tier != last_tier else "", r.system, f"{s.n_single}/{s.n_multi}", fmt(s.r_at_1),
                      fmt(s.sr_at_k), fmt(s.fr_at_k), fmt(s.multi_gap), fmt(s.mrr_at_k), fmt(s.ndcg_at_10))
        last_tier = r.tier
    console.print(table)
    if use:
        print_use(use)


def print_use(use: UseTable) -> None:
    table = Table(title="Evidence use (QA: median judge score 0–5; EM / contains: normalised match)", title_justify="left")
    cols = ("n", "EM", "contains", "refusals", "judge_failures", "p50_s", "p95_s")
    for c in ("tier", "system", "QA", *cols):
        table.add_column(c, justify="left" if c in ("tier", "system") else "right", no_wrap=c in ("tier", "system"))
    for tier, systems in use.rows.items():
        for system, row in systems.items():
            if not row.fits:
                table.add_row(escape(tier), escape(system), "does not fit", *([""] * (len(cols) - 1)))
            else:
                qa = fmt(row.QA, 2) + ("*" if row.distrusted else "")
                table.add_row(escape(tier), escape(system), qa, *(fmt(getattr(row, c), 2) for c in cols))
    console.print(table)
    for line in use.judges.values():
        console.print(line, highlight=False, markup=False)
    if any(r.distrusted for systems in use.rows.values() for r in systems.values()):
        console.print("* scored by a judge that failed its calibration: read EM / contains instead", highlight=False)


@main.command("eval")
@PROJECT_ARG
@click.option("--retrievers", default=",".join(retriever_names()), show_default=True,
              help=f"Comma list of: {', '.join(retriever_names())}.")
@click.option("--tiers", "tier_spec", default="all", show_default=True, help="`all`, or tier names / kinds, comma-separated.")
@click.option("--k", default=10, show_default=True, type=click.IntRange(1, 1000))
@click.option("--json", "as_json", is_flag=True, help="Print the stable JSON document instead of tables.")
@click.option("--no-models", is_flag=True, help="Leave stored model runs out.")
def eval_(project: Path, retrievers: str, tier_spec: str, k: int, as_json: bool, no_models: bool) -> None:
    """Access metrics (R@1, SR@K, FR@K, MRR@K, nDCG@10) per tier × system, plus stored model results."""
    from workbench.evaluate import results_json
    from workbench.progress import stage_progress
    from workbench.retrievers import RETRIEVERS
    from workbench.session import ensure_tiers, evaluate_access, select_tiers, use_table

    p = load_project(project)
    tiers = select_tiers(ensure_tiers(p), tier_spec)
    names = [n.strip() for n in retrievers.split(",") if n.strip()]
    known = [n for n in names if n in RETRIEVERS]  # unknown names are reported by evaluate_access
    ensure_indexes(p, tiers, kinds=tuple(sorted(frozenset().union(*(RETRIEVERS[n].index_kinds for n in known)))))
    with stage_progress(err_console, unit="queries") as progress:
        results = evaluate_access(p, tiers, names, k=k, include_models=not no_models, progress=progress)
    use = None if no_models else use_table(p, tiers)
    if as_json:
        click.echo(json.dumps(results_json(results, k, use), indent=1))
    else:
        print_eval(results, k, use)


@main.command("export-trec")
@PROJECT_ARG
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), help="Output folder (default PROJECT/trec).")
@click.option("--tiers", "tier_spec", default="all", show_default=True)
def export_trec(project: Path, out: Path | None, tier_spec: str) -> None:
    """Write TREC qrels and run files (for trec_eval, ranx, ir_measures) of every stored run."""
    from workbench.ladder import load_tiers, select_tiers
    from workbench.trec import export_trec as do_export

    p = load_project(project)
    written = do_export(p, select_tiers(load_tiers(p), tier_spec), out or project / "trec")
    for path in written:
        console.print(str(path))
    if len(written) <= 1:
        err_console.print("no stored runs yet: run `workbench eval` first")


def sample_corpus_path() -> Path:
    return Path(__file__).resolve().parent.parent / "sample_corpus"


@main.command()
@click.option("--no-tui", is_flag=True, help="Print the evaluation tables instead of opening the TUI.")
def demo(no_tui: bool) -> None:
    """Set up the bundled sample project (indexes, ladder) on first run, then open it."""
    from workbench.progress import stage_progress
    from workbench.session import build, evaluate_all, open_session, use_table

    root = sample_corpus_path()
    session, _ = open_session(root)
    with stage_progress(err_console, unit="docs") as progress:
        build(session, progress)
    if not no_tui and tui_available():
        open_tui(root)
        return
    with stage_progress(err_console, unit="queries") as progress:
        results = evaluate_all(session, progress)
    print_eval(results, 10, use_table(session.project, session.tiers))


def tui_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("screens.app") is not None and sys.stdout.isatty()


def open_tui(project: Path) -> None:
    from screens.app import run_app  # lazy: the core never imports the TUI at module level

    run_app(project)


@main.command("open")
@PROJECT_ARG
def open_(project: Path) -> None:
    """Open a project in the terminal workbench (TUI)."""
    load_project(project)  # fail here, readably, on a bad project
    open_tui(project)


# Commands defined in other modules: one line each.
main.add_command(run_command, "run")
main.add_command(serve_command, "serve")
main.add_command(sweep_group, "sweep")
