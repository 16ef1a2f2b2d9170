"""Which stored answers count — the one owner of the rule. Every reader of stored model answers
(the verdicts: diagnosis/loading.py; the figures: llm/figures.py; the inspector; a new run that
keeps what it may: llm/tasks.py; the store's shared oracle answers: llm/store.py) asks here.

A stored answer (or localization) counts:
- while what it depends on is the same: its own prompt key (the model's identity and the exact
  messages sent: ``prompt_key``), and for its judgement the judge key (the judge, its samples, the
  query and the gold answer: ``judge_key``). An answer whose prompt changed is invalidated and run
  again (``kept_results``, said by ``invalidation_note``); one whose judge changed keeps its answer
  and is judged again;
- on every tier holding its query when its context is the gold only (an oracle prompt is the same
  wherever the query is: ``same_prompt_on_every_tier``);
- under the loaded query-set version's labels only where the labels it was made from hold, for the
  tasks whose context is built from the labels (``LABEL_DEPENDENT_TASKS``; ``Labels``);
- once per system and query: the first source in the precedence order of llm/sources.py
  (``model_sources``) that has it (``count_once``; sources.counted_sources applies it to a tier),
  for a query the loaded version keeps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from workbench.access.runs import run_key, tier_hash
from workbench.names import TASKS
from workbench.project.files import ORIGINAL_VERSION, Project
from workbench.records import ModelConfig, Query, Tier

if TYPE_CHECKING:
    from workbench.llm.records import TierRun

# The readers this module serves (llm/store.py, llm/sources.py, llm/tasks.py) import it, never the
# other way round: their records are typed loosely here (a store, a task's options, a source).

# Tasks whose context is built from the gold / hard-negative labels: a query-set version that
# relabels a query needs its own run of them (the original's answers saw other documents).
LABEL_DEPENDENT_TASKS = ("oracle", "rag", "nearmiss")


# ---------------------------------------------------------------- what an answer depends on


def model_identity(cfg: ModelConfig) -> list:
    # What changes the outputs (not concurrency, timeouts or retries).
    return [cfg.model, cfg.base_url, cfg.max_tokens, cfg.temperature, cfg.context_window, cfg.tokenizer, cfg.safety_margin]


def prompt_key(cfg: ModelConfig, messages: list[dict]) -> str:
    """What one query's answer depends on: the model's identity and the exact messages sent."""
    return run_key("prompt", model_identity(cfg), messages)


def judge_key(judge: tuple[str, ModelConfig] | None, opts: Any, query: Query) -> str:
    """What a judgement depends on besides the answer: the judge, its samples, the query and gold answer."""
    if judge is None:
        return ""
    return run_key("judge", judge[0], model_identity(judge[1]), opts.judge_samples, query.query, query.answer)


def same_prompt_on_every_tier(task: str) -> bool:
    """A gold-only context (oracle): the prompt is the same on every tier, so its stored answer of a
    query counts on every tier holding the query."""
    return TASKS[task].context == "gold"


def kept_results(store: Any, tier: Tier, system: str, opts: Any, prepared: list, cfg: ModelConfig,
                 judge: tuple[str, ModelConfig] | None, key: str, legacy: set[str]) -> tuple[dict, list[str]]:
    """Stored results still valid for a new run (by their own prompt / judge keys), and the queries
    whose stored result no longer matches. The stored run of this tier, and for a gold context the
    same system's runs on every tier. ``prepared``: the run's queries with the messages it sends
    (each has ``.query`` and ``.messages``); ``legacy``: the run keys a run stored before results
    had keys may carry."""
    previous = [r for r in [store.load(system, tier.name)] if r is not None]
    if same_prompt_on_every_tier(opts.task):
        previous += [r for r in store.runs_elsewhere(system, tier.name)]
    wanted = {p.query.query_id: p for p in prepared}
    found: dict[str, object] = {}
    stale: list[str] = []
    field = "localize" if opts.spec.localizes else "qa"
    for run in previous:
        for r in getattr(run, field):
            p = wanted.get(r.query_id)
            if p is None or r.query_id in found:
                continue
            if r.key == "":  # stored before results had keys: valid only under the old rule, on this tier
                ok = run.key in legacy and run.tier == tier.name and run.tier_hash == tier_hash(store.project, tier)
            else:
                ok = r.key == prompt_key(cfg, p.messages)
            if not ok:
                stale.append(r.query_id)
                continue
            if field == "qa":
                jk = judge_key(judge, opts, p.query)
                if r.key == "":
                    r = msgspec.structs.replace(r, key=prompt_key(cfg, p.messages), judge_key=jk)
                elif r.judge_key != jk:  # the answer stands; only its judgement is redone
                    r = msgspec.structs.replace(r, judge_key=jk, judged=False, judge_scores=[], judge_median=None,
                                                judge_spread=None, judge_failures=0, judge_failure=False, judge_raw=[])
            elif r.key == "":
                r = msgspec.structs.replace(r, key=prompt_key(cfg, p.messages))
            found[r.query_id] = r
    ids = [q for q in wanted if q in found]
    others = []
    if previous and previous[0].tier == tier.name:  # results of queries not asked for this time stay
        mine = previous[0]
        # a result stored before results had keys stays while its run is current under the old rule
        legacy_ok = mine.key in legacy and mine.tier_hash == tier_hash(store.project, tier)
        others = [r for r in getattr(mine, field) if r.query_id not in wanted and (r.key or legacy_ok)]
    invalidated = sorted({q for q in stale if q not in found})
    return {field: [found[q] for q in ids] + others}, invalidated


def invalidation_note(run: "TierRun") -> str:
    """One line for the CLI / TUI: which stored answers an edit invalidated ("" = none)."""
    if not run.invalidated:
        return ""
    n = len(run.invalidated)
    return (f"{n} stored answer{'s' if n != 1 else ''} of {run.system} on tier {run.tier} no longer "
            f"matched their prompt: rerun ({', '.join(run.invalidated[:5])}{', …' if n > 5 else ''})")


# ---------------------------------------------------------------- the labels an answer was made from


def labels_of(query) -> tuple[list[int], list[int]]:
    """What a label-dependent answer's context was built from: the gold and hard-negative sets."""
    return sorted(query.gold_doc_ids), sorted(query.hard_negative_ids)


