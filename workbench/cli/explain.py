"""`workbench explain`: why documents rank where they do for a query — BM25 per query term (from
Tantivy's explanation), the dense side's best chunk, the fusion's parts, and what separates each
document from the first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click
import msgspec

from workbench.cli.common import PROJECT_ARG, QUERIES_VERSION, Table, console, load_selection
from workbench.display import MISSING
from workbench.safe_text import as_text, markup_escaped

if TYPE_CHECKING:
    from workbench.session import DocExplain, Explanation


@click.command("explain")
@PROJECT_ARG
@click.argument("query_id", metavar="QUERY")
@click.argument("doc_ids", metavar="DOC [DOC…]", nargs=-1, required=True)
@click.option("--tier", "tier", default=None, metavar="TIER",
              help="The tier to explain on (default: the largest holding the query and every DOC).")
@click.option("--system", default=None, metavar="SYSTEM", help="Whose rank leads (default: hybrid when stored).")
@click.option("--json", "as_json", is_flag=True, help="The explanation as JSON.")
@QUERIES_VERSION
def explain_command(root: Path, query_id: str, doc_ids: tuple[str, ...], tier: str | None, system: str | None, as_json: bool,
                    queries_version: str) -> None:
    """Why DOC ranks where it does for QUERY: BM25 per query term (idf, tf, length norm, share), the dense best chunk and its
    cosine, the fusion's parts (each retriever's rank and RRF share), and what separates each DOC from the first. A DOC is
    a document's source id (its ID in the imported data, as `add-query --gold` takes) or its DocID."""
    from workbench.session import explained, named_doc_ids

    ids = named_doc_ids(root, list(doc_ids), queries_version)  # before any ranking is computed
    sel = load_selection(root, tier or "all", query_id, queries_version)
    e = explained(sel, query_id, ids, system)
    if as_json:
        click.echo(json.dumps(msgspec.to_builtins(e), indent=1))
        return
    print_explanation(e)


def _num(x: float | None, digits: int = 4) -> str:
    return MISSING if x is None else f"{x:.{digits}f}"


def print_explanation(e: "Explanation") -> None:
    console.print(f"[bold]{markup_escaped(e.query_id)}[/] on {markup_escaped(e.tier)}: {markup_escaped(e.query)}", highlight=False)
    console.print(f"query terms (BM25 ORs them): {markup_escaped(', '.join(e.terms))}", highlight=False)
    for d in e.docs:
        print_doc(d, e.system)
    for c in e.contrasts:
        console.print(f"[bold]{c.doc_id} vs {c.against}[/]: {markup_escaped(c.line)}", highlight=False)


def print_doc(d: "DocExplain", system: str) -> None:
    ranks = ", ".join(f"{s} #{r}" if r else f"{s} –" for s, r in d.ranks.items())
    console.print(f"\n[bold]{d.doc_id}[/] ({d.role}) {markup_escaped(d.title)} — {markup_escaped(ranks)}", highlight=False)
    if d.bm25 is not None:
        t = Table(title=f"BM25 {_num(d.bm25.score)} (stored {_num(d.bm25.stored)})", title_justify="left")
        for c in ("term", "idf", "n / N", "tf", "doc len / avg", "tf norm", "share"):
            t.add_column(c, justify="left" if c == "term" else "right", no_wrap=True)
        for x in d.bm25.terms:
            t.add_row(as_text(x.term), f"{x.idf:.3f}", f"{x.doc_freq} / {x.num_docs}", f"{x.tf:g}", f"{x.doc_len:g} / {x.avg_len:.1f}",
                      f"{x.tf_norm:.3f}", f"{x.score:.4f}")
        console.print(t)
        if d.bm25.unmatched:
            console.print(f"  lacks: {markup_escaped(', '.join(d.bm25.unmatched))}", highlight=False)
    if d.dense is not None:
        console.print(f"  dense: best chunk {d.dense.best_chunk + 1} of {d.dense.chunks}, cosine {_num(d.dense.score, 6)} "
                      f"(stored {_num(d.dense.stored, 6)}): {markup_escaped(d.dense.chunk_text[:160])}", highlight=False)
    if d.fusion is not None:
        parts = " + ".join(f"{p.retriever} " + (f"#{p.rank} → {p.share:.5f}" if p.rank else "– → 0") for p in d.fusion.parts)
        console.print(f"  {d.fusion.system} (RRF, k={d.fusion.rrf_k}): {parts} = {d.fusion.score:.5f} "
                      f"(stored {_num(d.fusion.stored, 5)}, #{d.fusion.rank or '–'})", highlight=False)
