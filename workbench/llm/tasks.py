"""The use-side tasks for one (model, tier, task) over the tier's queries.

  localize  the tier in a seeded shuffled order, "[DocID=N]" headers; up to K DocIDs back,
            canonicalised (docids.py), stored as a SystemRun scored like any retriever
  qa        the same context; a short answer judged 0–5 (standard or strict prompt)
  oracle    the query's gold documents only
  rag       the top-k documents of a stored retriever run on the same tier
  nearmiss  the query's gold documents and its hard negatives, in a seeded shuffled order, nothing
            else (the near-miss arm: wrong here = the near misses alone mislead the model)

One shuffled order per (seed, tier) — not per query — so the context is a shared prompt prefix
that an inference server caches across the tier's queries; the query comes after it.

Window-aware: the largest input (prompt + context + query + answer budget), counted with the
model's budgeting tokenizer, must fit context_window × (1 − safety_margin). A full-tier task
that does not fit is recorded as "does not fit" (not run, not scored). Oracle/rag contexts are
cut to fit by dropping documents that are neither gold nor hard negatives (rag: lowest rank
first); if that is not enough, the tier does not fit for that arm.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, replace
from typing import Callable

import msgspec

from workbench.errors import BadInput, WorkbenchError
from workbench.llm import prompts
from workbench.llm.client import ChatClient, LLMCallError
from workbench.llm.docids import extract_docids, out_of_tier
from workbench.llm.judge import JudgeUnavailable, judge_answer
from workbench.correctness import contains_match, exact_match, short_answer
from workbench.llm.records import LocalizeResult, QAResult, QueryFailure, TierRun
from workbench.llm.counting import LABEL_DEPENDENT_TASKS, judge_key, kept_results, model_identity, prompt_key
from workbench.llm.store import LLMRunStore, store_for
from workbench.names import TASKS, Stage, SystemName
from workbench.progress import Progress
from workbench.project.files import ORIGINAL_VERSION, Project
from workbench.records import Document, ModelConfig, Query, Tier
from workbench.access.runs import RunStore, run_key, tier_docs_hash, tier_hash
from workbench.tokens import count_tokens, serialize_docs
from workbench.project.settings import access_k

MESSAGE_OVERHEAD_TOKENS = 8  # chat-template tokens per message (role markers), budgeted generously


class RetrieverRunMissing(WorkbenchError, LookupError):
    title = "No stored retriever run"
    hint = "Run `workbench eval` on that tier first (the TUI evaluates on opening)."


@dataclass(frozen=True)
class TaskOptions:
    task: str
    variant: str = "standard"  # "standard" | "strict" (anti-hallucination)
    k: int | None = None  # DocIDs asked for in localize; None: the project's K (with_project_k)
    seed: int = 0
    retriever: str | None = None  # rag
    rag_k: int = 5
    judge_samples: int = 3
    query_ids: tuple[str, ...] | None = None
    keep_prompts: bool = False  # store each query's exact messages with its result (the TUI's one-query runs)

    def __post_init__(self):
        if self.task not in TASKS:
            raise BadInput(f"unknown task {self.task!r}; known: {list(TASKS)}", title="Unknown task")
        if self.variant not in prompts.VARIANTS:
            raise BadInput(f"unknown prompt variant {self.variant!r}; known: {list(prompts.VARIANTS)}")
        if self.spec.context == "retrieved" and not self.retriever:
            raise BadInput(f"task {self.task} needs a retriever (e.g. --retriever bm25)")

    @property
    def spec(self):
        return TASKS[self.task]

    @property
    def docids_asked(self) -> int:
        """K once filled in (with_project_k): every path that builds a prompt fills it first."""
        assert self.k is not None, "TaskOptions.k is filled in by with_project_k before use"
        return self.k


def with_project_k(opts: TaskOptions, project: Project) -> TaskOptions:
    """The options with K filled in from the project's settings when the caller left it open."""
    return opts if opts.k is not None else replace(opts, k=access_k(project))


def system_name(model: str, opts: TaskOptions) -> str:
    return str(SystemName.for_model(model, opts.task, opts.variant, opts.retriever or "", opts.rag_k))


def window_budget(cfg: ModelConfig) -> int:
    return int(cfg.context_window * (1.0 - cfg.safety_margin))


