"""Production's answers imported (`import-answers`): written as a use run, decided, judged unless
asked not to. The front end prints the figures (cli/triage.py: answers_summary)."""

from __future__ import annotations

import msgspec

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.llm.records import TierRun
    from workbench.project.files import Problem, Project
    from workbench.records import Tier
    from workbench.triage.answers import ImportedAnswers
    from workbench.triage.traces.importer import TraceImport
    from workbench.triage.traces.spans import Skipped, Span


class AnswersImport(msgspec.Struct, frozen=True):
    """The import's record (answers, unknown IDs), its problems, and the use run (judged or not)."""

    project: Project
    record: ImportedAnswers
    problems: list[Problem]
    run: TierRun


def import_answers(root: Path, file: Path, name: str, judge: bool = True, judge_model: str | None = None,
                   judge_samples: int = 3) -> AnswersImport:
    """The answers of ``file`` as run:NAME:answers on the full tier; judged with the project's judge
    (``judge_model`` None: workbench.toml's, else the embedded model) unless ``judge`` is off."""
    from workbench.access.ladder import ensure_tiers
    from workbench.project.load import load_project
    from workbench.triage.answers import current_run, full_tier
    from workbench.triage.answers import import_answers as do_import

    project = load_project(root)
    tier = full_tier(ensure_tiers(project).tiers)
    record, problems = do_import(project, file, name)
    if judge:
        import asyncio  # only when judging: the models' clients are heavy

        run = asyncio.run(judge_answers(project, record, tier, judge_model, judge_samples))
    else:
        run = current_run(project, record, tier, None)
    return AnswersImport(project, record, problems, run)


async def judge_answers(project, record, tier, judge_model, samples):
    """The answers' use run judged; answers the stored run judged already (same answer, same judge)
    keep their scores: only what arrived since is judged. Runs outside the project lock."""
    from workbench.llm.store import LLMRunStore
    from workbench.triage.answers import current_run, with_judgements
    from workbench.llm.providers import open_client, resolve_judge, resolve_model
    from workbench.llm.tasks import TaskOptions, judge_key, model_identity, judge_run  # the judge's identity keys its scores

    name, cfg = resolve_judge(project, resolve_model(project, None)[0], judge_model)
    store = LLMRunStore(project)
    previous = store.load(record.system, tier.name)
    run = current_run(project, record, tier, name, [model_identity(cfg), samples], store)
    if not run.complete:
        opts = TaskOptions(task="qa", judge_samples=samples)
        carried = with_judgements(run, previous, lambda qid: judge_key((name, cfg), opts, project.query(qid)))
        if carried != run:
            store.save(carried)
            run = carried
    if run.complete:
        return run
    async with open_client(project, name, cfg) as client:
        return await judge_run(project, run, client, samples)


class TracesImport(msgspec.Struct, frozen=True):
    """What `import-traces` (and the live receiver) brought: the import's record, the project as it
    is now, its tiers, and the production answers' use run (judged or not; None: no answer)."""

    project: Project
    imported: TraceImport
    tiers: list[Tier]
    answers: TierRun | None


def import_traces(root: Path, source: str, name: str, fmt: str = "auto", phoenix_project: str = "default",
                  query_id_key: str = "query_id", add_unknown_documents: bool = False, ids: str = "auto",
                  max_mb: int = 64, judge: bool = True, judge_model: str | None = None, judge_samples: int = 3,
                  spans: tuple[list[Span], list[Skipped], str] | None = None, doc_id_key: str | None = None,
                  dry_run: bool = False, use_run: bool = True) -> TracesImport:
    """Production traces from ``source`` (a file or a Phoenix URL) — or ``spans`` already read
    (spans, skipped, format: the live receiver hands only the traces that just became ready) — ADDED
    to run:NAME, run:NAME>rerank and run:NAME:answers in the production ledger (the latest per query
    across every source; a trace already there is not added twice); the answers judged unless
    ``judge`` is off (outside the project lock; only answers not judged before). ``doc_id_key``: the document
    metadata key holding production's document id; ``dry_run``: read, match and resolve, write nothing;
    ``use_run`` off (the live import, not judging): the answers' use run is not built (nothing reads
    it there, and building it reads every answer stored: a batch would cost the whole collection)."""
    from workbench.access.ladder import ensure_tiers
    from workbench.project.load import load_project
    from workbench.triage.answers import current_run, full_tier, load_answers
    from workbench.triage.runs import check_name
    from workbench.triage.traces import importer

    if spans is None:
        check_name(name)
        kind, read, skipped = importer.read_spans(source, fmt, phoenix_project, max_mb)  # type: ignore[arg-type]
        spans = (read, skipped, kind)
    r, project = importer.import_spans_loaded(root, spans[0], spans[1], source, spans[2], name, query_id_key,
                                              add_unknown_documents, ids, doc_id_key=doc_id_key, dry_run=dry_run)  # type: ignore[arg-type]
    if project is None:
        project = load_project(root)  # as the import left it (the queries it added)
    if dry_run:
        return TracesImport(project, r, [], None)
    tiers = list(ensure_tiers(project).tiers)
    if r.imported > r.kept:  # something new: what the run store held of run:NAME is stale
        drop_stale_views(project, tiers, name)
    record = load_answers(project, name) if r.answers and (judge or use_run) else None
    run = None
    if record is not None:
        tier = full_tier(tiers)
        if judge:
            import asyncio  # only when judging: the models' clients are heavy

            run = asyncio.run(judge_answers(project, record, tier, judge_model, judge_samples))
        else:
            run = current_run(project, record, tier, None)
    return TracesImport(project, r, tiers, run)


