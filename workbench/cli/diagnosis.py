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
    from workbench.diagnosis.verdicts import QueryVerdicts
    from workbench.project.files import Project
    from workbench.records import Tier


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
    from workbench.diagnosis.overview import system_readings
    from workbench.diagnosis.rules import PENDING
    from workbench.session.reading import shown_system, verdicts

    sel = load_selection(root, tier_spec, queries, queries_version)
    project, tiers, qids = sel
    qv = verdicts(sel, oracle_model)
    if as_json:
        click.echo(msgspec.json.format(msgspec.json.encode(qv), indent=1).decode())
        return
    chosen = shown_system(qv, system, sel)
    lost = [v for v in qv.of(chosen) if v.verdict in ("ACCESS", "ACCESS?", "BOTH")]
    if lost:  # access needs no model: what it shows leads
        per_level = {lv: len({v.query_id for v in lost if v.level == lv}) for lv in qv.levels}
        console.print(f"access first: {len({v.query_id for v in lost})} quer(ies) whose gold does not reach the reader "
                      f"(ACCESS {sum(v.verdict == 'ACCESS' for v in lost)}, BOTH {sum(v.verdict == 'BOTH' for v in lost)}, "
                      f"ACCESS? {sum(v.verdict == 'ACCESS?' for v in lost)} provisional); per level: "
                      + ", ".join(f"{markup_escaped(lv)} {n}" for lv, n in per_level.items() if n), highlight=False)
    table = Table(title=f"Verdicts of {markup_escaped(chosen or '')} (K={qv.k}, queries {markup_escaped(project.queries_version)}); "
                        "rule and facts at the first failing tier",
                  title_justify="left")
    table.add_column("query", no_wrap=True)
    for lv in qv.levels:
        table.add_column(lv, no_wrap=True)
    table.add_column("because (first failing tier)")
    by_query: dict[str, dict[str, str]] = {}
    for v in qv.of(chosen):
        by_query.setdefault(v.query_id, {})[v.level] = v.verdict + (" (parametric)" if v.parametric else "")
    for qid, row in by_query.items():
        first = qv.first_failing(chosen, qid)
        table.add_row(markup_escaped(qid), *(row.get(lv, "") for lv in qv.levels),
                      markup_escaped(f"{first.rule}: {first.because}") if first else "")
    console.print(table)
    print_funnel(qv, chosen)
    for spec in qv.systems:
        r = system_readings(qv, spec)[-1]
        console.print(f"[bold]{markup_escaped(spec.name)}[/]: {r.said} — {markup_escaped(r.rule)}", highlight=False)
    print_recommendations(project, tiers, qv, chosen)
    print_insight(project, tiers, qv, qids)  # effective corpus size, the near-miss split (workbench/cli/insight.py)
    for word in PENDING:
        pending = [v for v in qv.of(chosen) if v.verdict == word]
        if pending:
            console.print(f"{len(pending)} {word}; e.g. {markup_escaped(pending[0].query_id)} at {markup_escaped(pending[0].tier)}: "
                          f"missing {markup_escaped(pending[0].missing)}: {markup_escaped(pending[0].command)}", highlight=False,
                          soft_wrap=True)  # a suggested command is never broken across lines: it is pasted


def print_funnel(qv: "QueryVerdicts", system: str) -> None:
    """Where the gold is lost, per level: a bar and the counts (workbench/diagnosis/funnel.py)."""
    from workbench.diagnosis.funnel import bar, bar_legend, counts_line, level_funnels

    rows = level_funnels(qv.funnels, system)
    if not rows:
        return
    console.print(f"Where the gold is lost ({markup_escaped(system)}; {bar_legend()}):", highlight=False)
    width = max(len(f.level) for f in rows)
    for f in rows:
        console.print(f"  {markup_escaped(f.level):<{width}} {bar(f.funnel, 30):<30} n={f.n}: {markup_escaped(counts_line(f.funnel))}",
                      highlight=False)


def print_recommendations(project: "Project", tiers: "list[Tier]", qv: "QueryVerdicts", system: str) -> None:
    """The system's overall recommendations, each access fix with its command, judge and effect."""
    from workbench.diagnosis.verdicts import VerdictReader
    from workbench.diagnosis.recommend import primary_recommendations

    recs = primary_recommendations(project, qv, tiers, VerdictReader(project, qv.k), system)
    if recs:
        console.print(f"Recommendations for {markup_escaped(system)} (access first):", highlight=False)
    for i, rec in enumerate(recs, 1):
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
    from workbench.names import split_level
    from workbench.session.reading import compared

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
        from workbench.inspection.movement import movement_line

        console.print(f"  rank movement: {markup_escaped(movement_line(c.movement.counts, c.b))}", highlight=False)
