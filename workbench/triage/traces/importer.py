"""`import-traces`: one trace → one production query, through the existing importers.

Everything is read and checked before anything is written: a malformed file is refused whole
(ProjectError, file:line). Then, in order: unknown documents added (only with
`add_unknown_documents`; new DocIDs after the existing ones, from `document.content`), unknown
queries added unlabelled (`workbench.triage.queries.add_query`: who/when in query_edits.jsonl), the
ranking imported as `run:NAME` and the reranked list as `run:NAME>rerank` (`workbench.triage.runs`),
the answers as `run:NAME:answers` (`workbench.triage.answers.import_answers`), and the traces'
prompts and latencies (store.py). The files handed to those importers are kept under
.workbench/imports/traces/NAME/ (run.jsonl, rerank.jsonl, answers.jsonl): what was imported, in
the importers' own formats. Re-importing the same traces writes the same records: idempotent.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import Container, Literal

import msgspec

from workbench.fsutil import atomic_write_bytes
from workbench.project.files import DOCUMENTS_FILE, Problem, Project, ProjectError, encode_jsonl, query_id_problem, validate
from workbench.project.load import appended_since, load_project, queries_seen
from workbench.records import Document, Hit, Query
from workbench.triage import ledger
from workbench.triage.ledger import ProductionAnswer
from workbench.triage.queries import add_queries
from workbench.triage.runs import RERANK_SUFFIX  # noqa: F401 (its home is runs.py; front ends reach it here)
from workbench.triage.runs import ALL_TIERS, IdSpace, ImportReport, RawRanked, check_name, choose_id_space
from workbench.triage.traces.conventions import ProductionTrace, TraceDoc, traces
from workbench.triage.traces.context import read_context
from workbench.triage.traces.queries_in_prompt import queries_from_prompts
from workbench.triage.traces.resolve import RESOLVED, Resolution, resolve_traces, settle_ranking
from workbench.triage.traces.spans import BOM, Skipped, Span, TraceFileError, decode
from workbench.triage.traces.store import Matched, TraceQuery

SourceFormat = Literal["auto", "otlp", "phoenix"]
DEFAULT_MAX_MB = 64
ADDED_PREFIX = "trace-"


class TraceImport(msgspec.Struct, frozen=True):
    name: str
    source: str
    format: str
    spans: int
    traces: int
    imported: int
    matched_by_id: int
    matched_by_text: int
    added_queries: list[str]
    repeated: int  # traces of a query already seen in this source: the latest kept
    skipped: list[Skipped]
    unknown_documents: list[Problem]  # per document (first span that ranked it)
    added_documents: list[int]
    run: ImportReport | None
    reranked: int
    answers: int
    answers_without_context: int
    resolutions: list[Resolution] = []  # per trace imported: how its documents were resolved
    joined: list[str] = []  # split traces joined by their query id (split.py)
    dry_run: bool = False
    plan: list[tuple[str, str, str, str | None]] = []  # (query id, how matched, trace id, answer)
    changes: list[str] = []  # queries whose slots came from another source before (ledger.Change lines)
    kept: int = 0  # traces the ledger held already (not added twice)
    unresolved_rankings: list[str] = []  # queries whose ranking is unknown (unresolved documents)
    truncated: dict[str, int] = {}  # query → the depth its ranking was truncated at
    undecided: dict[str, str] = {}  # query → why its answer is undecided
    conventions: list[tuple[str, str, list[str]]] = []  # --dry-run: (query id, convention that read its trace, what it lacked)

    @property
    def unresolved_traces(self) -> list[Resolution]:
        return [r for r in self.resolutions if r.counts.get("unresolved")]

    def resolved(self) -> dict[str, int]:
        """Documents per way resolved, over every trace."""
        out: dict[str, int] = {}
        for r in self.resolutions:
            for how, n in r.counts.items():
                out[how] = out.get(how, 0) + n
        return out


def normalise(text: str) -> str:
    """Query text as compared: NFKC, case-folded, whitespace collapsed, end punctuation dropped."""
    t = unicodedata.normalize("NFKC", text).casefold()
    return re.sub(r"\s+", " ", t).strip().rstrip("?!.。 ").strip()


# ------------------------------------------------------------------ reading


def is_url(source: str) -> bool:
    return source.startswith(("http://", "https://"))


def read_spans(source: str, fmt: SourceFormat, phoenix_project: str, max_mb: int) -> tuple[str, list[Span], list[Skipped]]:
    """(format read, spans, skipped spans). A file that is not what it should be: ProjectError."""
    from workbench.triage.traces import otlp, phoenix

    problems: list[Problem] = []
    skipped: list[Skipped] = []
    if is_url(source):
        return "phoenix-server", phoenix.fetch_phoenix(source, phoenix_project, skipped, max_bytes=max_mb * 2**20), skipped
    path = Path(source)
    try:
        size = path.stat().st_size
        if size > max_mb * 2**20:
            raise TraceFileError([Problem(source, None, None, f"{size / 2**20:.0f} MiB, above the limit of {max_mb} MiB "
                                                              "(raise it with --max-mb, or split the export)")])
        raw = path.read_bytes().removeprefix(BOM)  # an editor's byte-order mark is no part of the JSON
    except OSError as exc:
        raise TraceFileError([Problem(source, None, None, f"cannot read: {exc.strerror or exc}")]) from None
    if path.suffix.lower() == ".parquet" or raw[:4] == b"PAR1":
        spans = phoenix.read_phoenix_parquet(path, problems, skipped)
        return "phoenix-parquet", spans, skipped
    kind = fmt if fmt != "auto" else sniff(raw)
    if kind is None:
        bad = malformed_line(path, raw)
        if bad is not None:
            raise TraceFileError([bad])
        raise TraceFileError([Problem(source, 1 if raw.strip() else None, None,
                                    "neither OTLP JSON (resourceSpans) nor a Phoenix span export (context.span_id)"
                                    if raw.strip() else "empty: no spans")])
    spans = otlp.read_otlp(path, raw, problems, skipped) if kind == "otlp" else phoenix.read_phoenix_jsonl(path, raw, problems, skipped)
    if problems:
        raise TraceFileError(problems)
    return kind, spans, skipped


def malformed_line(path: Path, raw: bytes) -> Problem | None:
    """The first line that is meant as JSON and is not (a truncated export), if any."""
    for lineno, line in enumerate(raw.split(b"\n"), start=1):
        if line.strip().startswith(b"{"):
            try:
                decode(line)
            except msgspec.DecodeError as exc:
                return Problem(str(path), lineno, None, f"malformed JSON: {exc}")
    return None


def sniff(raw: bytes) -> SourceFormat | None:
    from workbench.triage.traces.otlp import is_otlp
    from workbench.triage.traces.phoenix import is_phoenix_row

    for candidate in (raw, *raw.split(b"\n")):
        if not candidate.strip():
            continue
        try:
            doc = decode(candidate)
        except msgspec.DecodeError:
            continue
        if is_otlp(doc):
            return "otlp"
        if is_phoenix_row(doc):
            return "phoenix"
        return None
    return None


# ------------------------------------------------------------------ matching


class Plan(msgspec.Struct):
    """Which project query each trace is, before anything is written."""

    chosen: dict[str, tuple[ProductionTrace, Matched]]  # query id → (latest trace, how matched)
    new_texts: dict[str, str]  # new query id → text
    repeated: int


def added_id(trace: ProductionTrace, taken: Container[str]) -> str:
    if trace.query_id and query_id_problem(trace.query_id) is None and trace.query_id not in taken:
        return trace.query_id
    base = f"{ADDED_PREFIX}{trace.trace_id[:12]}"
    qid, n = base, 1
    while qid in taken:
        n += 1
        qid = f"{base}-{n}"
    return qid


class _QueryIndex:
    """The project's query ids and normalised texts, extended (not rebuilt) when a later load holds the
    same queries with more appended (project/load.py reuses the parsed queries of a grown file): a live
    collection adding production's queries batch after batch matches each batch in its own cost."""

    __slots__ = ("seen", "known", "by_text")

    def __init__(self) -> None:
        self.seen = queries_seen([])
        self.known: set[str] = set()
        self.by_text: dict[str, str] = {}

    def update(self, queries: list[Query]) -> "_QueryIndex":
        new = appended_since(self.seen, queries)
        if new is None:
            self.__init__()  # type: ignore[misc]
            new = queries
        for q in new:
            self.known.add(q.query_id)
            self.by_text.setdefault(normalise(q.query), q.query_id)
        self.seen = queries_seen(queries)
        return self