def messages_tokens(messages: list[dict], cfg: ModelConfig) -> int:
    return sum(count_tokens(m["content"], cfg.tokenizer) + MESSAGE_OVERHEAD_TOKENS for m in messages)


def _build_messages(opts: TaskOptions, context: str, query: Query) -> list[dict]:
    if opts.spec.localizes:
        return prompts.localize_messages(context, query.query, opts.docids_asked)
    return prompts.qa_messages(context, query.query, opts.variant)


@dataclass
class _Prepared:
    query: Query
    docs: list[Document]
    dropped: list[int]
    messages: list[dict]
    tokens: int


def _prepare(project: Project, tier: Tier, cfg: ModelConfig, opts: TaskOptions, queries: list[Query]) -> tuple[list[_Prepared], str, int, str]:
    """Per-query prompts. Returns (prepared, extra key part, largest input tokens, reason if it does not fit)."""
    budget = window_budget(cfg)
    answer = cfg.max_tokens
    if opts.spec.context == "tier":
        # Cheap precheck with the ladder's own count before serialising a huge tier.
        if tier.tokens > 2 * budget:
            # the same figure the caller shows as the input size (tier + answer budget), not another one
            return [], "", tier.tokens + answer, (f"input at least {tier.tokens + answer:,} tokens (tier {tier.tokens:,} "
                                                  f"+ answer {answer:,}) > window budget {budget:,}")
        docs = project.docs(tier_order(tier, opts.seed))
        context = serialize_docs(docs)
        ctx_tokens = count_tokens(context, cfg.tokenizer)
        prepared, worst = [], 0
        for q in queries:
            wrapper = messages_tokens(_build_messages(opts, "", q), cfg)
            total = ctx_tokens + wrapper + answer
            worst = max(worst, total)
            prepared.append(_Prepared(q, docs, [], _build_messages(opts, context, q), total))
        if worst > budget:
            return [], "", worst, (f"input {worst:,} tokens (context {ctx_tokens:,} + prompt + answer {answer:,}) "
                                   f"> window budget {budget:,}")
        return prepared, "", worst, ""

    extra = ""
    ranking: dict[str, list[int]] = {}
    if opts.spec.context == "retrieved":
        store = RunStore(project)
        run = store.load(opts.retriever, tier.name)  # type: ignore[arg-type]
        if run is None or not store.current(run, tier):
            raise RetrieverRunMissing(
                f"no current {opts.retriever!r} run for tier {tier.name!r}: "
                f"run `workbench eval {project.root} --retrievers {opts.retriever} --tiers {tier.name}` first"
            )
        extra = run.key
        for q in queries:
            r = run.ranking(q.query_id)
            if r is None:
                raise RetrieverRunMissing(f"the {opts.retriever!r} run for tier {tier.name!r} has no ranking for query {q.query_id!r}: rerun `workbench eval`")
            ranking[q.query_id] = r[: opts.rag_k]
    prepared, worst = [], 0
    for q in queries:
        if opts.spec.context == "gold":
            ids = sorted(q.gold_doc_ids)
            random.Random(f"{opts.seed}:oracle:{q.query_id}").shuffle(ids)
        elif opts.spec.context == "nearmiss":
            ids = nearmiss_order(q, opts.seed)
        else:
            ids = list(ranking[q.query_id])
        protected = set(q.gold_doc_ids) | set(q.hard_negative_ids)
        dropped: list[int] = []
        while True:
            docs = project.docs(ids)
            msgs = _build_messages(opts, serialize_docs(docs), q)
            total = messages_tokens(msgs, cfg) + answer
            if total <= budget:
                break
            # drop the lowest-ranked unprotected document; none left = does not fit
            victims = [i for i in reversed(ids) if i not in protected]
            if not victims:
                return [], extra, total, f"query {q.query_id}: {total} tokens even with only gold/hard-negative documents > window budget {budget}"
            ids.remove(victims[0])
            dropped.append(victims[0])
        worst = max(worst, total)
        prepared.append(_Prepared(q, docs, dropped, msgs, total))
    return prepared, extra, worst, ""


def tier_order(tier: Tier, seed: int) -> list[int]:
    """The whole-tier context's document order: one seeded shuffle per (seed, tier), known afterwards
    (workbench/insight/position.py reads the gold's depth from it)."""
    order = sorted(tier.doc_ids)
    random.Random(f"{seed}:{tier.name}").shuffle(order)
    return order


