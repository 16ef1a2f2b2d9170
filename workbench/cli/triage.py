"""Production triage commands: `import-run`, `import-answers`, `add-query`, `export-labels`, `import-traces`."""

from __future__ import annotations

from pathlib import Path

import click

from workbench.cli.common import PROJECT_ARG, console, err_console, split_ids, Table
from workbench.display import fmt
from workbench.safe_text import as_text, markup_escaped, visible

MAX_SHOWN_PROBLEMS = 20


def print_changes(changes: list[str], kept: int = 0, what: str = "") -> None:
    """What the ledger's view of run:NAME took from another source than before (never silent), and
    what it held already (not added twice)."""
    for line in changes:
        err_console.print(f"[yellow]{markup_escaped(line)}[/]", highlight=False)
    if kept:
        console.print(f"{kept} {what} already in the ledger: not added twice", highlight=False)


def print_problems(problems, what: str, note: str = "not in the project; left out of every tier") -> None:
    """Unknown IDs: every one counted, the first ones shown with file:line."""
    if not problems:
        return
    err_console.print(f"[yellow]{len(problems)} {what}[/] ({note}):")
    for problem in problems[:MAX_SHOWN_PROBLEMS]:
        click.echo(f"  {problem}", err=True)
    if len(problems) > MAX_SHOWN_PROBLEMS:
        click.echo(f"  … and {len(problems) - MAX_SHOWN_PROBLEMS} more", err=True)


@click.command("import-run")
@PROJECT_ARG
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--name", required=True, help="The system is shown as run:NAME.")
@click.option("--format", "fmt_", type=click.Choice(["trec", "jsonl"]), default="trec", show_default=True,
              help="trec: `qid Q0 docid rank score tag`; jsonl: {query_id, ranked: [ids], scores?}.")
@click.option("--tier", default=None, help="The file ranks this tier only (e.g. an export-trec file); default: every tier, restricted to its documents.")
@click.option("--ids", type=click.Choice(["auto", "source", "docid"]), default="auto", show_default=True,
              help="Document IDs are source ids (your own) or DocIDs; auto: whichever more of them resolve as.")
def import_run(root: Path, file: Path, name: str, fmt_: str, tier: str | None, ids: str) -> None:
    """Import a production retriever's rankings as system run:NAME, scored beside bm25/dense/hybrid."""
    from workbench.session import run_imported

    done = run_imported(root, file, name, fmt_, tier, ids)
    report, figures, k = done.report, done.figures, done.k
    print_problems(report.problems, f"unknown ID(s): {report.unknown_doc_ids} document, {report.unknown_query_ids} query")
    console.print(f"imported [bold]run:{markup_escaped(name)}[/] ({markup_escaped(report.tier)}): {report.queries} queries, "
                  f"{report.hits} ranked IDs as {report.id_space} ids; {report.queries_without_ranking} project "
                  "quer(ies) without a ranking: not served, left out of its figures", highlight=False)
    print_changes(report.changes, report.kept, "ranking(s)")
    table = Table(title=as_text(f"run:{name} per tier (K={k}; n = labelled queries it served)"), title_justify="left")
    for c in ("tier", "n", f"SR@{k}", f"FR@{k}", "R@1", f"MRR@{k}"):
        table.add_column(c, justify="left" if c == "tier" else "right", no_wrap=True)
    for row in figures:
        s = row.summaries[0]
        assert s is not None  # the first run always has a ranking on the rows returned
        table.add_row(as_text(row.tier.name, one_line=True), str(s.n_queries), fmt(s.sr_at_k), fmt(s.fr_at_k), fmt(s.r_at_1),
                      fmt(s.mrr_at_k))
    console.print(table)


