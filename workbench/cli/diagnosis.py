"""Diagnosis commands: `diagnose` (a verdict per query and tier, a reading per tier) and `compare`
(a paired test of two systems, two tiers or two query-set versions)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click
import msgspec

from workbench.cli.insight import print_insight
from workbench.cli.common import PROJECT_ARG, QUERIES_OPT, QUERIES_VERSION, SEED_OPT, TIERS_OPT, console, load_selection, Table
from workbench.display import fmt
from workbench.safe_text import markup_escaped

if TYPE_CHECKING:
    from workbench.session import DiagnosisView


@click.command("diagnose")
@PROJECT_ARG
@TIERS_OPT
@QUERIES_OPT
@click.option("--system", default=None,
              help="The system whose verdicts are listed (default: the preferred one that fits and covers most tiers).")
@click.option("--oracle-model", default=None, metavar="MODEL",
              help="Whose oracle answers settle production's verdicts (run:NAME:answers); default: workbench.toml `judge`, else the model.")
@click.option("--json", "as_json", is_flag=True, help="Every verdict as JSON.")
@QUERIES_VERSION
def diagnose_command(root: Path, tier_spec: str, queries: str, system: str | None, oracle_model: str | None, as_json: bool,
                     queries_version: str) -> None:
    """A verdict per query and tier (PASS, ACCESS, ACCESS?, USE, USE-UNDER-DISTRACTORS, BOTH, UNDECIDED, NOT-YET) and a reading per tier."""
    from workbench.session import diagnosis_view, verdicts

    sel = load_selection(root, tier_spec, queries, queries_version)
    if as_json:
        click.echo(msgspec.json.format(msgspec.json.encode(verdicts(sel, oracle_model)), indent=1).decode())
        return
    view = diagnosis_view(sel, oracle_model, system)  # session/diagnosing.py: every part from one reading
    qv, chosen = view.verdicts, view.system
    a = view.access_first
    if a is not None:  # access needs no model: what it shows leads
        console.print(f"access first: {a.queries} quer(ies) whose gold does not reach the reader "
                      f"(ACCESS {a.access}, BOTH {a.both}, ACCESS? {a.provisional} provisional); per level: "
                      + ", ".join(f"{markup_escaped(lv)} {n}" for lv, n in a.per_level.items()), highlight=False)
    table = Table(title=f"Verdicts of {markup_escaped(chosen)} (K={qv.k}, queries {markup_escaped(view.queries_version)}); "
                        "rule and facts at the first failing tier",
                  title_justify="left")
    table.add_column("query", no_wrap=True)
    for lv in qv.levels:
        table.add_column(lv, no_wrap=True)
    table.add_column("because (first failing tier)")
    for row in view.rows:
        table.add_row(markup_escaped(row.query_id), *(row.cells.get(lv, "") for lv in qv.levels), markup_escaped(row.because))
    console.print(table)
    print_funnel(view)
    for r in view.readings:
        console.print(f"[bold]{markup_escaped(r.system)}[/]: {r.said} — {markup_escaped(r.rule)}", highlight=False)
    print_recommendations(view)
    print_insight(view)  # effective corpus size, the near-miss split (workbench/cli/insight.py)
    for p in view.pending:
        e = p.example
        console.print(f"{p.count} {p.word}; e.g. {markup_escaped(e.query_id)} at {markup_escaped(e.tier)}: "
                      f"missing {markup_escaped(e.missing)}: {markup_escaped(e.command)}", highlight=False,
                      soft_wrap=True)  # a suggested command is never broken across lines: it is pasted


def print_funnel(view: "DiagnosisView") -> None:
    """Where the gold is lost, per level: a bar and the counts (workbench/diagnosis/funnel.py)."""
    if not view.funnel:
        return
    console.print(f"Where the gold is lost ({markup_escaped(view.system)}; {view.funnel_legend}):", highlight=False)
    width = max(len(f.level) for f in view.funnel)
    for f in view.funnel:
        console.print(f"  {markup_escaped(f.level):<{width}} {f.bar:<30} n={f.n}: {markup_escaped(f.counts)}", highlight=False)


def print_recommendations(view: "DiagnosisView") -> None:
    """The system's overall recommendations, each access fix with its command, judge and effect."""
    if view.recommendations:
        console.print(f"Recommendations for {markup_escaped(view.system)} (access first):", highlight=False)
    for i, rec in enumerate(view.recommendations, 1):
        console.print(f"  {i}. {markup_escaped(rec.text)}", highlight=False)
        for line in rec.lines:
            console.print(f"     {markup_escaped(line)}", highlight=False, soft_wrap=True)


@click.command("compare")
@PROJECT_ARG
@click.argument("a")
@click.argument("b")
@TIERS_OPT
@QUERIES_OPT
@SEED_OPT
@click.option("--json", "as_json", is_flag=True)
@QUERIES_VERSION
@click.option("--against-version", default=None, metavar="NAME",
              help="Score B under this query-set version (A under --queries-version): two versions, same tiers.")
def compare_command(root: Path, a: str, b: str, tier_spec: str, queries: str, seed: int, as_json: bool,
                    queries_version: str, against_version: str | None) -> None:
    """Two systems (A B), one system on two tiers (SYSTEM@LEVEL SYSTEM@LEVEL), or one system under two
    query-set versions (SYSTEM SYSTEM --against-version NAME), on the queries both sides share."""
    from workbench.session import compared, split_level

    # the two sides' built-in retrievers are ranked first if they are not yet (no model needed)
    sel = load_selection(root, tier_spec, queries, queries_version, systems=[split_level(side)[0] for side in (a, b)])
    c = compared(sel, a, b, seed, against_version)
    if as_json:
        click.echo(json.dumps(msgspec.to_builtins(c), indent=1))
        return
    t = c.test
    console.print(f"{markup_escaped(c.a)} vs {markup_escaped(c.b)} on {t.n} paired queries, per query {markup_escaped(c.metric)}", highlight=False)
    console.print(f"  mean {fmt(c.mean_a)} vs {fmt(c.mean_b)}; difference {fmt(t.mean_diff)} "
                  f"[{fmt(t.ci.low, 3)}, {fmt(t.ci.high, 3)}] (95% bootstrap)", highlight=False)
    console.print(f"  {markup_escaped(c.a)} wins {t.wins}, loses {t.losses}, ties {t.ties}", highlight=False)
    console.print(f"  p = {fmt(t.p_value, 4)} two-sided ({t.method})", highlight=False)
    if c.movement is not None:
        from workbench.session import movement_line

        console.print(f"  rank movement: {markup_escaped(movement_line(c.movement.counts, c.b))}", highlight=False)