def nearmiss_order(query: Query, seed: int) -> list[int]:
    """The near-miss arm's context: the gold and the hard negatives, one seeded shuffle per query."""
    ids = sorted(set(query.gold_doc_ids) | set(query.hard_negative_ids))
    random.Random(f"{seed}:nearmiss:{query.query_id}").shuffle(ids)
    return ids


def estimate_input(project: Project, tier: Tier, cfg: ModelConfig, opts: TaskOptions, queries: list[Query]) -> tuple[int, str]:
    """Largest input (prompt + answer budget) in budgeting tokens, and why it does not fit ("" = fits).

    What a caller shows before running; no model is called."""
    _, _, worst, reason = _prepare(project, tier, cfg, with_project_k(opts, project), queries)
    return worst, reason


class PromptEstimate(msgspec.Struct, frozen=True):
    """One task's input for one query, counted before running: does it fit the model's window?"""

    task: str
    tokens: int | None  # None: cannot be counted (e.g. rag without a stored retriever run)
    budget: int
    fits: bool
    reason: str = ""  # why it does not fit or cannot be counted


def estimate_tasks(project: Project, tier: Tier, cfg: ModelConfig, query: Query,
                   options_for: Callable[[str], TaskOptions]) -> dict[str, PromptEstimate]:
    """Per task: the input size in the model's budgeting tokens before running, and whether it fits."""
    budget = window_budget(cfg)
    out = {}
    for task in TASKS:
        try:
            worst, reason = estimate_input(project, tier, cfg, options_for(task), [query])
            out[task] = PromptEstimate(task, worst, budget, not reason, reason)
        except WorkbenchError as exc:  # no stored retriever run for rag, say
            out[task] = PromptEstimate(task, None, budget, False, str(exc))
    return out


def run_key_for(tier_h: str, model: str, cfg: ModelConfig, opts: TaskOptions, judge: tuple[str, ModelConfig] | None, extra: str) -> str:
    return run_key(
        "llm", prompts.PROMPT_VERSION, tier_h, model, model_identity(cfg),
        opts.task, opts.variant, opts.k, opts.seed, opts.retriever, opts.rag_k,
        list(opts.query_ids) if opts.query_ids else None,
        [judge[0], model_identity(judge[1]), opts.judge_samples] if judge and not opts.spec.localizes else None,
        extra,
    )


def context_key(project: Project, tier: Tier, opts: TaskOptions) -> str:
    """The tier-level part of a run's key: the tier's documents where the context holds them (the
    tier, its rankings); nothing for gold / near-miss contexts, the same on every tier."""
    return "" if opts.spec.context in ("gold", "nearmiss") else tier_docs_hash(project, tier)


def _labels_key(project: Project, opts: TaskOptions, queries: list[Query]) -> str:
    """Oracle and rag contexts depend on the gold / hard-negative labels, which a query-set
    version may change: its runs get their own key (the original's keys stay as they were)."""
    if opts.task not in LABEL_DEPENDENT_TASKS or project.queries_version == ORIGINAL_VERSION:
        return ""
    return run_key(project.queries_version, [[q.query_id, q.gold_doc_ids, q.hard_negative_ids] for q in queries])