@click.command("import-answers")
@PROJECT_ARG
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--name", required=True, help="The use run is shown as run:NAME:answers.")
@click.option("--judge/--no-judge", "judge_it", default=True, show_default=True, help="Score the answers with the project's judge.")
@click.option("--judge-model", default=None, help="Judge model (default: workbench.toml `judge`, else the embedded model).")
@click.option("--judge-samples", type=click.IntRange(1, 15), default=3, show_default=True)
def import_answers(root: Path, file: Path, name: str, judge_it: bool, judge_model: str | None, judge_samples: int) -> None:
    """Import production answers {query_id, answer, context_doc_ids?, latency_s?} as a use run, decided at once
    (right / wrong / undecided) and judged unless --no-judge; `diagnose` lists them as the system run:NAME:answers."""
    from workbench.errors import ExternalError
    from workbench.session import answers_imported

    done = answers_imported(root, file, name, judge_it, judge_model, judge_samples)
    record, problems, run = done.record, done.problems, done.run
    print_problems(problems, f"unknown ID(s): {record.unknown_doc_ids} document, {record.unknown_query_ids} query")
    print_changes(record.changes)
    for line in answers_lines(done.summary):
        console.print(markup_escaped(line), highlight=False)
    failed = sorted({f.query_id for f in run.failures if f.stage == "judge"})
    if failed:
        judged = sum(r.judged for r in run.qa)
        message = (f"judge failures {len(failed)} of {len(run.qa)} answers ({judged} judged); "
                   f"first: {failed[0]}: {next(f.error for f in run.failures if f.query_id == failed[0])}")
        if not judged:
            raise ExternalError(message, title="Every judge call failed",
                                hint="Is the judge's endpoint up? Rerun import-answers: the answers are kept and judging resumes.")
        err_console.print(f"[yellow]{markup_escaped(message)}[/] — rerun to judge them", highlight=False)


def answers_lines(s) -> list[str]:
    """The import's figures (workbench.session.imported.AnswersSummary), each with the n it stands on."""
    n = s.n
    lines = [f"imported {s.imported} production answers as {s.system} (tier {s.tier}); "
             f"{s.imported - n} without a reference answer not decided"]
    lines.append(f"right {s.right}, wrong {s.wrong}, undecided {s.undecided} "
                 f"(n={n}; {'judge' if s.decided_by_judge else 'deterministic rule'}: workbench/correctness.py); EM {fmt(s.exact, 2)} (n={n}); "
                 f"contains {fmt(s.contains, 2)} (n={n}); refusals {s.refusals} (n={n})")
    if s.judge:
        lines.append(f"judge {s.judge}: QA {fmt(s.qa, 2)} (n={s.qa_scored} scored of {s.qa_judged} judged; "
                     f"judge failures {s.judge_failures})")
    if s.gold_in_context_n:
        lines.append(f"all gold in production's context: {s.gold_in_context}/{s.gold_in_context_n} "
                     f"(n={s.gold_in_context_n} labelled answers with context_doc_ids)")
    return lines


@click.command("add-query")
@PROJECT_ARG
@click.option("--query", "text", required=True, help="The query text (e.g. pasted from a production log).")
@click.option("--answer", default="", help="The reference answer, if known.")
@click.option("--gold", multiple=True, help="Gold document IDs (source ids or DocIDs; repeat or comma-separate). None = unlabelled.")
@click.option("--negative", multiple=True, help="Hard-negative document IDs.")
@click.option("--domain", default=None, help="Default: the gold documents' domain, or the project's only domain.")
@click.option("--id", "query_id", default=None, help="Query id (default: added-N).")
@click.option("--no-run", is_flag=True, help="Only add it; do not run the retrievers.")
def add_query(root: Path, text: str, answer: str, gold, negative, domain, query_id, no_run: bool) -> None:
    """Add a query and run it through every retriever on every tier."""
    from workbench.progress import stage_progress
    from workbench.session import add_and_rank

    with stage_progress(err_console, unit="items") as progress:
        added = add_and_rank(root, text, answer, split_ids(gold), split_ids(negative), domain, query_id, rank=not no_run,
                             progress=progress)
    q = added.query
    state = "unlabelled" if not q.is_labelled else f"gold {q.gold_doc_ids}"
    console.print(f"added query [bold]{markup_escaped(q.query_id)}[/] ({state}, domain {markup_escaped(q.domain) or '–'})", highlight=False)
    if added.ranks is not None:
        print_query_ranks(q.query_id, q.is_labelled, added.ranks)


def print_query_ranks(query_id: str, labelled: bool, ranks) -> None:
    """The query's top documents per tier and system (and where its gold landed, if labelled)."""
    table = Table(title=as_text(f"{query_id}: top 3 per tier and system" + ("; gold ranks" if labelled else "")),
                  title_justify="left")
    for c in ("tier", "system", "top 3 (DocID title)", "gold ranks"):
        table.add_column(c, no_wrap=c != "top 3 (DocID title)")
    for s in ranks:
        # every cell from data is Text: never parsed as markup (a title "[link=…]" is no link)
        top = "; ".join(f"{doc_id} {visible(title, one_line=True)[:30]}" for doc_id, title in s.top) or "(no ranking)"
        gold = ", ".join(f"{g}@{r if r is not None else '–'}" for g, r in s.gold_ranks.items()) or "unlabelled"
        table.add_row(as_text(s.tier, one_line=True), as_text(s.system, one_line=True), as_text(top), gold)
    console.print(table)


