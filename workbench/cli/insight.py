"""The sharper diagnosis' commands: `stealers` (who takes the gold's place), `unjudged` (what nobody
labelled in the top K, and what of it carries the answer) and `positions` (long-context recall and
correctness by the gold's depth); and the effective-size table `eval` and `diagnose` print."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click
import msgspec

from workbench.cli.common import PROJECT_ARG, QUERIES_OPT, QUERIES_VERSION, TIERS_OPT, console, load_selection, Table
from workbench.display import MISSING, fmt
from workbench.safe_text import as_text, markup_escaped

if TYPE_CHECKING:
    from workbench.session import DiagnosisView, EffectiveSize

K_OPT = click.option("--k", type=click.IntRange(1, 1000), default=None, help="Cut-off K (default: `[retrievers] k`).")
JSON_OPT = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")


def _json(value) -> None:
    click.echo(json.dumps(msgspec.to_builtins(value), indent=1))


def print_effective_sizes(sizes: "list[EffectiveSize]") -> None:
    """Per system and metric: up to which level it keeps `[insight] keep` of its smallest level's figure."""
    if not sizes:
        return
    keep = sizes[0].keep
    table = Table(title=f"Effective corpus size: the largest level keeping ≥ {keep:.0%} of the smallest level's figure "
                        "(ratio [95% bootstrap interval])", title_justify="left")
    for c in ("system", "metric", "smallest level", "keeps it up to", "falls below at"):
        table.add_column(c, no_wrap=c in ("system", "metric"))
    for e in sizes:
        fell = next((x for x in e.levels if x.level == e.falls_at), None)
        table.add_row(as_text(e.system), e.metric, f"{fmt(e.base_value)} at {as_text(e.base_level)} (n={e.base_n})",
                      as_text(f"{e.effective_level} ({e.effective_tokens:,} tokens)") if e.effective_level else MISSING,
                      as_text(f"{fell.level}: {fmt(fell.ratio.mean, 2)} [{fmt(fell.ratio.low, 2)}, {fmt(fell.ratio.high, 2)}] n={fell.ratio.n}")
                      if fell else "never")
    console.print(table)


def print_distractor_split(view: "DiagnosisView") -> None:
    """USE-UNDER-DISTRACTORS per system: interference (D2), volume (D3), not split yet (D1)."""
    for d in view.distractors:
        parts = [f"{cause} {n} ({row})" for cause, n, row in d.causes]
        console.print(f"[bold]{markup_escaped(d.system)}[/]: USE-UNDER-DISTRACTORS {d.total} = " + ", ".join(parts)
                      + f", not split yet {d.not_split} (D1: no near-miss answer; "
                      f"`{markup_escaped(d.command)}`)", highlight=False)


def print_insight(view: "DiagnosisView") -> None:
    """What `diagnose` adds: the effective sizes, then the near-miss split per system."""
    print_effective_sizes(view.effective_sizes)
    print_distractor_split(view)


@click.command("stealers")
@PROJECT_ARG
@TIERS_OPT
@QUERIES_OPT
@K_OPT
@click.option("--limit", type=click.IntRange(1, 1000), default=5, show_default=True, help="Stealers listed.")
@click.option("--query", "one_query", default=None, help="Every steal of this one query instead (system, tier, ranks, gap).")
@JSON_OPT
@QUERIES_VERSION
def stealers_command(root: Path, tier_spec: str, queries: str, k: int | None, limit: int, one_query: str | None,
                     as_json: bool, queries_version: str) -> None:
    """The documents ranked above an outranked gold document, most frequent first, with their diff against it."""
    from workbench.session import stealers_view

    sel = load_selection(root, tier_spec, one_query or queries, queries_version)
    view = stealers_view(sel, k, limit, one_query=bool(one_query))
    found = view.steals
    if one_query:
        if as_json:
            return _json(found)
        table = Table(title=f"Steals of {markup_escaped(one_query)} (K={view.k})", title_justify="left")
        for c in ("tier", "system", "gold (rank)", "stealer (rank)", "label", "score gap", "word overlap", "embedding sim"):
            table.add_column(c, no_wrap=True)
        for s in found:
            table.add_row(as_text(s.tier), as_text(s.system), gold_cell(s.gold, s.gold_rank),
                          f"{s.stealer} (#{s.stealer_rank})", s.kind, fmt(s.score_gap), fmt(s.overlap, 2), fmt(s.embedding_similarity, 2))
        return console.print(table)
    top = view.stealers
    if as_json:
        return _json({"steals": len(found), "stealers": top})
    console.print(f"{len(found)} steals over {len(sel.tiers)} tier(s); the {len(top)} most frequent stealers "
                  "(each counted once per (query, gold document) it outranks):", highlight=False)
    for n, st in enumerate(top, 1):
        print_stealer(n, st)


def gold_cell(gold: int, rank: int | None) -> str:
    """A gold document and its rank: "430 (#12)", or "430 (not retrieved)" (never "#not retrieved")."""
    return f"{gold} (#{rank})" if rank is not None else f"{gold} (not retrieved)"