async def run_tier(
    project: Project,
    tier: Tier,
    model: str,
    client: ChatClient,
    opts: TaskOptions,
    judge_client: ChatClient | None = None,
    progress: Progress | None = None,
    store: LLMRunStore | None = None,
) -> TierRun:
    """Run one task on one tier; resumes a stored partial run with the same key."""
    opts = with_project_k(opts, project)
    store = store or store_for(project, opts.task)
    cfg = client.config
    system = system_name(model, opts)
    stage = f"{opts.task} {tier.name}"  # the progress bar's label
    wanted = set(opts.query_ids) if opts.query_ids else None
    queries = [project.query(q) for q in project.tier_query_ids(tier) if wanted is None or q in wanted]
    if not opts.spec.localizes:  # an unlabelled query from a log: nothing to judge against, no gold to hand over
        queries = [q for q in queries if q.answer.strip() and (opts.spec.context != "gold" or q.gold_doc_ids)]
    if opts.spec.context == "nearmiss":  # no near misses: the arm would be the oracle again
        queries = [q for q in queries if q.gold_doc_ids and q.hard_negative_ids]
    prepared, extra, worst, reason = _prepare(project, tier, cfg, opts, queries)
    th = tier_hash(project, tier)
    judge = (judge_client.name, judge_client.config) if judge_client is not None else None
    if not opts.spec.localizes and judge_client is None:
        raise ValueError("QA tasks need a judge client")
    # Kept by what it depends on: the run by the model, task and the tier's documents (not its
    # queries); each result by its own prompt key (labels reach it through the messages).
    key = run_key_for(context_key(project, tier, opts), model, cfg, _all_queries(opts), judge, extra)
    # a run stored before results had keys: its key as made then, by this call's queries or by all of them
    legacy = {run_key_for(th, model, cfg, o, judge, extra + _labels_key(project, opts, queries))
              for o in (opts, replace(opts, query_ids=None))}
    base = TierRun(
        system=system, model=model, task=opts.task, variant=opts.variant, tier=tier.name, tier_hash=th, key=key,
        fits=not reason, input_tokens=worst, budget_tokens=window_budget(cfg),
        judge=judge[0] if judge and not opts.spec.localizes else None,
        k=opts.rag_k if opts.spec.context == "retrieved" else opts.docids_asked,
        reason=reason, seed=opts.seed, docs_hash=tier_docs_hash(project, tier),
    )
    if reason:
        run = msgspec.structs.replace(base, complete=True)
        store.save(run)
        if opts.spec.localizes:
            store.drop_localization(system, tier.name)  # an older run must not be scored as this one
        if progress:
            progress(stage, len(queries), len(queries))
        return run

    kept, invalidated = kept_results(store, tier, system, opts, prepared, cfg, judge, key, legacy)  # llm/counting.py
    state = _State(store, msgspec.structs.replace(base, invalidated=invalidated, **kept), len(prepared), progress, stage)
    # failures are retried on every run; finished results are kept
    state.save()
    state.report()

    if opts.spec.localizes:
        done = {r.query_id for r in state.run.localize}
        todo = [p for p in prepared if p.query.query_id not in done]
        await asyncio.gather(*(_localize_one(client, p, tier, opts, state) for p in todo))
        state.order_by([p.query.query_id for p in prepared])
        complete = {p.query.query_id for p in prepared} <= {r.query_id for r in state.run.localize}
        state.finish(complete)
        if complete:
            store.save_localization(state.run)
        return state.run

    # Phase 1: answers (consecutive calls share the context prefix); phase 2: judging.
    answered = {r.query_id for r in state.run.qa}
    todo = [p for p in prepared if p.query.query_id not in answered]
    await asyncio.gather(*(_answer_one(client, p, state, opts.keep_prompts) for p in todo))
    await _judge_pending(project, judge_client, opts, state)  # type: ignore[arg-type]
    state.order_by([p.query.query_id for p in prepared])
    complete = {p.query.query_id for p in prepared} <= {r.query_id for r in state.run.qa} and all(r.judged for r in state.run.qa)
    state.finish(complete)
    return state.run


def _all_queries(opts: TaskOptions) -> TaskOptions:
    """The options as the run's key sees them: which queries were asked for is not part of it."""
    import dataclasses

    return dataclasses.replace(opts, query_ids=None, keep_prompts=False)


async def _judge_pending(project: Project, judge_client: ChatClient, opts: TaskOptions, state: "_State") -> None:
    pending = [r for r in state.run.qa if not r.judged]
    await asyncio.gather(*(_judge_one(judge_client, project.query(r.query_id), r, opts, state) for r in pending))


async def judge_run(
    project: Project, run: TierRun, judge_client: ChatClient, judge_samples: int = 3,
    store: LLMRunStore | None = None, progress: Progress | None = None,
) -> TierRun:
    """Judge the answers of a run made elsewhere (production answers, workbench/triage/answers.py)
    exactly as `run_tier` judges a model's: same judge, samples and resumable saving."""
    state = _State(store or LLMRunStore(project), msgspec.structs.replace(run, failures=[], complete=False), len(run.qa),
                   progress, f"judge {run.system}")
    state.report()
    await _judge_pending(project, judge_client, TaskOptions(task="qa", judge_samples=judge_samples), state)
    state.finish(all(r.judged for r in state.run.qa))
    return state.run


