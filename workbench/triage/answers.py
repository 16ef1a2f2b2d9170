"""What production really answered, imported as a use run `run:<name>:answers`.

Input JSONL, one line per query: `{query_id, answer, context_doc_ids?, latency_s?}` (context IDs
in the project's source ids or DocIDs, mapped like an imported run's). The file is kept as an
ImportedAnswers record (.workbench/imports/answers/<name>.json); its use run is a TierRun on the
`full` tier (production answers from its whole collection) in the LLM run store, so `eval` lists it
beside the models' QA rows. Answers get the deterministic matches and decision at once
(workbench/correctness.py: exact / contains against the gold, its canonical head and aliases;
right / wrong / undecided) and the same judge (`judge_run`) when asked. The diagnosis makes
production a system of its own (`run:<name>:answers`): with `context_doc_ids` it says whether the
gold evidence was in what production read (access) and whether the answer used it (use).

Refused at import, as `file:line: field: message` (nothing written): a line that is not an object
of these fields (an answer that is null or not a string), a second answer for one query, a latency
that is negative or not a finite number.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec

from workbench.triage.runs import check_name, choose_id_space, RawRanked
from workbench.fsutil import safe_name, sha256_bytes
from workbench.triage.ledger import ProductionAnswer
from workbench.correctness import answer_matches
from workbench.llm.prompts import is_refusal
from workbench.llm.records import QAResult, TierRun
from workbench.llm.store import LLMRunStore
from workbench.project.files import Problem, Project, ProjectError, iter_jsonl
from workbench.records import Tier
from workbench.access.runs import run_key, tier_docs_hash, tier_hash

ANSWERS_DIR = Path("imports") / "answers"
# Production read what its own retriever found, then answered: a retrieve-then-read run.
TASK = "rag"


class _AnswerLine(msgspec.Struct):
    query_id: str | int
    answer: str
    context_doc_ids: list[str | int] | None = None
    latency_s: float | None = None


class ImportedAnswers(msgspec.Struct, frozen=True):
    name: str
    source: str
    sha: str
    imported_at: float
    answers: list[ProductionAnswer]
    unknown_doc_ids: int = 0
    unknown_query_ids: int = 0
    changes: list[str] = []  # queries whose answer came from another source before (said by the command)

    @property
    def system(self) -> str:
        return f"run:{self.name}:answers"


def answers_path(project: Project, name: str) -> Path:
    """Where an import record of answers was kept before the ledger (read once into it: ledger.migrate)."""
    return project.state_dir / ANSWERS_DIR / f"{safe_name(name)}.json"


def load_answers(project: Project, name: str) -> ImportedAnswers | None:
    """run:NAME's answers as the ledger holds them now (per query, the latest from any source), or None."""
    from workbench.triage import ledger

    v = ledger.view(project, name)
    rows = sorted(v.slot("answer").values(), key=lambda r: r.id)
    if not rows:
        return None
    answers = [r.entry.answer for r in rows if r.entry.answer is not None]
    info = v.latest_info("import-answers")
    return ImportedAnswers(name, rows[-1].source, sha256_bytes(msgspec.json.encode(answers))[:16], max(r.added_at for r in rows),
                           answers, info.unknown_doc_ids if info else 0, info.unknown_query_ids if info else 0)