def print_stealer(n: int, s) -> None:
    hn = f"; hard negative for {', '.join(s.hard_negative_for)}" if s.hard_negative_for else ""
    console.print(f"[bold]{n}. {s.doc_id} {markup_escaped(s.title)}[/] displaces {s.displaced} gold in "
                  f"{len(s.queries)} quer{'y' if len(s.queries) == 1 else 'ies'} ({markup_escaped(', '.join(s.queries[:8]))}"
                  f"{' …' if len(s.queries) > 8 else ''}) by {markup_escaped(', '.join(s.systems))} on {s.tiers} tier(s){markup_escaped(hn)}; "
                  f"word overlap {fmt(s.mean_overlap, 2)}, embedding similarity {fmt(s.mean_embedding_similarity, 2)}",
                  highlight=False)
    console.print(f"   vs gold {s.gold} {markup_escaped(s.gold_title)}: stealer has "
                  f"{markup_escaped(', '.join(s.stealer_has)) or MISSING}; gold has {markup_escaped(', '.join(s.gold_has)) or MISSING}",
                  highlight=False)


@click.command("unjudged")
@PROJECT_ARG
@click.option("--tiers", "tier_spec", default="full", show_default=True, help="`all`, or tier names / kinds, comma-separated.")
@QUERIES_OPT
@K_OPT
@click.option("--list", "listing", is_flag=True, help="List every unjudged document, not only the answer-bearing ones.")
@JSON_OPT
@QUERIES_VERSION
def unjudged_command(root: Path, tier_spec: str, queries: str, k: int | None, listing: bool, as_json: bool, queries_version: str) -> None:
    """Per system × tier: the share of the top K nobody judged, and those documents that contain the answer (likely missing gold)."""
    from workbench.session import unjudged_view

    sel = load_selection(root, tier_spec, queries, queries_version)
    view = unjudged_view(sel, k)
    rows = view.rows
    if as_json:
        return _json([{**msgspec.to_builtins(r), "share": r.share} for r in rows])
    table = Table(title=f"Unjudged documents in the top K (queries {markup_escaped(sel.project.queries_version)}): neither gold, "
                        "hard negative nor otherwise labelled", title_justify="left")
    for c in ("tier", "system", "queries", "top-K slots", "unjudged", "share", "answer-bearing"):
        table.add_column(c, justify="left" if c in ("tier", "system") else "right", no_wrap=True)
    for r in rows:
        table.add_row(as_text(r.tier), as_text(r.system), str(r.queries), str(r.slots), str(r.unjudged), fmt(r.share, 2), str(r.answer_bearing))
    console.print(table)
    seen: set[tuple[str, int]] = set()
    for r in rows:
        for d in r.docs:
            if (d.answer_bearing or listing) and (d.query_id, d.doc_id) not in seen:
                seen.add((d.query_id, d.doc_id))
                mark = f" contains “{markup_escaped(d.alias)}”: likely missing gold" if d.answer_bearing else ""
                console.print(f"{markup_escaped(d.query_id)}: {d.doc_id} {markup_escaped(d.title)} "
                              f"({markup_escaped(r.system)} #{d.rank} at {markup_escaped(r.tier)}){mark}", highlight=False)
    if seen:
        console.print(f"[dim]label them in the TUI (`{markup_escaped(view.label_command)}`, the query's inspector: G / H / N)[/]",
                      highlight=False)


@click.command("positions")
@PROJECT_ARG
@TIERS_OPT
@QUERIES_OPT
@JSON_OPT
@QUERIES_VERSION
def positions_command(root: Path, tier_spec: str, queries: str, as_json: bool, queries_version: str) -> None:
    """Long-context localization recall and answer correctness by the gold's depth in the input (deciles), from stored runs."""
    from workbench.session import positions_view

    # long-context runs only: no retriever's ranking is read
    view = positions_view(load_selection(root, tier_spec, queries, queries_version, rankings=False))
    tables = view.tables
    if as_json:
        return _json([{**msgspec.to_builtins(t), "cells": [{**msgspec.to_builtins(c), "recall": c.recall, "correct": c.correct}
                                                           for c in t.cells]} for t in tables])
    if not tables:
        console.print(f"no stored long-context run on these tiers: `{markup_escaped(view.run_command)}`",
                      highlight=False)
    for t in tables:
        console.print(position_table(t))


def position_table(t) -> Table:
    table = Table(title=f"{markup_escaped(t.model)} on {markup_escaped(t.scope)}: by the gold's depth in the input "
                        "(recall: found/golds; correct: right/answers)", title_justify="left")
    table.add_column("")
    for c in t.cells:
        table.add_column(f"{c.decile * 10}–{c.decile * 10 + 10}%", justify="right", no_wrap=True)
    table.add_row("localization recall", *(f"{c.loc_found}/{c.loc_n}" if c.loc_n else MISSING for c in t.cells))
    table.add_row("answers correct", *(f"{c.qa_correct}/{c.qa_n}" if c.qa_n else MISSING for c in t.cells))
    return table