def relabelled(project: Project, query_id: str) -> bool:
    """The loaded version labels this query's gold or hard negatives differently from the original."""
    q, o = project.query(query_id), project.original_query(query_id)
    return (sorted(q.gold_doc_ids), sorted(q.hard_negative_ids)) != (sorted(o.gold_doc_ids), sorted(o.hard_negative_ids))


class Labels:
    """Whether an answer made under a version's labels holds for the loaded labels (each version's
    queries read once): the one rule of the verdicts, the figures and the inspector."""

    def __init__(self, project: Project):
        self.project = project
        self._versions: dict[str, dict[str, tuple[list[int], list[int]]]] = {}

    def count(self, src: Any, query_id: str) -> bool:
        """A source's answer for the query counts under the loaded labels: any answer that does not
        read the labels; a label-dependent one (oracle, rag, near-miss) only where they hold."""
        return self.counts(src.run.task, src.made_under, query_id)

    def counts(self, task: str, made_under: str | None, query_id: str) -> bool:
        """``count`` by the answer's task and the version whose labels made it."""
        return task not in LABEL_DEPENDENT_TASKS or self.hold(made_under, query_id)

    def hold(self, made_under: str | None, query_id: str) -> bool:
        mine = self.project.queries_version
        if made_under == mine:
            return True
        if made_under == ORIGINAL_VERSION:
            return not relabelled(self.project, query_id)
        if made_under is None:
            return False
        if made_under not in self._versions:
            from workbench.errors import WorkbenchError
            from workbench.project.versions import load_queries

            try:
                self._versions[made_under] = {q.query_id: labels_of(q) for q in load_queries(self.project.root, made_under)}
            except (OSError, WorkbenchError):  # an unreadable version: its answers do not count
                self._versions[made_under] = {}
        return self._versions[made_under].get(query_id) == labels_of(self.project.query(query_id))


# ---------------------------------------------------------------- once per system and query


def count_once(project: Project, sources: list) -> list:
    """``sources`` (llm/sources.py's Source list, in precedence order) with each run cut to the
    results that count: a query's result from the first source of its system that has one, for a
    query the loaded version keeps; a label-dependent answer made under other labels only where the
    query's labels are the same. A run that does not fit the window is kept whole (it holds no answer)."""
    labels = Labels(project)
    claimed: set[tuple[str, str]] = set()
    out = []
    for src in sources:
        run = src.run
        if not run.fits:
            out.append(src)
            continue

        def counts(query_id: str) -> bool:
            if (run.system, query_id) in claimed or not project.has_query(query_id):
                return False
            return labels.count(src, query_id)

        qa = [r for r in run.qa if counts(r.query_id)]
        localize = [r for r in run.localize if counts(r.query_id)]
        claimed.update((run.system, r.query_id) for r in qa)
        claimed.update((run.system, r.query_id) for r in localize)
        if len(qa) != len(run.qa) or len(localize) != len(run.localize):
            run = msgspec.structs.replace(run, qa=qa, localize=localize)
        out.append(msgspec.structs.replace(src, run=run))
    return out