def import_answers(project: Project, path: Path, name: str) -> tuple[ImportedAnswers, list[Problem]]:
    """Malformed lines fail the import (nothing written); unknown query or document IDs are
    returned as problems (file:line) and counted in the record. The answers are added to the
    ledger; the record returned is run:NAME's answers now (every source's latest)."""
    from workbench.triage import ledger

    check_name(name)
    problems: list[Problem] = []
    rows = list(iter_jsonl(path, _AnswerLine, problems))
    problems += line_problems(str(path), rows)
    if problems:
        raise ProjectError(problems)
    raw = [RawRanked(str(r.query_id), [str(i) for i in r.context_doc_ids or []], [], []) for _, r in rows]
    _, mapping = choose_id_space(raw, project, "auto")
    known = {q.query_id for q in project.queries}
    unknown: list[Problem] = []
    answers, n_docs, n_queries = [], 0, 0
    for lineno, r in rows:
        qid = str(r.query_id)
        if qid not in known:
            n_queries += 1
            unknown.append(Problem(str(path), lineno, "query_id", f"query {qid!r} is not in the project"))
            continue
        ids = []
        for d in (str(i) for i in r.context_doc_ids or []):
            if d in mapping:
                ids.append(mapping[d])
            else:
                n_docs += 1
                unknown.append(Problem(str(path), lineno, "context_doc_ids", f"document {d!r} is not in the corpus"))
        answers.append(ProductionAnswer(qid, r.answer, ids, r.context_doc_ids is not None, r.latency_s))
    added = ledger.add(project, name, [ledger.NewRow("import-answers", str(path), ledger.Entry(a.query_id, answer=a)) for a in answers],
                       [("import-answers", str(path), ledger.ALL_TIERS, ledger.ImportInfo(unknown_doc_ids=n_docs, unknown_query_ids=n_queries))])
    record = load_answers(project, name)
    assert record is not None  # just added
    return msgspec.structs.replace(record, changes=[c.line() for c in added.changes]), unknown


def line_problems(file: str, rows: list[tuple[int, _AnswerLine]]) -> list[Problem]:
    """What decodes but cannot be right: one query answered twice, a latency below zero or not finite."""
    out: list[Problem] = []
    first: dict[str, int] = {}
    for lineno, r in rows:
        qid = str(r.query_id)
        if qid in first:
            out.append(Problem(file, lineno, "query_id", f"a second answer for query {qid!r} (the first is on line {first[qid]})"))
        else:
            first[qid] = lineno
        if r.latency_s is not None and (not math.isfinite(r.latency_s) or r.latency_s < 0):
            out.append(Problem(file, lineno, "latency_s", f"must be a finite number of seconds ≥ 0, not {r.latency_s!r}"))
    return out


def full_tier(tiers: list[Tier]) -> Tier:
    return next(t for t in tiers if t.kind == "full")


def answers_run(project: Project, record: ImportedAnswers, tier: Tier, judge: str | None, judge_key: object = None) -> TierRun:
    """The use run of these answers: deterministic matches now, judge scores pending. Queries
    without a reference answer cannot be judged and are left out (the record keeps them)."""
    qa = []
    for a in record.answers:
        if not project.has_query(a.query_id):
            continue  # left out of the loaded query-set version
        q = project.query(a.query_id)
        if not q.answer.strip():
            continue
        exact, contains = answer_matches(q, a.answer)
        qa.append(QAResult(
            query_id=a.query_id, answer=a.answer, refusal=is_refusal(a.answer),
            judge_scores=[], judge_median=None, judge_spread=None, judge_failures=0, judge_failure=False,
            exact=exact, contains=contains,
            prompt_tokens=0, completion_tokens=0, latency_s=a.latency_s or 0.0, context_doc_ids=a.context_doc_ids,
        ))
    references = sorted((r.query_id, project.query(r.query_id).answer, project.query(r.query_id).canonical_answer,
                         project.query(r.query_id).answer_aliases) for r in qa)
    return TierRun(
        system=record.system, model=record.name, task=TASK, variant="standard", tier=tier.name,
        tier_hash=tier_hash(project, tier), key=run_key("production-answers", record.sha, judge, judge_key, references),
        fits=True, input_tokens=0, budget_tokens=0, judge=judge, k=0, qa=qa, complete=judge is None,
        # current by the tier's documents (not its query set): an added query keeps every verdict
        docs_hash=tier_docs_hash(project, tier),
    )


def current_run(project: Project, record: ImportedAnswers, tier: Tier, judge: str | None, judge_key: object = None,
                store: LLMRunStore | None = None) -> TierRun:
    """The stored use run if current (a judged or partly judged run resumes), else a fresh one, saved."""
    store = store or LLMRunStore(project)
    fresh = answers_run(project, record, tier, judge, judge_key)
    stored = store.load_if_current(record.system, tier, fresh.key)
    if stored is not None:
        return stored
    store.save(fresh)
    return fresh


