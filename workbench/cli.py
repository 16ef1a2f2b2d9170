"""The `workbench` command line. Headless: only `open` and `demo` import the TUI, lazily.

Commands call the application layer (workbench.session). Errors a user can cause are
WorkbenchError and are handled in one place, `WorkbenchGroup.invoke`: a readable message on
stderr and exit status 2 (bad input or state) or 1 (a failed external call), never a traceback.
A new command is a function plus one `main.add_command(...)` line at the end of this file.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from workbench.display import fmt
from workbench.llm.report import UseTable
from workbench.retrievers import retriever_names
from workbench.errors import WorkbenchError
from workbench.collide_cli import COLLIDE_COMMANDS, QUERIES_VERSION
from workbench.diagnosis_cli import compare_command, diagnose_command, report_command
from workbench.llm.cli import run_command, serve_command
from workbench.sweeps.cli import sweep as sweep_group
from workbench.project import init_project, load_project
from workbench.safe_text import as_text, markup_escaped, visible

# Piped output gets a width that fits the tables instead of rich's 80-column fallback.
console = Console() if sys.stdout.isatty() else Console(width=120)
err_console = Console(stderr=True)

PROJECT_ARG = click.argument("project", type=click.Path(file_okay=False, path_type=Path))


def report_error(exc: WorkbenchError) -> None:
    err_console.print(f"[red]error:[/] {markup_escaped(exc.title)}", highlight=False)
    # plain: file:line: field lines must not be wrapped or styled; data in them shown as text
    click.echo(visible(str(exc)), err=True)
    if exc.hint:
        err_console.print(f"[dim]{markup_escaped(exc.hint)}[/]", highlight=False)


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
    _show_recoveries()


class _RecoveryNotice(logging.Handler):
    """Damaged derived state set aside and rebuilt: one warning line on stderr, never wrapped."""

    def emit(self, record: logging.LogRecord) -> None:
        err_console.print(f"[yellow]warning:[/] {markup_escaped(record.getMessage(), one_line=True)}",
                          highlight=False, soft_wrap=True)


def _show_recoveries() -> None:
    log = logging.getLogger("workbench.recovery")
    if not any(isinstance(h, _RecoveryNotice) for h in log.handlers):
        log.addHandler(_RecoveryNotice(level=logging.INFO))
        log.setLevel(logging.INFO)


@main.command()
@PROJECT_ARG
@click.option("--name", help="Project name (default: the folder's name).")
def init(project: Path, name: str | None) -> None:
    """Make an empty project folder."""
    init_project(project, name)
    console.print(f"initialised [bold]{markup_escaped(str(project))}[/]")


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

    n_docs, n_queries = import_dataset(project, documents, queries, fmt, split)
    console.print(f"imported {n_docs} documents and {n_queries} queries into [bold]{markup_escaped(str(project))}[/]")


def print_tiers(tierset, project) -> None:
    table = Table(title=f"Tiers of {markup_escaped(project.config.name)}; queries = all (single/multi-source)", title_justify="left")
    for col in ("tier", "budget", "docs", "tokens", "domains", "queries"):
        table.add_column(col, justify="left" if col in ("tier", "domains") else "right", no_wrap=True)
    for t in tierset.tiers:
        multi = sum(project.query(q).is_multi_source for q in t.query_ids)
        domains = t.domains[0] if len(t.domains) == 1 else f"{len(t.domains)} domains"
        table.add_row(as_text(t.name), f"{t.budget:,}", f"{len(t.doc_ids):,}", f"{t.tokens:,}", as_text(domains),
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
    from workbench.ladder import ensure_tiers

    p = load_project(project)
    tierset = ensure_tiers(p)
    if as_json:
        click.echo(json.dumps([
            {"name": t.name, "kind": t.kind, "budget": t.budget, "docs": len(t.doc_ids), "tokens": t.tokens,
             "domains": t.domains, "queries": len(t.query_ids)} for t in tierset.tiers], indent=2))
    else:
        print_tiers(tierset, p)


def ensure_indexes(p, tiers, force: bool = False, kinds=("sparse", "dense")) -> dict:
    from workbench.indexing import stage_unit
    from workbench.progress import stage_progress
    from workbench.session import build_indexes

    with stage_progress(err_console, unit=stage_unit) as progress:
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


def version_caption(p) -> str:
    """Which query-set version the figures use, for every table title."""
    return f"queries: {p.queries_version} ({len(p.queries)})"


def print_eval(results, k: int, use: UseTable | None, caption: str = "") -> None:
    title = f"Evidence access (K={k}); n = single/multi-source queries" + (f"; {caption}" if caption else "")
    table = Table(title=title, title_justify="left")
    for c in ("tier", "system", "n", "R@1", f"SR@{k}", f"FR@{k}", "SR−FR", f"MRR@{k}", "nDCG@10"):
        table.add_column(c, justify="left" if c in ("tier", "system") else "right", no_wrap=c in ("tier", "system"))
    last_tier = None
    for r in results:
        s = r.summary
        if last_tier is not None and r.tier != last_tier:
            table.add_section()
        table.add_row(as_text(r.tier if r.tier != last_tier else ""), as_text(r.system), f"{s.n_single}/{s.n_multi}", fmt(s.r_at_1),
                      fmt(s.sr_at_k), fmt(s.fr_at_k), fmt(s.multi_gap), fmt(s.mrr_at_k), fmt(s.ndcg_at_10))
        last_tier = r.tier
    console.print(table)
    unlabelled = {r.tier: r.n_unlabelled for r in results if r.n_unlabelled}
    if unlabelled:
        n = max(unlabelled.values())
        console.print(f"{n} unlabelled quer{'y' if n == 1 else 'ies'} (no gold) ranked but left out of these figures "
                      "(label in the TUI: `workbench open`)", highlight=False)
    if use:
        print_use(use)


def print_use(use: UseTable) -> None:
    table = Table(title="Evidence use (QA: median judge score 0–5; EM / contains: normalised match; F1: token F1)", title_justify="left")
    cols = ("n", "EM", "contains", "F1", "refusals", "judge_failures", "p50_s", "p95_s")
    for c in ("tier", "system", "QA", *cols):
        table.add_column(c, justify="left" if c in ("tier", "system") else "right", no_wrap=c in ("tier", "system"))
    for tier, systems in use.rows.items():
        for system, row in systems.items():
            if not row.fits:
                table.add_row(as_text(tier), as_text(system), "does not fit", *([""] * (len(cols) - 1)))
            else:
                qa = fmt(row.QA, 2) + ("*" if row.distrusted else "")
                table.add_row(as_text(tier), as_text(system), qa, *(fmt(getattr(row, c), 2) for c in cols))
    console.print(table)
    for line in use.judges.values():
        console.print(line, highlight=False, markup=False)
    if any(r.distrusted for systems in use.rows.values() for r in systems.values()):
        console.print("* scored by a judge that failed its calibration: read EM / contains / F1 instead", highlight=False)


@main.command("eval")
@PROJECT_ARG
@click.option("--retrievers", default=",".join(retriever_names()), show_default=True,
              help=f"Comma list of: {', '.join(retriever_names())}.")
@click.option("--tiers", "tier_spec", default="all", show_default=True, help="`all`, or tier names / kinds, comma-separated.")
@click.option("--k", type=click.IntRange(1, 1000), help="Cut-off K (default: `[retrievers] k` of workbench.toml, 10).")
@click.option("--json", "as_json", is_flag=True, help="Print the stable JSON document instead of tables.")
@click.option("--no-models", is_flag=True, help="Leave stored model runs out.")
@QUERIES_VERSION
def eval_(project: Path, retrievers: str, tier_spec: str, k: int | None, as_json: bool, no_models: bool, queries_version: str) -> None:
    """Access metrics (R@1, SR@K, FR@K, MRR@K, nDCG@10) per tier × system, plus stored model results."""
    from workbench.evaluate import results_json
    from workbench.progress import stage_progress
    from workbench.retrievers import RETRIEVERS
    from workbench.session import ensure_tiers, evaluate_access, select_tiers, use_table

    p = load_project(project, queries_version)
    k = k or p.config.retrievers.k
    tiers = select_tiers(ensure_tiers(p), tier_spec)
    names = [n.strip() for n in retrievers.split(",") if n.strip()]
    known = [n for n in names if n in RETRIEVERS]  # unknown names are reported by evaluate_access
    ensure_indexes(p, tiers, kinds=tuple(sorted(frozenset().union(*(RETRIEVERS[n].index_kinds for n in known)))))
    with stage_progress(err_console, unit="queries") as progress:
        results = evaluate_access(p, tiers, names, k=k, include_models=not no_models, progress=progress)
    use = None if no_models else use_table(p, tiers)
    if as_json:
        click.echo(json.dumps(results_json(results, k, use, p.queries_version), indent=1))
    else:
        print_eval(results, k, use, version_caption(p))


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
        console.print(as_text(str(path)))
    if len(written) <= 1:
        err_console.print("no stored runs yet: run `workbench eval` first")


def sample_corpus_path() -> Path:
    from workbench.demo_project import bundled_corpus

    return bundled_corpus()


def demo_project_path() -> Path:
    """The demo's working copy (user data folder), refreshed from the bundled corpus."""
    from workbench.demo_project import prepare_demo

    return prepare_demo(sample_corpus_path())


