"""Collision-testing commands: `collide` (mine near-miss candidates, verify them with a model, write
a query-set version), `collide-score` (against known labels) and `export-eval-set`."""

from __future__ import annotations

import json
from pathlib import Path

import click

from workbench.cli.common import PROJECT_ARG, QUERIES_VERSION, console, err_console, Table
from workbench.safe_text import as_text


def print_summary(s, root: Path) -> None:
    """The collide summary: queries in → what happened to them, and the verdicts behind it."""
    hn = "–" if s.hard_negatives_mean is None else f"{s.hard_negatives_mean:.2f} (min {s.hard_negatives_min}, max {s.hard_negatives_max})"
    lines = [
        f"queries in            {s.queries_in} (version {s.parent})",
        f"retained              {s.retained}",
        f"excluded (conflicts)  {s.excluded_conflict}",
        f"unsuitable            {s.unsuitable} (no candidate above the similarity floor)",
        f"false negatives       {s.false_negatives_promoted} promoted to gold, in {s.queries_with_promoted} queries",
        f"hard negatives/query  {hn} over the {s.retained} retained queries",
        f"candidates            {s.candidates}: " + ", ".join(f"{k} {v}" for k, v in s.verdicts.items()),
        f"model calls           {s.model_calls} (cache hits {s.cache_hits}; {s.resumed} verdicts resumed from an earlier run)",
        f"wall time             {s.wall_s:.1f} s",
    ]
    for line in lines:
        console.print(as_text(line))
    if s.version:
        from workbench.session import command

        console.print(as_text(f"written as query-set version {s.version!r}: "
                              f"{command('eval', root, queries_version=s.version)}"))


@click.command("collide")
@PROJECT_ARG
@click.option("--queries-version", default="original", show_default=True, metavar="NAME", help="The version to start from.")
@click.option("--candidates", default=5, show_default=True, type=click.IntRange(1, 100), help="Dense candidates per query.")
@click.option("--floor", default=0.3, show_default=True, type=float, help="Similarity floor (cosine) of a plausible candidate.")
@click.option("--margin", type=float, default=None, help="Drop candidates above (best gold similarity − MARGIN). Default: off.")
@click.option("--pool", default=0, show_default=True, type=click.IntRange(0, 1000), help="Sample the candidates from the top POOL (seeded); 0 = take the top ones.")
@click.option("--seed", default=13, show_default=True, type=int, help="Seed of the pool sample and of the verifier's retries.")
@click.option("--bm25", default=0, show_default=True, type=click.IntRange(0, 100), help="Extra BM25 candidates per query.")
@click.option("--model", "model_name", default=None, help="Verifier model (a [models.NAME] of workbench.toml; default the local one).")
@click.option("--concurrency", type=click.IntRange(1, 256), default=None, help="Concurrent calls (default: the model's setting).")
@click.option("--parse-retries", default=2, show_default=True, type=click.IntRange(0, 10), help="Retries of an unparseable reply before UNVERIFIED.")
@click.option("--on-conflict", "policy", type=click.Choice(["any", "majority"]), default="any", show_default=True,
              help="Exclude a query on any CONFLICT, or only when more than half its candidates conflict.")
@click.option("--keep-unsuitable", is_flag=True, help="Keep queries with no plausible candidate in the version (flagged).")
@click.option("--from", "start", type=click.Choice(["mined", "unjudged"]), default="mined", show_default=True,
              help="Candidates: mined from the pool (dense, --bm25), or the answer-bearing unjudged documents "
                   "(`workbench unjudged`: in some stored ranking's top K on full, stating the answer, judged by "
                   "nobody); queries without one are carried over unchanged.")
@click.option("--name", default=None, help="Name of the new version (default collide-N).")
@click.option("--no-cache", is_flag=True, help="Bypass the model response cache.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def collide_command(root: Path, queries_version, candidates, floor, margin, pool, seed, bm25, model_name, concurrency,
                    parse_retries, policy, keep_unsuitable, start, name, no_cache, as_json) -> None:
    """Collision testing: mine near-miss candidates (or start from the answer-bearing unjudged documents), verify each with a model, write a new query-set version."""
    import msgspec

    from workbench.progress import stage_progress
    from workbench.session.collide import collide

    if start == "unjudged":
        _no_mining_options()
    try:
        with stage_progress(err_console, unit="items") as progress:
            done = collide(root, queries_version, candidates=candidates, floor=floor, margin=margin, pool=pool, seed=seed,
                           bm25=bm25, model=model_name, concurrency=concurrency, parse_retries=parse_retries, policy=policy,
                           keep_unsuitable=keep_unsuitable, start=start, name=name, use_cache=not no_cache, progress=progress)
    except KeyboardInterrupt:
        err_console.print("[yellow]interrupted: finished verdicts are saved; rerun the same command to resume[/]")
        raise SystemExit(130)
    project, tier, summary = done.project, done.tier, done.summary
    if as_json:
        click.echo(json.dumps(msgspec.to_builtins(summary), indent=1))
    else:
        print_summary(summary, root)
        if start == "unjudged":
            console.print(as_text(f"from the unjudged: {summary.queries_in} queries with answer-bearing unjudged documents on "
                                  f"{tier.name}; the other {len(project.queries) - summary.queries_in} carried over unchanged"))
    if summary.version is None and summary.candidates == 0 and not summary.failed_calls:
        from workbench.session import command

        err_console.print(f"nothing to verify: no answer-bearing unjudged document in a stored ranking's top K on {tier.name} "
                          f"(`{command('unjudged', root)}` lists them); no version written", highlight=False, markup=False)
        return
    if summary.version is None:
        err_console.print(f"[red]{summary.failed_calls} candidate(s) could not be verified (calls failed)[/]: "
                          "no version written; rerun the same command to retry them (finished verdicts are kept)")
        raise SystemExit(1)


