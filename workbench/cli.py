"""The `workbench` command line. Headless: only `open` and `demo` import the TUI, lazily."""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from workbench.display import fmt
from workbench.project import ProjectError, init_project, load_project

# Piped output gets a width that fits the tables instead of rich's 80-column fallback.
console = Console() if sys.stdout.isatty() else Console(width=120)
err_console = Console(stderr=True)

PROJECT_ARG = click.argument("project", type=click.Path(file_okay=False, path_type=Path))


def friendly_errors(fn):
    """Bad input → a readable message on stderr and exit status 2, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        from workbench.indexing import StaleIndexError
        from workbench.ladder import StaleTiersError

        try:
            return fn(*args, **kwargs)
        except ProjectError as exc:
            err_console.print(f"[red]error:[/] {len(exc.problems)} problem(s); nothing was written")
            click.echo(str(exc), err=True)  # plain: file:line: field lines must not be wrapped
            sys.exit(2)
        except (StaleIndexError, StaleTiersError, ValueError, FileNotFoundError) as exc:
            err_console.print(f"[red]error:[/] {exc}", highlight=False)
            sys.exit(2)

    return wrapper


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="nearmiss-workbench")
def main() -> None:
    """Nearmiss Workbench: is a wrong answer an evidence-access or an evidence-use failure?"""


@main.command()
@PROJECT_ARG
@click.option("--name", help="Project name (default: the folder's name).")
@friendly_errors
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
@friendly_errors
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
@friendly_errors
def ladder(project: Path) -> None:
    """Build the reference-corpus ladder (tiers) from the spec in workbench.toml."""
    from workbench.ladder import write_ladder

    p = load_project(project)
    print_tiers(write_ladder(p), p)


@main.command()
@PROJECT_ARG
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@friendly_errors
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
    from workbench.indexing import build_indexes
    from workbench.progress import stage_progress

    with stage_progress(err_console, unit="docs") as progress:
        return build_indexes(p, tiers, kinds=kinds, force=force, progress=progress)


@main.command()
@PROJECT_ARG
@click.option("--force", is_flag=True, help="Rebuild even indexes that are current.")
@click.option("--only", type=click.Choice(["sparse", "dense"]), help="Build one kind of index only.")
@friendly_errors
def index(project: Path, force: bool, only: str | None) -> None:
    """Build the BM25 and dense indexes of every tier (building the ladder first if needed)."""
    from workbench.ladder import ensure_tiers

    p = load_project(project)
    tierset = ensure_tiers(p)
    done = ensure_indexes(p, tierset.tiers, force, (only,) if only else ("sparse", "dense"))
    console.print(f"built {len(done['built'])} index(es), {len(done['kept'])} already current")


def print_eval(results, k: int, use: dict | None) -> None:
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


def print_use(use: dict) -> None:
    table = Table(title="Evidence use (QA: median judge score 0–5; EM / contains: normalised match)", title_justify="left")
    cols = ("QA", "n", "EM", "contains", "refusals", "judge_failures", "p50_s", "p95_s")
    for c in ("tier", "system", *cols):
        table.add_column(c, justify="left" if c in ("tier", "system") else "right", no_wrap=c in ("tier", "system"))
    for tier, systems in use["rows"].items():
        for system, row in systems.items():
            if row.get("fits") is False:
                table.add_row(tier, system, "does not fit", *([""] * (len(cols) - 1)))
            else:
                qa = fmt(row.get("QA"), 2) + ("*" if row.get("judge_ok") is False else "")
                table.add_row(tier, system, qa, *(fmt(row.get(c), 2) for c in cols[1:]))
    console.print(table)
    for line in use["judges"].values():
        console.print(line, highlight=False)
    if any(r.get("judge_ok") is False for systems in use["rows"].values() for r in systems.values()):
        console.print("* scored by a judge that failed its calibration: read EM / contains instead", highlight=False)


def load_use(p, tiers) -> dict | None:
    """Use-side rows for these tiers and a verdict on each judge behind them (None: no model runs)."""
    from workbench.llm.report import judge_verdicts, use_rows

    rows = use_rows(p, tiers)
    if not rows:
        return None
    judges = {r["judge"] for systems in rows.values() for r in systems.values() if r.get("judge")}
    return {"rows": rows, "judges": judge_verdicts(p, judges)}


@main.command("eval")
@PROJECT_ARG
@click.option("--retrievers", default="bm25,dense,hybrid", show_default=True, help="Comma list: bm25, dense, hybrid.")
@click.option("--tiers", "tier_spec", default="all", show_default=True, help="`all`, or tier names / kinds, comma-separated.")
@click.option("--k", default=10, show_default=True, type=click.IntRange(1, 1000))
@click.option("--json", "as_json", is_flag=True, help="Print the stable JSON document instead of tables.")
@click.option("--no-models", is_flag=True, help="Leave stored model runs out.")
@friendly_errors
def eval_(project: Path, retrievers: str, tier_spec: str, k: int, as_json: bool, no_models: bool) -> None:
    """Access metrics (R@1, SR@K, FR@K, MRR@K, nDCG@10) per tier × system, plus stored model results."""
    from workbench.evaluate import evaluate, results_json
    from workbench.ladder import ensure_tiers, select_tiers
    from workbench.progress import stage_progress
    from workbench.retrievers import make_retrievers

    p = load_project(project)
    tiers = select_tiers(ensure_tiers(p), tier_spec)
    names = [n.strip() for n in retrievers.split(",") if n.strip()]
    systems = make_retrievers(p, names)
    ensure_indexes(p, tiers, kinds=tuple(sorted(frozenset().union(*(s.index_kinds for s in systems.values())))))
    with stage_progress(err_console, unit="queries") as progress:
        results = evaluate(p, tiers, systems, k=k, include_models=not no_models, progress=progress)
    use = None if no_models else load_use(p, tiers)
    if as_json:
        click.echo(json.dumps(results_json(results, k, use), indent=1))
    else:
        print_eval(results, k, use)


@main.command("export-trec")
@PROJECT_ARG
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), help="Output folder (default PROJECT/trec).")
@click.option("--tiers", "tier_spec", default="all", show_default=True)
@friendly_errors
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
@friendly_errors
def demo(no_tui: bool) -> None:
    """Set up the bundled sample project (indexes, ladder) on first run, then open it."""
    from workbench.evaluate import evaluate
    from workbench.ladder import ensure_tiers
    from workbench.progress import stage_progress
    from workbench.retrievers import make_retrievers

    root = sample_corpus_path()
    p = load_project(root)
    tiers = ensure_tiers(p).tiers
    ensure_indexes(p, tiers)
    if not no_tui and tui_available():
        open_tui(root)
        return
    systems = make_retrievers(p, ["bm25", "dense", "hybrid"])
    with stage_progress(err_console, unit="queries") as progress:
        results = evaluate(p, tiers, systems, progress=progress)
    print_eval(results, 10, load_use(p, tiers))


def tui_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("screens.app") is not None and sys.stdout.isatty()


def open_tui(project: Path) -> None:
    from screens.app import run_app  # lazy: the core never imports the TUI at module level

    run_app(project)


@main.command("open")
@PROJECT_ARG
@friendly_errors
def open_(project: Path) -> None:
    """Open a project in the terminal workbench (TUI)."""
    load_project(project)  # fail here, readably, on a bad project
    open_tui(project)


def _register_model_commands() -> None:
    try:
        from workbench.llm.cli import run_command, serve_command
    except ImportError:
        return
    main.add_command(run_command, "run")
    main.add_command(serve_command, "serve")


_register_model_commands()

from workbench.sweeps.cli import sweep as _sweep_group  # noqa: E402 - registered last: the sweep commands
main.add_command(_sweep_group)