def with_judgements(run: TierRun, previous: TierRun | None, expected: Callable[[str], str]) -> TierRun:
    """``run`` with the judgements ``previous`` holds for the same answers by the same judge
    (``expected(query_id)``: tasks.judge_key of the judge now): answers that arrived since are the only
    ones left to judge, so a live collection never judges an answer twice."""
    if previous is None:
        return run
    old = {(r.query_id, r.answer): r for r in previous.qa if r.judged and r.judge_key}
    judged = ("judge_scores", "judge_median", "judge_spread", "judge_failures", "judge_failure", "judge_raw",
              "judge_prompt_tokens", "judge_completion_tokens", "judged", "judge_key")
    qa = []
    for r in run.qa:
        o = old.get((r.query_id, r.answer))
        if not r.judged and o is not None and o.judge_key == expected(r.query_id):
            r = msgspec.structs.replace(r, **{f: getattr(o, f) for f in judged})
        qa.append(r)
    return msgspec.structs.replace(run, qa=qa, complete=all(r.judged for r in qa))


# Why such an answer is shown undecided (the report's query page, the inspector).
LEFT_OUT_BASIS = "no reference answer for this query: not judged (label its answer to decide)"


def answer_records(project: Project) -> Iterator[tuple[Path, ImportedAnswers | Exception]]:
    """Every run's production answers in the ledger: (the ledger, the record), or why it does not load."""
    from workbench.triage import ledger

    path = ledger.ledger_path(project)
    try:
        names = ledger.names(project)
    except ledger.LedgerError as exc:
        yield path, exc
        return
    for name in names:
        record = load_answers(project, name)
        if record is not None:
            yield path, record


def answers_left_out(project: Project, query_id: str) -> list[tuple[str, ProductionAnswer]]:
    """Production's imported answers to ``query_id`` that no use run holds because the query has no
    reference answer (one a trace added, unlabelled): (system, answer) per import record, so a
    page can still show what production answered."""
    if not project.has_query(query_id) or project.query(query_id).answer.strip():
        return []
    return [(record.system, a) for _, record in answer_records(project) if not isinstance(record, Exception)  # named by restore_answer_runs
            for a in record.answers if a.query_id == query_id]


def restore_answer_runs(project: Project, tiers: list[Tier]) -> list[str]:
    """Every imported answers record's use run on the full tier, rebuilt from the record when its
    stored file is missing or does not decode (its answers would otherwise vanish from diagnose and
    eval without a word); a record that does not load is named. Returns the systems rebuilt.

    The rebuilt run carries the deterministic matches; its judge scores are pending (rerun
    `import-answers` or `import-traces` to judge again)."""
    from workbench.fsutil import log, set_aside

    full = next((t for t in tiers if t.kind == "full"), None)
    if full is None:
        return []
    store = LLMRunStore(project)
    rebuilt = []
    for path, record in answer_records(project):
        if isinstance(record, Exception):
            log.warning("%s: does not load (%s); these production answers are left out until imported again "
                        "(workbench import-answers)", path, record)
            continue
        run_path = store.path(record.system, full.name)
        if run_path.is_file() and store.load(record.system, full.name) is not None:
            continue
        if run_path.is_file():
            set_aside(run_path, "does not decode")
        store.save(answers_run(project, record, full, None))
        log.warning("%s: rebuilt from the import record %s (judge scores pending: import the answers again to judge)",
                    run_path, path)
        rebuilt.append(record.system)
    return rebuilt


def gold_in_context(project: Project, answer: ProductionAnswer) -> tuple[int, int] | None:
    """(gold documents production read, gold documents) — None when unlabelled or no context given."""
    gold = project.query(answer.query_id).gold_doc_ids if project.has_query(answer.query_id) else []
    if not gold or not answer.has_context:
        return None
    return len(set(gold) & set(answer.context_doc_ids)), len(gold)
