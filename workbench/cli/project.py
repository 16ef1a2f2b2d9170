"""Project commands: `init`, `import`, `ladder`, `tiers`, `index`, `query-sets`."""

from __future__ import annotations

import json
from pathlib import Path

import click

from workbench.cli.common import PROJECT_ARG, console, err_console, Table
from workbench.safe_text import as_text, markup_escaped, visible


@click.command()
@PROJECT_ARG
@click.option("--name", help="Project name (default: the folder's name).")
def init(root: Path, name: str | None) -> None:
    """Make an empty project folder."""
    from workbench.session import init_project

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
    """Fill a project (creating it if absent) from documents and queries. Into a project that has
    some already, it adds the input's new documents and queries and keeps every record the project
    holds (queries added in the workbench, edited answers, labels and their query-set versions)."""
    from workbench.session import import_into_project

    r = import_into_project(root, documents, queries, fmt, split)
    where = f"[bold]{markup_escaped(str(root))}[/]"
    if r.documents_total == r.documents_added and r.queries_total == r.queries_added:  # a new or empty project
        console.print(f"imported {r.documents_added} documents and {r.queries_added} queries into {where}")
        return
    console.print(f"added {r.documents_added} documents and {r.queries_added} queries to {where} "
                  f"(now {r.documents_total} documents, {r.queries_total} queries); every record it had is kept")
    for line in import_notes(r):
        err_console.print(markup_escaped(line), highlight=False, soft_wrap=True)


def _ids(ids: list[str], shown: int = 5) -> str:
    more = f", … ({len(ids) - shown} more)" if len(ids) > shown else ""
    return ", ".join(visible(i, one_line=True) for i in ids[:shown]) + more


def import_notes(r) -> list[str]:
    """What a merging import left as the project had it, one line each."""
    out = []
    if r.queries_only_in_project:
        out.append(f"kept {len(r.queries_only_in_project)} quer{'y' if len(r.queries_only_in_project) == 1 else 'ies'} the "
                   f"input does not have (added in the workbench or by an earlier import): {_ids(r.queries_only_in_project)}")
    for ids, noun in ((r.queries_differ, "query" if len(r.queries_differ) == 1 else "queries"),
                      (r.documents_differ, "document" if len(r.documents_differ) == 1 else "documents")):
        if ids:
            out.append(f"note: {len(ids)} {noun} of the input {'differs' if len(ids) == 1 else 'differ'} from the project's "
                       "of the same id; the project's kept "
                       f"(an answer edited in the workbench stays; labels live in query-set versions): {_ids(ids)}. "
                       "To take the input's as they are, import it into a new project folder.")
    return out


def print_tiers(table) -> None:
    shown = Table(title=f"Tiers of {markup_escaped(table.project)}; queries = all (single/multi-source)", title_justify="left")
    for col in ("tier", "budget", "docs", "tokens", "domains", "queries"):
        shown.add_column(col, justify="left" if col in ("tier", "domains") else "right", no_wrap=True)
    for t in table.tiers:
        multi = t.multi_source_queries
        domains = t.domains[0] if len(t.domains) == 1 else f"{len(t.domains)} domains"
        shown.add_row(as_text(t.name), f"{t.budget:,}", f"{t.docs:,}", f"{t.tokens:,}", as_text(domains),
                      f"{t.queries} ({t.queries - multi}/{multi})")
    console.print(shown)


@click.command()
@PROJECT_ARG
def ladder(root: Path) -> None:
    """Build the reference-corpus ladder (tiers) from the spec in workbench.toml."""
    from workbench.session import build_ladder

    print_tiers(build_ladder(root))


@click.command()
@PROJECT_ARG
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def tiers(root: Path, as_json: bool) -> None:
    """Print each tier's documents, tokens, domains and queries."""
    from workbench.session import tier_table

    table = tier_table(root)
    if as_json:
        click.echo(json.dumps([
            {"name": t.name, "kind": t.kind, "budget": t.budget, "docs": t.docs, "tokens": t.tokens,
             "domains": t.domains, "queries": t.queries} for t in table.tiers], indent=2))
    else:
        print_tiers(table)


def ensure_indexes(project, tiers, force: bool = False, kinds=("sparse", "dense")) -> dict:
    """Build the tiers' missing indexes with progress on stderr ({"built": [...], "kept": [...]})."""
    from workbench.progress import stage_progress
    from workbench.session import index_tiers, stage_unit

    with stage_progress(err_console, unit=stage_unit) as progress:
        done = index_tiers(project, tiers, kinds=tuple(kinds), force=force, progress=progress)
    return {"built": done.built, "kept": done.kept}


@click.command()
@PROJECT_ARG
@click.option("--force", is_flag=True, help="Rebuild even indexes that are current.")
@click.option("--only", type=click.Choice(["sparse", "dense"]), help="Build one kind of index only.")
def index(root: Path, force: bool, only: str | None) -> None:
    """Build the BM25 and dense indexes of every tier (building the ladder first if needed)."""
    from workbench.progress import stage_progress
    from workbench.session import index_project, stage_unit

    with stage_progress(err_console, unit=stage_unit) as progress:
        done = index_project(root, kinds=(only,) if only else ("sparse", "dense"), force=force, progress=progress)
    console.print(f"built {len(done.built)} index(es), {len(done.kept)} already current")


@click.command("query-sets")
@PROJECT_ARG
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def query_sets_command(root: Path, as_json: bool) -> None:
    """List the project's query-set versions (original first) with their parent and provenance."""
    from workbench.session import query_sets

    versions = query_sets(root)
    if as_json:
        import msgspec

        click.echo(json.dumps([{**msgspec.to_builtins(v.info), "changed": v.changed} for v in versions], indent=1))
        return
    table = Table(title=as_text(f"Query-set versions of {root}", one_line=True), title_justify="left")
    for col in ("version", "parent", "queries", "excluded", "made by", "created", "last changed", "description"):
        table.add_column(col, justify="right" if col in ("queries", "excluded") else "left", no_wrap=col != "description")
    for shown in versions:
        v = shown.info
        # the original's creation is not recorded (queries.jsonl's time is its last write): "–", not a wrong time
        table.add_row(*(as_text(x, one_line=True) for x in (v.name, v.parent, str(v.n_queries), str(len(v.excluded)),
                                                             v.made_by, v.created or "–", shown.changed, v.description)))
    console.print(table)