@main.command()
@click.option("--no-tui", is_flag=True, help="Print the evaluation tables instead of opening the TUI.")
def demo(no_tui: bool) -> None:
    """Open the bundled sample project (its indexes build on first run, in the user's data folder)."""
    from workbench.progress import stage_progress
    from workbench.session import build, evaluate_all, open_session, use_table

    from workbench.indexing import stage_unit

    root = demo_project_path()
    if not no_tui and tui_available():
        # the TUI is usable at once and builds what is missing in the background, without asking
        open_tui(root, auto_build=True)
        return
    err_console.print(f"demo project: {markup_escaped(str(root))}", highlight=False, soft_wrap=True)
    session, _ = open_session(root)
    with stage_progress(err_console, unit=stage_unit) as progress:
        build(session, progress)
    k = session.project.config.retrievers.k
    with stage_progress(err_console, unit="queries") as progress:
        results = evaluate_all(session, progress)
    print_eval(results, k, use_table(session.project, session.tiers))


def tui_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("screens.app") is not None and sys.stdout.isatty()


def open_tui(project: Path, auto_build: bool = False, queries_version: str | None = None) -> None:
    from screens.app import run_app  # lazy: the core never imports the TUI at module level

    run_app(project, auto_build=auto_build, queries_version=queries_version)


@main.command("open")
@PROJECT_ARG
@QUERIES_VERSION
def open_(project: Path, queries_version: str) -> None:
    """Open a project in the terminal workbench (TUI); ctrl+p "Queries: version …" switches versions."""
    load_project(project, queries_version)  # fail here, readably, on a bad project
    open_tui(project, queries_version=queries_version)


# Commands defined in other modules: one line each.
main.add_command(run_command, "run")
main.add_command(serve_command, "serve")
for command in COLLIDE_COMMANDS: main.add_command(command)  # noqa: E701  collide, collide-score, query-sets, export-eval-set
from workbench import cli_production  # noqa: E402,F401  (registers import-run, import-answers, add-query, export-labels)
main.add_command(diagnose_command, "diagnose")
main.add_command(report_command, "report")
main.add_command(compare_command, "compare")
main.add_command(sweep_group, "sweep")