MINING_ONLY = ("candidates", "floor", "margin", "pool", "bm25")


def _no_mining_options() -> None:
    """--from unjudged mines nothing: an option that shapes mining would be silently ignored."""
    ctx = click.get_current_context()
    given = [p for p in MINING_ONLY if ctx.get_parameter_source(p) is not click.core.ParameterSource.DEFAULT]
    if given:
        raise click.UsageError(f"--{given[0]} shapes mining; --from unjudged takes the answer-bearing unjudged documents "
                               "instead: leave it out, or use --from mined")


@click.command("collide-score")
@PROJECT_ARG
@QUERIES_VERSION
@click.option("--truth", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Queries JSONL with the true hard negatives (and full gold) of the same documents.")
@click.option("--recall-at", "depths", default="5,10,20", show_default=True, help="Depths of the model-free dense mining recall.")
@click.option("--partial", is_flag=True, help="Score the verdicts saved so far by the newest unfinished collide run.")
@click.option("--json", "as_json", is_flag=True)
def collide_score_command(root: Path, queries_version: str, truth: Path, depths: str, partial: bool, as_json: bool) -> None:
    """Score a collide version against known labels: mining recall apart from verification accuracy.

    Gold documents in TRUTH that the project's queries.jsonl lacks count as hidden gold (the
    verifier should call them FALSE_NEGATIVE)."""
    import msgspec

    from workbench.errors import BadInput
    from workbench.progress import stage_progress
    from workbench.session import collide_score

    try:
        ks = [int(k) for k in depths.split(",") if k.strip()]
    except ValueError:
        raise BadInput(f"--recall-at: {depths!r} is not a comma list of depths") from None
    with stage_progress(err_console, unit="docs") as progress:
        score = collide_score(root, queries_version, truth, ks, partial=partial, progress=progress)
    if as_json:
        report = msgspec.to_builtins(score.report) if score.report else None
        click.echo(json.dumps({"recall_at": msgspec.to_builtins(score.recall_at), "report": report}, indent=1))
        return
    console.print(as_text("mining recall of the true hard negatives (micro; no model call):"))
    for source, values in score.recall_at.items():
        each = "k from each" if source == "dense+bm25" else "top k"
        console.print(as_text(f"  {source:<11} ({each}) " + ", ".join(f"@{k} {('–' if v is None else f'{v:.3f}')}" for k, v in values.items())))
    if score.report is None:
        return
    r = score.report
    fmt3 = lambda x: "–" if x is None else f"{x:.3f}"  # noqa: E731
    console.print(as_text(f"mined candidates {r.candidates}; true hard negatives {r.true_hard_negatives} over {r.queries} queries; "
                          f"among the candidates {r.mined_true_hard_negatives} (mining recall micro {fmt3(r.mining_recall_micro)}, "
                          f"macro {fmt3(r.mining_recall_macro)})"))
    table = Table(title=as_text(f"Verdicts of {score.scored} against the truth (rows: truth; n = candidates)"), title_justify="left")
    table.add_column("truth")
    columns = list(next(iter(r.confusion.values())))  # the verdicts, in the report's order
    for c in (*columns, "n"):
        table.add_column(c, justify="right")
    for row, cells in r.confusion.items():
        table.add_row(row, *(str(cells[c]) for c in columns), str(sum(cells.values())))
    console.print(table)
    console.print(as_text(f"verified HARD_NEGATIVE on true hard negatives (recall) {fmt3(r.hn_recall)}; "
                          f"true among verified HARD_NEGATIVE (precision, a lower bound) {fmt3(r.hn_precision)}; "
                          f"accuracy on labelled candidates (HN→HARD_NEGATIVE, hidden gold→FALSE_NEGATIVE) {fmt3(r.accuracy_on_labelled)}"))


@click.command("export-eval-set")
@PROJECT_ARG
@QUERIES_VERSION
@click.option("--tiers", "tier_spec", default="full", show_default=True, help="`all`, or tier names / kinds.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Default PROJECT/exports/eval_set-VERSION.jsonl.")
def export_eval_set_command(root: Path, queries_version: str, tier_spec: str, out: Path | None) -> None:
    """Write eval_set.jsonl: {query, answer, gold_doc_ids, hard_negative_ids, tier, corpus_doc_ids} per query and tier."""
    from workbench.session import export_eval_set

    done = export_eval_set(root, queries_version, tier_spec, out)
    console.print(as_text(f"{done.rows} rows (queries × tiers) of version {done.queries_version} → {done.path}"))