@click.command("export-labels")
@PROJECT_ARG
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), help="Output folder (default PROJECT/labels).")
@click.option("--version", "version", default=None, help="Query-set version (default: the newest).")
def export_labels(root: Path, out: Path | None, version: str | None) -> None:
    """Write a query set's labels as BEIR qrels (qrels/test.tsv) and as the project's queries JSONL."""
    from workbench.session import export_labels as do_export

    done = do_export(root, out or root / "labels", version)
    for path in done.paths:
        console.print(path)
    console.print(f"query-set version: {markup_escaped(done.version)}", highlight=False)


@click.command("import-traces")
@PROJECT_ARG
@click.argument("source")
@click.option("--name", required=True, help="Systems run:NAME (ranking), run:NAME>rerank, run:NAME:answers.")
@click.option("--format", "fmt_", type=click.Choice(["auto", "otlp", "phoenix"]), default="auto", show_default=True,
              help="otlp: the Collector's file exporter (resourceSpans per line); phoenix: its span export (JSONL / Parquet).")
@click.option("--phoenix-project", default="default", show_default=True, help="SOURCE is a Phoenix URL: the project to read.")
@click.option("--query-id-key", default="query_id", show_default=True,
              help="Span attribute (or key of the `metadata` attribute) holding the project's query id; else matched by text.")
@click.option("--doc-id-key", default=None,
              help="Key of document.metadata holding production's document id; else ids, else content matched to the corpus.")
@click.option("--add-unknown-documents", is_flag=True, help="Add retrieved documents the corpus lacks, from document.content.")
@click.option("--ids", type=click.Choice(["auto", "source", "docid"]), default="auto", show_default=True,
              help="Document ids in the spans are source ids or DocIDs; auto: whichever more of them resolve as.")
@click.option("--max-mb", type=click.IntRange(1), default=64, show_default=True, help="Refuse files larger than this.")
@click.option("--judge/--no-judge", "judge_it", default=True, show_default=True, help="Score the answers with the project's judge.")
@click.option("--judge-model", default=None, help="Judge model (default: workbench.toml `judge`, else the embedded model).")
@click.option("--judge-samples", type=click.IntRange(1, 15), default=3, show_default=True)
@click.option("--dry-run", is_flag=True, help="Print the traces, how queries and documents matched, and the answers; write nothing.")
def import_traces(root: Path, source: str, name: str, fmt_: str, phoenix_project: str, query_id_key: str,
                  doc_id_key: str | None, add_unknown_documents: bool, ids: str, max_mb: int, judge_it: bool,
                  judge_model: str | None, judge_samples: int, dry_run: bool) -> None:
    """Import production traces (OTLP JSON, a Phoenix export or a Phoenix URL): one trace, one query."""
    from workbench.session import command, traces_imported

    shown = traces_imported(root, source, name, fmt_, phoenix_project, query_id_key, add_unknown_documents, ids, max_mb,
                            judge_it, judge_model, judge_samples, doc_id_key=doc_id_key, dry_run=dry_run)
    t = shown.traces
    r = t.imported
    if r.dry_run:
        print_trace_plan(r)
        print_trace_conventions(r)
    console.print(f"read {r.spans} spans in {r.traces} traces ({r.format}); {'would import' if r.dry_run else 'imported'} {r.imported} queries: "
                  f"{r.matched_by_id} matched by id, {r.matched_by_text} by text, {len(r.added_queries)} added unlabelled"
                  + (f"; {r.repeated} repeated trace(s) of a query, the latest kept" if r.repeated else ""), highlight=False)
    print_problems([visible(str(s), one_line=True) for s in r.skipped], "span(s) or trace(s) not understood", "skipped")
    print_problems([visible(j, one_line=True) for j in r.joined], "split trace(s)", "joined")
    print_problems([visible(str(p), one_line=True) for p in r.unknown_documents], "unknown document(s)")
    resolved = r.resolved()
    if resolved:
        console.print("documents resolved: " + ", ".join(f"{n} by {how}" for how, n in resolved.items() if how != "unresolved")
                      + (f"; {resolved['unresolved']} unresolved" if resolved.get("unresolved") else ""), highlight=False)
    print_problems([visible(f"{u.where}: trace {u.trace_id}: {u.counts['unresolved']} document(s) match no corpus document "
                            f"(first: {u.unresolved[0]!r}); its answer imported, its context unknown"
                            if u.unresolved else f"{u.where}: trace {u.trace_id}", one_line=True)
                    for u in r.unresolved_traces], "trace(s) with unresolved documents", "left out of the ranking")
    if r.dry_run:
        console.print("dry run: nothing written", highlight=False)
        return
    if r.added_documents:
        err_console.print(f"[yellow]{len(r.added_documents)} document(s) added to the corpus[/] (DocIDs {r.added_documents[0]}–"
                          f"{r.added_documents[-1]}): tiers and indexes are stale; `{markup_escaped(command('index', root))}` rebuilds them", highlight=False)
    print_changes(r.changes, r.kept, "trace(s)")
    print_contract(r)
    if r.run is not None:
        console.print(f"{r.run.queries_without_ranking} project quer(ies) production never served under run:{markup_escaped(name)}: "
                      "not served, left out of its figures", highlight=False)
        print_trace_runs(shown)
    if t.answers is not None:
        console.print(f"{r.answers} answers as [bold]{markup_escaped(t.answers.system)}[/] ({len(t.answers.qa)} with a reference answer"
                      + (f"; {r.answers_without_context} without the documents the LLM read" if r.answers_without_context else "")
                      + ")", highlight=False)


