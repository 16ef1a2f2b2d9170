"""Project commands: `init`, `import`, `ladder`, `tiers`, `index`, `query-sets`."""

from __future__ import annotations

import json
from pathlib import Path

import click

from workbench.cli.common import PROJECT_ARG, console, err_console, Table
from workbench.project.files import init_project
from workbench.project.load import load_project
from workbench.safe_text import as_text, markup_escaped


@click.command()
@PROJECT_ARG
@click.option("--name", help="Project name (default: the folder's name).")
def init(root: Path, name: str | None) -> None:
    """Make an empty project folder."""
    init_project(root, name)
    console.print(f"initialised [bold]{markup_escaped(str(root))}[/]")


@click.command("import")
@PROJECT_ARG
@click.option("--documents", required=True, type=click.Path(exists=True, path_type=Path),
              help="Documents JSONL (or, with --format beir, the BEIR dataset folder).")
@click.option("--queries", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Queries JSONL.")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "beir"]), default="jsonl", show_default=True)
@click.option("--split", default="test", show_default=True, help="BEIR qrels split.")
def import_(root: Path, documents: Path, queries: Path | None, fmt: str, split: str) -> None:
    """Fill a project (creating it if absent) from documents and queries."""
    from workbench.project.importers import import_dataset

    n_docs, n_queries = import_dataset(root, documents, queries, fmt, split)
    console.print(f"imported {n_docs} documents and {n_queries} queries into [bold]{markup_escaped(str(root))}[/]")


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


@click.command()
@PROJECT_ARG
def ladder(root: Path) -> None:
    """Build the reference-corpus ladder (tiers) from the spec in workbench.toml."""
    from workbench.access.ladder import write_ladder

    project = load_project(root)
    print_tiers(write_ladder(project), project)


@click.command()
@PROJECT_ARG
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def tiers(root: Path, as_json: bool) -> None:
    """Print each tier's documents, tokens, domains and queries."""
    from workbench.access.ladder import ensure_tiers

    project = load_project(root)
    tierset = ensure_tiers(project)
    if as_json:
        click.echo(json.dumps([
            {"name": t.name, "kind": t.kind, "budget": t.budget, "docs": len(t.doc_ids), "tokens": t.tokens,
             "domains": t.domains, "queries": len(t.query_ids)} for t in tierset.tiers], indent=2))
    else:
        print_tiers(tierset, project)


def ensure_indexes(project, tiers, force: bool = False, kinds=("sparse", "dense")) -> dict:
    from workbench.access.indexing import stage_unit
    from workbench.progress import stage_progress
    from workbench.access.indexing import build_indexes

    with stage_progress(err_console, unit=stage_unit) as progress:
        return build_indexes(project, tiers, kinds=kinds, force=force, progress=progress)


@click.command()
@PROJECT_ARG
@click.option("--force", is_flag=True, help="Rebuild even indexes that are current.")
@click.option("--only", type=click.Choice(["sparse", "dense"]), help="Build one kind of index only.")
def index(root: Path, force: bool, only: str | None) -> None:
    """Build the BM25 and dense indexes of every tier (building the ladder first if needed)."""
    from workbench.access.ladder import ensure_tiers

    project = load_project(root)
    tierset = ensure_tiers(project)
    done = ensure_indexes(project, tierset.tiers, force, (only,) if only else ("sparse", "dense"))
    console.print(f"built {len(done['built'])} index(es), {len(done['kept'])} already current")


@click.command("query-sets")
@PROJECT_ARG
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def query_sets_command(root: Path, as_json: bool) -> None:
    """List the project's query-set versions (original first) with their parent and provenance."""
    from workbench.project.files import load_config
    from workbench.project.versions import list_versions

    load_config(root)  # a readable error if this is not a project
    versions = list_versions(root)
    if as_json:
        import msgspec

        click.echo(json.dumps(msgspec.to_builtins(versions), indent=1))
        return
    table = Table(title=as_text(f"Query-set versions of {root}", one_line=True), title_justify="left")
    for col in ("version", "parent", "queries", "excluded", "made by", "created", "description"):
        table.add_column(col, justify="right" if col in ("queries", "excluded") else "left", no_wrap=col != "description")
    for v in versions:
        table.add_row(*(as_text(x, one_line=True) for x in (v.name, v.parent, str(v.n_queries), str(len(v.excluded)),
                                                             v.made_by, v.created, v.description)))
    console.print(table)