_INDEXES: dict[str, _QueryIndex] = {}


class _Either:
    """``in`` either container (the project's ids or the batch's added ones), without their union."""

    def __init__(self, *parts: Container[str]) -> None:
        self.parts = parts

    def __contains__(self, item: object) -> bool:
        return any(item in p for p in self.parts)


def match(project: Project, found: list[ProductionTrace]) -> Plan:
    index = _INDEXES.setdefault(str(project.root), _QueryIndex()).update(project.original_queries)
    known = index.known
    chosen: dict[str, tuple[ProductionTrace, Matched]] = {}
    new_texts: dict[str, str] = {}
    new_by_text: dict[str, str] = {}  # the batch's own added queries, beside the project's (not copied)
    taken = _Either(known, new_texts)
    repeated = 0
    for t in sorted(found, key=lambda t: (t.start_ns, t.trace_id)):  # later traces of a query replace earlier
        how: Matched
        text = normalise(t.query_text)
        if t.query_id is not None and t.query_id in known:
            qid, how = t.query_id, "id"
        elif text in index.by_text:
            qid, how = index.by_text[text], "text"
        elif text in new_by_text:
            qid, how = new_by_text[text], "added"
        else:
            qid, how = added_id(t, taken), "added"
            new_texts[qid] = t.query_text
            new_by_text[text] = qid
        repeated += qid in chosen
        chosen[qid] = (t, how)
    return Plan(chosen, new_texts, repeated)