def print_contract(r) -> None:
    """What the traces could not say: rankings unknown or truncated, answers undecided (never decided on them)."""
    if r.unresolved_rankings:
        console.print(f"{len(r.unresolved_rankings)} ranking(s) unknown (documents that could not be resolved; first: "
                      f"{markup_escaped(r.unresolved_rankings[0])}): served, not scored", highlight=False)
    if r.truncated:
        qid, d = next(iter(r.truncated.items()))
        console.print(f"{len(r.truncated)} ranking(s) truncated (first: {markup_escaped(qid)} at depth {d}): "
                      "nothing is claimed past their depth", highlight=False)
    if r.undecided:
        qid, why = next(iter(r.undecided.items()))
        console.print(markup_escaped(f"{len(r.undecided)} answer(s) undecided (first: {qid}: {visible(why, one_line=True)})"),
                      highlight=False)


def print_trace_plan(r) -> None:
    """--dry-run: one row per trace that would be imported."""
    table = Table(title="would import", title_justify="left")
    for c in ("query", "matched", "trace", "documents", "answer"):
        table.add_column(c, no_wrap=c in ("matched",))
    how_of = {res.trace_id: res for res in r.resolutions}
    for qid, how, trace_id, answer in r.plan:
        res = how_of.get(trace_id)
        docs = ", ".join(f"{n} {k}" for k, n in res.counts.items()) if res is not None else "–"
        table.add_row(as_text(qid, one_line=True), how, as_text(trace_id, one_line=True), docs,
                      as_text(visible(answer, one_line=True)[:60] if answer is not None else "(no LLM span)"))
    console.print(table)


def print_trace_conventions(r) -> None:
    """--dry-run, one line per trace: which convention read it and what it lacked (issue 39)."""
    for qid, convention, missing in r.conventions:
        console.print(as_text(f"{qid}: read as {convention}" + (f"; missing: {'; '.join(missing)}" if missing else "; nothing missing"),
                              one_line=True), highlight=False)


def print_trace_runs(shown) -> None:
    """Production's ranking, and its reranked list beside it, on every tier (at the project's K)."""
    from rich.text import Text

    name, k = shown.runs[0], shown.k
    table = Table(title=Text(f"production per tier (K={k}; n = labelled queries it served): {', '.join('run:' + n for n in shown.runs)}"),
                  title_justify="left")
    table.add_column("tier", no_wrap=True)
    table.add_column("n", justify="right")
    for n in shown.runs:
        for c in (f"SR@{k}", f"FR@{k}", f"MRR@{k}"):
            table.add_column(Text(f"{c} {'rerank' if n != name else 'run'}"), justify="right", no_wrap=True)
    for row in shown.figures:
        cells: list = []
        n_queries = 0
        for s in row.summaries:
            if s is None:
                cells += ["–"] * 3
                continue
            n_queries = s.n_queries
            cells += [fmt(s.sr_at_k), fmt(s.fr_at_k), fmt(s.mrr_at_k)]
        table.add_row(Text(row.tier.name), str(n_queries), *cells)
    console.print(table)