def drop_stale_views(project: Project, tiers: list[Tier], name: str) -> None:
    """run:NAME's and run:NAME>rerank's stored runs, made before this batch, removed: a reader of the
    run store (the inspector, the overview) never shows a stale production ranking. The next reader
    that needs them (diagnose, eval, export-trec, the TUI's diagnosis) stores them again from the
    ledger; rewriting them here would cost every batch the whole view again (a collection's cost
    quadratic once more)."""
    from workbench.access.runs import RunStore
    from workbench.triage.runs import RERANK_SUFFIX, SYSTEM_PREFIX

    store = RunStore(project)
    for system in (SYSTEM_PREFIX + name, SYSTEM_PREFIX + name + RERANK_SUFFIX):
        for t in tiers:
            path = store.path(system, t.name)
            for stale in (path, store.index_path(path)):
                try:
                    stale.unlink()
                except FileNotFoundError:
                    pass


def since_ns(text: str, now_ns: int | None = None) -> int:
    """`--since` as Unix ns: an ISO 8601 date or time (UTC unless it says otherwise: `2026-12-02`,
    `2026-12-02T09:30`, `…+01:00`), `today` (since midnight UTC), or a span back from now (`90m`,
    `2h`, `1d`, `1w`)."""
    import datetime as dt
    import re
    import time

    from workbench.errors import BadInput

    now = time.time_ns() if now_ns is None else now_ns
    word = text.strip().lower()
    span = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(s|m|min|h|d|w)", word)
    too_far = BadInput(f"--since {text!r}: further back than a date can be", title="Bad --since",
                       hint="a span back from now within the calendar (e.g. 90m, 2h, 30d, 52w) or an ISO date")
    if span:
        unit = {"s": 1, "m": 60, "min": 60, "h": 3600, "d": 86400, "w": 604800}[span.group(2)]
        back = float(span.group(1)) * unit
        if back > (now / 1e9 - dt.datetime(1, 1, 2, tzinfo=dt.timezone.utc).timestamp()):
            raise too_far  # before year 1: no trace began then, and a date cannot say it
        return now - int(back * 1e9)
    if word == "today":
        day = dt.datetime.fromtimestamp(now / 1e9, dt.timezone.utc).date()
        return int(dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc).timestamp()) * 1_000_000_000
    try:
        when = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise BadInput(f"--since {text!r}: not a time", title="Bad --since",
                       hint="an ISO date or time (2026-12-02, 2026-12-02T09:30Z), `today`, or a span back from now (90m, 2h, 1d)") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    try:
        return int(when.timestamp() * 1e9)
    except (OverflowError, ValueError):
        raise too_far from None


class ProductionWindow(msgspec.Struct, frozen=True):
    """The production queries whose trace began at or after ``since_ns`` (every trace import), and
    how many traces had no start time (imported before start times were kept: left out, said)."""

    since_ns: int
    query_ids: list[str]
    unknown_start: int


def production_since(project: Project, since: int) -> ProductionWindow:
    """What failed in production since a time: the queries of the traces that began then or later."""
    from workbench.triage.traces.store import all_traces

    chosen: set[str] = set()
    unknown = 0
    for record in all_traces(project):
        for q in record.queries:
            if not q.start_ns:
                unknown += 1
            elif q.start_ns >= since:
                chosen.add(q.query_id)
    return ProductionWindow(since, [q.query_id for q in project.queries if q.query_id in chosen], unknown)