# ------------------------------------------------------------------ documents


def trace_docs(t: ProductionTrace) -> list[TraceDoc]:
    return [*(t.ranking or []), *(t.reranked or [])]


def map_documents(project: Project, plan: Plan, ids: IdSpace) -> tuple[dict[str, int], dict[str, tuple[str, TraceDoc]]]:
    """(trace document id → DocID, unknown id → (first trace location, the document))."""
    def spanned(d: TraceDoc) -> bool:  # an id the span carried (not one resolved here, not none)
        return d.id is not None and not d.id.startswith(RESOLVED)

    raw = [RawRanked(qid, [d.id for d in trace_docs(t) if spanned(d)], [], []) for qid, (t, _) in plan.chosen.items()]  # type: ignore[misc]
    _, mapping = choose_id_space(raw, project, ids)
    unknown: dict[str, tuple[str, TraceDoc]] = {}
    for t, _ in plan.chosen.values():
        for d in trace_docs(t):
            if d.id is not None and d.id.startswith(RESOLVED):
                mapping[d.id] = int(d.id.removeprefix(RESOLVED))
            elif d.id is not None and d.id not in mapping and d.id not in unknown:
                unknown[d.id] = (t.where, d)
    return mapping, unknown


def add_documents(project: Project, unknown: dict[str, tuple[str, TraceDoc]], mapping: dict[str, int]) -> list[int]:
    """Unknown documents that carry their text, appended with new DocIDs (documents.jsonl rewritten atomically)."""
    from workbench.fsutil import project_lock

    # read-modify-write of documents.jsonl: under the project lock, from the file as it is now (not
    # ``project``, loaded before the lock), so two imports at once both land, with distinct DocIDs
    with project_lock(project.root):
        project = load_project(project.root)
        have = {d.source_id: d.doc_id for d in project.documents.values() if d.source_id is not None}
        domains = project.domains
        next_id = max(project.documents, default=-1) + 1
        new = []
        for did, (_, d) in unknown.items():
            if did in have:  # added meanwhile by another import of the same document
                mapping[did] = have[did]
                continue
            if not (d.content and d.content.strip()):
                continue
            new.append(Document(doc_id=next_id, title=d.title or did, text=d.content, domain=domains[0] if len(domains) == 1 else "",
                                source_id=did))
            mapping[did] = next_id
            next_id += 1
        if new:
            docs = [*project.documents.values(), *new]
            path = project.root / DOCUMENTS_FILE
            problems = validate(list(enumerate(docs, 1)), [], str(path), "")
            if problems:
                raise ProjectError(problems)
            atomic_write_bytes(path, encode_jsonl(docs))
    return [d.doc_id for d in new]


