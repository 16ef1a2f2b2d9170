"""Production triage commands: `import-run`, `import-answers`, `add-query`, `export-labels`, `import-traces`."""

from __future__ import annotations

from pathlib import Path

import click

from workbench.cli.common import PROJECT_ARG, console, err_console, split_ids, Table
from workbench.display import fmt
from workbench.project.load import load_project
from workbench.safe_text import as_text, markup_escaped, visible
from workbench.project.suggest import command

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
    from workbench.session.imports import import_run as do_import
    from workbench.project.settings import access_k

    project = load_project(root)
    report, figures = do_import(project, file, name, fmt_, tier, ids)
    print_problems(report.problems, f"unknown ID(s): {report.unknown_doc_ids} document, {report.unknown_query_ids} query")
    console.print(f"imported [bold]run:{markup_escaped(name)}[/] ({markup_escaped(report.tier)}): {report.queries} queries, "
                  f"{report.hits} ranked IDs as {report.id_space} ids; {report.queries_without_ranking} project "
                  "quer(ies) without a ranking: not served, left out of its figures", highlight=False)
    print_changes(report.changes, report.kept, "ranking(s)")
    k = access_k(project)
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
    from workbench.session.production import import_answers as do_import

    done = do_import(root, file, name, judge_it, judge_model, judge_samples)
    project, record, problems, run = done.project, done.record, done.problems, done.run
    print_problems(problems, f"unknown ID(s): {record.unknown_doc_ids} document, {record.unknown_query_ids} query")
    print_changes(record.changes)
    for line in answers_summary(project, record, run):
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


def answers_summary(project, record, run) -> list[str]:
    """The import's figures, each with the n it stands on."""
    from workbench.correctness import decide
    from workbench.llm.calibration import load_calibration
    from workbench.llm.figures import qa_figures
    from workbench.triage.answers import gold_in_context

    cal = load_calibration(project, run.judge) if run.judge else None
    trusted = cal.separates if cal else None
    n = len(run.qa)
    decisions = [decide(project.query(r.query_id), r.answer, r.refusal, r.judge_median if r.judged else None, trusted, run.judge).decision
                 for r in run.qa]
    lines = [f"imported {len(record.answers)} production answers as {record.system} (tier {run.tier}); "
             f"{len(record.answers) - n} without a reference answer not decided"]

    def rate(xs: list[bool]) -> str:
        return fmt(sum(xs) / len(xs), 2) if xs else "–"

    em = [bool(r.exact) for r in run.qa]
    contains = [bool(r.contains) for r in run.qa]
    lines.append(f"right {decisions.count('right')}, wrong {decisions.count('wrong')}, undecided {decisions.count('undecided')} "
                 f"(n={n}; {'judge' if trusted else 'deterministic rule'}: workbench/correctness.py); EM {rate(em)} (n={n}); "
                 f"contains {rate(contains)} (n={n}); refusals {sum(r.refusal for r in run.qa)} (n={n})")
    if run.judge:
        f = qa_figures(run)
        failed = len({x.query_id for x in run.failures if x.stage == "judge"})
        lines.append(f"judge {run.judge}: QA {fmt(f['QA'], 2)} (n={f['scored']} scored of {f['n']} judged; "
                     f"judge failures {int(f['judge_failures'] or 0) + failed})")
    read = [g for g in (gold_in_context(project, a) for a in record.answers) if g is not None]
    if read:
        lines.append(f"all gold in production's context: {sum(a == b for a, b in read)}/{len(read)} "
                     f"(n={len(read)} labelled answers with context_doc_ids)")
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
    import workbench.session.queries as queries  # the TUI's add_query_from_log writes through it too

    q = queries.add_query(root, text, answer, split_ids(gold), split_ids(negative), domain, query_id)
    state = "unlabelled" if not q.is_labelled else f"gold {q.gold_doc_ids}"
    console.print(f"added query [bold]{markup_escaped(q.query_id)}[/] ({state}, domain {markup_escaped(q.domain) or '–'})", highlight=False)
    if no_run:
        return
    with stage_progress(err_console, unit="items") as progress:
        ranked = queries.rank_added(root, q.query_id, progress=progress)
    print_query_ranks(ranked.project, ranked.tiers, ranked.query_id)


def print_query_ranks(project, tiers, query_id: str) -> None:
    """The query's top documents per tier and system (and where its gold landed, if labelled)."""
    from workbench.inspection.rankings import inspect_stored

    q = project.query(query_id)
    table = Table(title=as_text(f"{query_id}: top 3 per tier and system" + ("; gold ranks" if q.is_labelled else "")),
                  title_justify="left")
    for c in ("tier", "system", "top 3 (DocID title)", "gold ranks"):
        table.add_column(c, no_wrap=c != "top 3 (DocID title)")
    for t in tiers:
        if query_id not in t.query_ids:
            continue
        ins = inspect_stored(project, t, q)
        for s in ins.systems:
            # every cell from data is Text: never parsed as markup (a title "[link=…]" is no link)
            top = "; ".join(f"{r.doc_id} {visible(r.title, one_line=True)[:30]}" for r in s.rows[:3]) or "(no ranking)"
            ranks = ", ".join(f"{g}@{r if r is not None else '–'}" for g, r in s.gold_ranks.items()) or "unlabelled"
            table.add_row(as_text(t.name, one_line=True), as_text(s.system, one_line=True), as_text(top), ranks)
    console.print(table)


@click.command("export-labels")
@PROJECT_ARG
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), help="Output folder (default PROJECT/labels).")
@click.option("--version", "version", default=None, help="Query-set version (default: the newest).")
def export_labels(root: Path, out: Path | None, version: str | None) -> None:
    """Write a query set's labels as BEIR qrels (qrels/test.tsv) and as the project's queries JSONL."""
    from workbench.project.labels import export_labels as do_export

    written, name = do_export(root, out or root / "labels", version)
    for path in written:
        console.print(str(path))
    console.print(f"query-set version: {markup_escaped(name)}", highlight=False)


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
    from workbench.safe_text import visible
    from workbench.session import import_traces as do_import

    t = do_import(root, source, name, fmt_, phoenix_project, query_id_key, add_unknown_documents, ids, max_mb,
                  judge_it, judge_model, judge_samples, doc_id_key=doc_id_key, dry_run=dry_run)
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
        print_trace_runs(t.project, t.tiers, name, bool(r.reranked))
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
    from workbench.safe_text import visible

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


def print_trace_runs(project, tiers, name: str, reranked: bool) -> None:
    """Production's ranking, and its reranked list beside it, on every tier (at the project's K)."""
    from rich.text import Text

    from workbench.session.imports import imported_figures
    from workbench.project.settings import access_k
    from workbench.triage.traces.importer import RERANK_SUFFIX

    names = [name] + ([name + RERANK_SUFFIX] if reranked else [])
    k = access_k(project)
    table = Table(title=Text(f"production per tier (K={k}; n = labelled queries it served): {', '.join('run:' + n for n in names)}"),
                  title_justify="left")
    table.add_column("tier", no_wrap=True)
    table.add_column("n", justify="right")
    for n in names:
        for c in (f"SR@{k}", f"FR@{k}", f"MRR@{k}"):
            table.add_column(Text(f"{c} {'rerank' if n != name else 'run'}"), justify="right", no_wrap=True)
    for row in imported_figures(project, tiers, names):
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
