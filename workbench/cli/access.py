"""Access commands: `eval` (access metrics per tier × system, plus stored model results) and
`export-trec`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from workbench.cli.common import PROJECT_ARG, QUERIES_VERSION, console, err_console, version_caption, Table
from workbench.cli.project import ensure_indexes
from workbench.display import fmt
from workbench.safe_text import as_text, markup_escaped
from workbench.session import retriever_names

if TYPE_CHECKING:
    from workbench.session import UseTable


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
    print_served(results)
    unlabelled = {r.tier: r.n_unlabelled for r in results if r.n_unlabelled}
    if unlabelled:
        n = max(unlabelled.values())
        console.print(f"{n} unlabelled quer{'y' if n == 1 else 'ies'} (no gold) ranked but left out of these figures "
                      "(label in the TUI: `workbench open`)", highlight=False)
    if use:
        print_use(use)


def print_served(results) -> None:
    """Beside a production run's figures: n is the queries it served; what it never served, what it
    served with an unknown ranking and what is unknown past a truncation depth are named, never scored."""
    for r in results:
        parts = []
        if r.not_served:
            parts.append(f"{len(r.not_served)} not served (first: {r.not_served[0]})")
        if r.ranking_unknown:
            parts.append(f"{len(r.ranking_unknown)} served with an unknown ranking (first: {r.ranking_unknown[0]})")
        if r.unknown_past_depth:
            qid, d = next(iter(r.unknown_past_depth.items()))
            parts.append(f"{len(r.unknown_past_depth)} unknown past their ranking's depth (first: {qid}, truncated at {d})")
        if parts:
            console.print(as_text(f"{r.system} on {r.tier}: n = {r.summary.n_queries} served queries; "
                                  + "; ".join(parts) + ": left out of its figures"), highlight=False)


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


@click.command("eval")
@PROJECT_ARG
@click.option("--retrievers", default=",".join(retriever_names()), show_default=True,
              help=f"Comma list of: {', '.join(retriever_names())}; or a reranked system (hybrid>rerank:NAME@50) "
                   "or a tuned one (dense@tuned, hybrid@tuned): its stored run, else its stage is run.")
@click.option("--tiers", "tier_spec", default="all", show_default=True, help="`all`, or tier names / kinds, comma-separated.")
@click.option("--k", type=click.IntRange(1, 1000), help="Cut-off K (default: `[retrievers] k` of workbench.toml, 10).")
@click.option("--json", "as_json", is_flag=True, help="Print the stable JSON document instead of tables.")
@click.option("--no-models", is_flag=True, help="Leave stored model runs out.")
@QUERIES_VERSION
def eval_(root: Path, retrievers: str, tier_spec: str, k: int | None, as_json: bool, no_models: bool, queries_version: str) -> None:
    """Access metrics (R@1, SR@K, FR@K, MRR@K, nDCG@10) per tier × system, plus stored model results."""
    from workbench.progress import stage_progress
    from workbench.session import eval_report, plan_eval

    plan = plan_eval(root, [n.strip() for n in retrievers.split(",") if n.strip()], tier_spec, k, queries_version)
    ensure_indexes(plan.project, plan.tiers, kinds=plan.kinds)
    with stage_progress(err_console, unit="queries") as progress:
        report = eval_report(plan, include_models=not no_models, progress=progress, as_json=as_json)
    if as_json:
        click.echo(json.dumps(report.document, indent=1))
    else:
        from workbench.cli.insight import print_effective_sizes

        done = report.evaluation
        print_eval(done.results, done.k, done.use, version_caption(done.project))
        print_effective_sizes(report.effective_sizes)  # workbench/cli/insight.py
        if report.tuned_caption:  # beside every figure of a tuned system: its split and seeds
            console.print(as_text(report.tuned_caption), highlight=False)


@click.command("export-trec")
@PROJECT_ARG
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), help="Output folder (default PROJECT/trec).")
@click.option("--tiers", "tier_spec", default="all", show_default=True)
def export_trec(root: Path, out: Path | None, tier_spec: str) -> None:
    """Write TREC qrels and run files (for trec_eval, ranx, ir_measures) of every stored run."""
    from workbench.session import trec_export

    done = trec_export(root, tier_spec, out or root / "trec")
    for path in done.written:
        console.print(as_text(str(path)))
    if done.hint:
        err_console.print(f"no stored runs yet: run `{markup_escaped(done.hint)}` first", highlight=False)