# ------------------------------------------------------------------ writing


def kept_hits(docs: list[TraceDoc], mapping: dict[str, int]) -> list[Hit]:
    """Production's documents as DocIDs, in its order: an unknown document left out; the same document
    twice (two chunks) at its first rank; no score recorded: the rank order itself (as import-run makes it)."""
    kept: list[tuple[int, float | None]] = []
    seen: set[int] = set()
    for d in docs:
        if d.id is not None and d.id in mapping and mapping[d.id] not in seen:
            seen.add(mapping[d.id])
            kept.append((mapping[d.id], d.score))
    scored = any(s is not None for _, s in kept)
    return [Hit(doc, s if scored and s is not None else float(len(kept) - i)) for i, (doc, s) in enumerate(kept)]


def ledger_rows(plan: Plan, mapping: dict[str, int], source: str, first_added: set[str]) -> list[ledger.NewRow]:
    """One ledger row per chosen trace: its ranking (unknown when documents could not be resolved,
    with the depth it was truncated at), reranked list, answer (undecided with why) and the trace itself."""
    rows = []
    enc = msgspec.json.Encoder()
    for qid, (t, how) in sorted(plan.chosen.items()):
        how = "added" if qid in first_added else how
        context = [mapping[i] for i in t.context_ids or [] if i in mapping]
        answer = (ProductionAnswer(qid, t.answer, context, t.context_ids is not None, t.llm_latency_s, t.answer_undecided)
                  if t.answer is not None else None)
        ranking = kept_hits(t.ranking, mapping) if t.ranking else None
        entry = ledger.Entry(
            qid, ranking=None if t.ranking_unresolved else ranking,
            reranked=kept_hits(t.reranked, mapping) if t.reranked else None,
            depth=t.ranking_depth if ranking is not None and not t.ranking_unresolved else None,
            unresolved=bool(t.ranking and t.ranking_unresolved), answer=answer,
            trace=TraceQuery(qid, t.trace_id, how, t.where, t.prompt, t.answer, t.llm_latency_s, t.trace_latency_s, context,
                             start_ns=t.start_ns or 0))
        rows.append(ledger.NewRow("traces", source, entry, parsed=enc.encode(t)))
    return rows


def import_traces(root: Path, source: str, name: str, fmt: SourceFormat = "auto", phoenix_project: str = "default",
                  query_id_key: str = "query_id", add_unknown_documents: bool = False, ids: IdSpace = "auto",
                  max_mb: int = DEFAULT_MAX_MB, doc_id_key: str | None = None, dry_run: bool = False) -> TraceImport:
    """Spans read from ``source`` (a file or a Phoenix URL), then imported (import_spans)."""
    check_name(name)
    kind, spans, skipped = read_spans(source, fmt, phoenix_project, max_mb)
    return import_spans(root, spans, skipped, source, kind, name, query_id_key, add_unknown_documents, ids,
                        doc_id_key=doc_id_key, dry_run=dry_run)