class _State:
    """The run being built; saved atomically after every change (single event-loop thread)."""

    def __init__(self, store: LLMRunStore, run: TierRun, total: int, progress: Progress | None, stage: str):
        self.store, self.run, self.total, self.progress, self.stage = store, run, total, progress, stage

    def save(self) -> None:
        self.store.save(self.run)

    def report(self) -> None:
        if self.progress:
            n = len(self.run.localize) if TASKS[self.run.task].localizes else sum(r.judged for r in self.run.qa)
            self.progress(self.stage, n + len({f.query_id for f in self.run.failures}), self.total)

    def add_localize(self, r: LocalizeResult) -> None:
        self.run = msgspec.structs.replace(self.run, localize=[*self.run.localize, r])
        self.save()
        self.report()

    def put_qa(self, r: QAResult) -> None:
        others = [x for x in self.run.qa if x.query_id != r.query_id]
        self.run = msgspec.structs.replace(self.run, qa=[*others, r])
        self.save()
        if r.judged:
            self.report()

    def fail(self, query_id: str, stage: Stage, error: str) -> None:
        self.run = msgspec.structs.replace(self.run, failures=[*self.run.failures, QueryFailure(query_id, stage, error)])
        self.save()
        self.report()

    def order_by(self, ids: list[str]) -> None:
        pos = {q: i for i, q in enumerate(ids)}
        self.run = msgspec.structs.replace(
            self.run,
            localize=sorted(self.run.localize, key=lambda r: pos.get(r.query_id, 1 << 30)),
            qa=sorted(self.run.qa, key=lambda r: pos.get(r.query_id, 1 << 30)),
        )

    def finish(self, complete: bool) -> None:
        self.run = msgspec.structs.replace(self.run, complete=complete)
        self.save()


async def _localize_one(client: ChatClient, p: _Prepared, tier: Tier, opts: TaskOptions, state: _State) -> None:
    try:
        c = await client.complete(p.messages)
    except LLMCallError as exc:
        state.fail(p.query.query_id, "model", str(exc))
        return
    ids = extract_docids(c.text, opts.docids_asked)
    sent, sent_cut = client.stored_prompt(p.messages) if opts.keep_prompts else ([], False)
    state.add_localize(LocalizeResult(
        query_id=p.query.query_id, output=c.text, doc_ids=ids, out_of_tier=out_of_tier(ids, tier.doc_ids),
        prompt_tokens=c.prompt_tokens, completion_tokens=c.completion_tokens, latency_s=c.latency_s, cached=c.cached,
        cut=c.cut, prompt=sent, prompt_cut=sent_cut, key=prompt_key(client.config, p.messages),
    ))


async def _answer_one(client: ChatClient, p: _Prepared, state: _State, keep_prompt: bool = False) -> None:
    from workbench.llm.prompts import is_refusal

    try:
        c = await client.complete(p.messages)
    except LLMCallError as exc:
        state.fail(p.query.query_id, "model", str(exc))
        return
    answer = c.text.strip()
    short = short_answer(p.query.answer)
    sent, sent_cut = client.stored_prompt(p.messages) if keep_prompt else ([], False)
    state.put_qa(QAResult(
        query_id=p.query.query_id, answer=answer, refusal=is_refusal(answer),
        judge_scores=[], judge_median=None, judge_spread=None, judge_failures=0, judge_failure=False,
        exact=exact_match(answer, p.query.answer) if short else None,
        contains=contains_match(answer, p.query.answer) if short else None,
        prompt_tokens=c.prompt_tokens, completion_tokens=c.completion_tokens, latency_s=c.latency_s,
        context_doc_ids=[d.doc_id for d in p.docs], dropped_doc_ids=p.dropped, cached=c.cached, cut=c.cut,
        prompt=sent, prompt_cut=sent_cut, key=prompt_key(client.config, p.messages),
    ))


async def _judge_one(judge: ChatClient, q: Query, r: QAResult, opts: TaskOptions, state: _State) -> None:
    j = await judge_answer(judge, q.query, q.answer, r.answer, samples=opts.judge_samples)
    if isinstance(j, JudgeUnavailable):  # retried on the next run, never recorded as judged
        state.fail(q.query_id, "judge", j.error)
        return
    state.put_qa(msgspec.structs.replace(
        r, judge_scores=j.scores, judge_median=j.median, judge_spread=j.spread, judge_failures=j.failures,
        judge_failure=j.failure, judge_raw=j.raw, judge_prompt_tokens=j.prompt_tokens,
        judge_completion_tokens=j.completion_tokens, judged=True,
        judge_key=judge_key((judge.name, judge.config), opts, q),
    ))