def import_spans(root: Path, spans: list[Span], skipped: list[Skipped], source: str, kind: str, name: str,
                 query_id_key: str = "query_id", add_unknown_documents: bool = False, ids: IdSpace = "auto", *,
                 doc_id_key: str | None = None, dry_run: bool = False) -> TraceImport:
    """import_spans_loaded's import, without the project."""
    return import_spans_loaded(root, spans, skipped, source, kind, name, query_id_key, add_unknown_documents, ids,
                               doc_id_key=doc_id_key, dry_run=dry_run)[0]


def import_spans_loaded(root: Path, spans: list[Span], skipped: list[Skipped], source: str, kind: str, name: str,
                        query_id_key: str = "query_id", add_unknown_documents: bool = False, ids: IdSpace = "auto", *,
                        doc_id_key: str | None = None, dry_run: bool = False) -> tuple[TraceImport, Project | None]:
    """Spans already read (from a file, a Phoenix server, or the live receiver) imported as
    run:NAME, run:NAME>rerank and run:NAME:answers: added to the production ledger (one transaction,
    committed when this returns), each query's slots replacing what an earlier source said (reported
    in ``changes``); ``source`` names where they came from. One project load (two when documents are added).
    ``doc_id_key``: the document metadata key holding production's document id (resolve.py).
    ``dry_run``: everything read, matched and resolved, nothing written. Returns the import and the
    project as it stands after it when the import loaded it so (None: it added queries: load it again)."""
    check_name(name)
    spans = distinct_spans(spans)
    joined: list[str] = []
    found, not_understood = traces(spans, query_id_key, joined)
    skipped = [*skipped, *not_understood]
    if not found:
        raise TraceFileError([Problem(source, None, None, "no trace with a retriever or LLM span was understood")]
                           + [Problem(s.where, None, None, s.reason) for s in skipped])
    project = load_project(root)
    found, resolutions = resolve_traces(project, found, doc_id_key)
    found, no_query = queries_from_prompts(project, found)  # issue 39: a trace naming no query: the one its prompt asks
    skipped = [*skipped, *no_query]
    plan = match(project, found)
    mapping, unknown = map_documents(project, plan, ids)
    chosen_ids = {t.trace_id for t, _ in plan.chosen.values()}
    resolutions = [r for r in resolutions if r.trace_id in chosen_ids]
    if dry_run:
        with_context(project, plan, mapping)
        return TraceImport(
            name=name, source=source, format=kind, spans=len(spans), traces=len(found) + len(not_understood),
            imported=len(plan.chosen), matched_by_id=sum(h == "id" for _, h in plan.chosen.values()),
            matched_by_text=sum(h == "text" for _, h in plan.chosen.values()), added_queries=list(plan.new_texts),
            repeated=plan.repeated, skipped=skipped, unknown_documents=unknown_problems(unknown),
            added_documents=[], run=None, reranked=0, answers=sum(t.answer is not None for t, _ in plan.chosen.values()),
            answers_without_context=sum(t.answer is not None and t.context_ids is None for t, _ in plan.chosen.values()),
            resolutions=resolutions, dry_run=True, joined=joined,
            plan=[(qid, how, t.trace_id, t.answer) for qid, (t, how) in sorted(plan.chosen.items())],
            conventions=trace_conventions(plan)), project
    added_docs = add_documents(project, unknown, mapping) if add_unknown_documents else []
    if plan.new_texts:
        add_queries(root, [(qid, text) for qid, text in plan.new_texts.items()], same=normalise)
    if added_docs:
        project = load_project(root)  # the documents just added are read in prompts and quoted as context
    with_context(project, plan, mapping)
    before = ledger.latest_rows(project, name, sorted(plan.chosen))
    first_added = {qid for (qid, slot), row in before.items()
                   if slot == "trace" and row.entry.trace is not None and row.entry.trace.matched == "added"}
    rows = ledger_rows(plan, mapping, source, first_added)
    added = ledger.add(project, name, rows)
    ranked = [r.entry for r in rows if r.entry.ranking is not None or r.entry.unresolved]
    served = ledger.served_ids(project, name)
    run_report = ImportReport(
        name=name, tier=ALL_TIERS, id_space="source", queries=len(ranked), hits=sum(len(e.ranking or []) for e in ranked),
        unknown_doc_ids=0, unknown_query_ids=0,
        queries_without_ranking=sum(q.query_id not in served for q in project.queries) + sum(q not in served for q in plan.new_texts),
        problems=[], changes=[c.line() for c in added.changes], kept=added.kept) if served else None
    answers = [r.entry.answer for r in rows if r.entry.answer is not None]
    unknown_left = {k: v for k, v in unknown.items() if k not in mapping}
    return TraceImport(
        name=name, source=source, format=kind, spans=len(spans), traces=len(found) + len(not_understood),
        imported=len(plan.chosen), matched_by_id=sum(h == "id" for _, h in plan.chosen.values()),
        matched_by_text=sum(h == "text" for _, h in plan.chosen.values()), added_queries=list(plan.new_texts),
        repeated=plan.repeated, skipped=skipped,
        unknown_documents=unknown_problems(unknown_left),
        added_documents=added_docs, run=run_report, reranked=sum(r.entry.reranked is not None for r in rows), answers=len(answers),
        answers_without_context=sum(1 for a in answers if not a.has_context), resolutions=resolutions, joined=joined,
        plan=[(r.entry.query_id, r.entry.trace.matched, r.entry.trace.trace_id, r.entry.trace.answer) for r in rows if r.entry.trace],
        changes=[c.line() for c in added.changes], kept=added.kept, unresolved_rankings=[e.query_id for e in ranked if e.unresolved],
        truncated={e.query_id: e.depth for e in ranked if e.depth is not None},
        undecided={a.query_id: a.undecided for a in answers if a.undecided}), None if plan.new_texts else project


def trace_conventions(plan: Plan) -> list[tuple[str, str, list[str]]]:
    """--dry-run, per trace: which convention read it and what it lacked (issue 39)."""
    return [(qid, t.convention or "?", list(t.missing)) for qid, (t, _) in sorted(plan.chosen.items())]


def distinct_spans(spans: list[Span]) -> list[Span]:
    """One span per (trace id, span id): the same span exported twice (a retry) counts once; two
    different spans under one id are refused, naming both (which one production meant is unknowable)."""
    seen: dict[tuple[str, str], Span] = {}
    problems: list[Problem] = []
    out = []
    for s in spans:
        key = (s.trace_id, s.span_id)
        first = seen.get(key)
        if first is None:
            seen[key] = s
            out.append(s)
        elif msgspec.structs.replace(first, where="") != msgspec.structs.replace(s, where=""):
            problems.append(Problem(s.where, None, "spanId", f"span id {s.span_id} of trace {s.trace_id} is also "
                                    f"{first.where} ({first.name!r}), a different span ({s.name!r})"))
    if problems:
        raise TraceFileError(problems)
    return out


def unknown_problems(unknown: dict[str, tuple[str, TraceDoc]]) -> list[Problem]:
    return [Problem(where, None, "document.id", f"document {did!r} is not in the corpus"
                    + ("" if d.content else " (and the span has no document.content to add it from)"))
            for did, (where, d) in unknown.items()]


def with_context(project: Project, plan: Plan, mapping: dict[str, int]) -> None:
    """Each chosen trace's context: the documents its prompt quotes (context.py), once resolved."""
    for qid, (t, how) in plan.chosen.items():
        ctx = read_context(project, t.stage, t.prompt, mapping) if t.stage is not None else None
        plan.chosen[qid] = (msgspec.structs.replace(settle_ranking(t, mapping), context_ids=ctx), how)
