"""Everything stored about a project's queries, turned into one verdict per (query, tier, system).

Reads only stored results (nothing is recomputed): retriever and localization rankings from the
run store, model answers from the use-side store — full-tier runs from `workbench run` and the
one-query runs started in the TUI (.workbench/tui/<query>/), each labelled with how many queries
its run covers. A *system* pairs an access source with a reader:

  <retriever>+<model>   the retriever's ranking; the model reads its top documents (rag)
  <model>               long context: the model's own localization; it reads the whole tier (qa)
  <retriever>           no model run at all yet: access only (verdicts say what is missing)

Tiers of the same rung of the ladder (base:<d> per domain, mix:<d>:<S>) are one *level*: each
query sits on exactly one tier of a level, so levels share the fixed query set and can be
compared query by query.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec

from workbench.diagnosis.answers import AnswerCheck, check_answer
from workbench.diagnosis.rules import Facts, Verdict, decide_verdict, split_distractors
from workbench.names import TASKS, SystemName
from workbench.access.retrievers import preferred, system_order
from workbench.llm.calibration import load_calibration
from workbench.llm.store import (LABEL_DEPENDENT_TASKS, LLMRunStore, relabelled, tui_stores, version_runs_root,
                                 version_tui_stores)
from workbench.access.metrics import query_access
from workbench.project.files import ORIGINAL_VERSION, Project
from workbench.records import Query, QueryAccess, Tier
from workbench.access.runs import RunStore



def level_of(tier: Tier) -> str:
    """The ladder rung a tier belongs to: base, mix:<S>, shared, global:<S>, full."""
    if tier.kind == "base":
        return "base"
    if tier.kind == "mix":
        return f"mix:{tier.budget}"
    return tier.name


class SystemSpec(msgspec.Struct, frozen=True):
    name: str
    access: str | None  # the ranking system whose top K is the access fact
    model: str | None
    reader: str | None  # "rag" (retrieve-then-read on `access`) | "qa" (the whole tier in context) | None

    @property
    def label(self) -> str:
        if self.reader == "rag":
            return f"{self.access} → {self.model} (retrieve-then-read)"
        if self.reader == "qa":
            return f"{self.model} (long context; access = its own localization)"
        return f"{self.access} (access only)"


class QueryVerdict(msgspec.Struct, frozen=True):
    query_id: str
    tier: str
    level: str
    system: str
    verdict: str
    rule: str
    because: str
    k: int
    gold_ranks: dict[int, int | None] | None
    answer: AnswerCheck | None
    oracle: AnswerCheck | None
    in_context: AnswerCheck | None  # the same model's QA over the whole tier (shown beside any system)
    missing: str = ""
    command: str = ""  # the CLI command that would fill what is missing
    key: str = ""  # the TUI key in the query inspector that would
    parametric: bool = False


@dataclass
class _TierStore:
    """One tier's stored results, indexed by query."""

    tier: Tier
    rankings: dict[str, dict[str, list[int]]] = field(default_factory=dict)  # system → query → ranked ids
    # (model, arm, retriever or "") → query → AnswerCheck
    answers: dict[tuple[str, str, str], dict[str, AnswerCheck]] = field(default_factory=dict)
    rag_k: dict[tuple[str, str], int] = field(default_factory=dict)
    no_fit: dict[tuple[str, str], str] = field(default_factory=dict)  # (model, task) → why it cannot run here


VERSION_RUN = "version run"  # a run made under the loaded query-set version (its labels)
VERSION_TUI_RUN = "version TUI run"


class Collector:
    """Loads each tier once; judge calibrations are read once per judge."""

    def __init__(self, project: Project, k: int | None = None):
        self.project = project
        self.k = k or project.config.retrievers.k
        self._trust: dict[str, bool | None] = {}
        self._tiers: dict[str, _TierStore] = {}
        self._known = {q.query_id for q in project.queries}

    def trusted(self, judge: str | None) -> bool | None:
        if judge is None:
            return None
        if judge not in self._trust:
            cal = load_calibration(self.project, judge)
            self._trust[judge] = cal.separates if cal else None
        return self._trust[judge]

    def forget(self) -> None:
        """Drop what was loaded (after a new run was stored)."""
        self._tiers.clear()
        self._trust.clear()

    def tier_store(self, tier: Tier) -> _TierStore:
        if tier.name in self._tiers:
            return self._tiers[tier.name]
        ts = _TierStore(tier)
        for run in RunStore(self.project).runs(tier):
            ts.rankings[run.system] = {r.query_id: [h.doc_id for h in r.hits] for r in run.rankings}
        vroot = version_runs_root(self.project)
        own = ([(run, VERSION_RUN) for run in LLMRunStore(self.project, root=vroot).runs(tier)]
               + [(run, VERSION_TUI_RUN) for store in version_tui_stores(self.project) for run in store.runs(tier)]) if vroot else []
        full = [(run, "tier run") for run in LLMRunStore(self.project).runs(tier)]
        scratch = [(run, "TUI run") for store in tui_stores(self.project) for run in store.runs(tier)]
        for run, source in own + full + scratch:  # the version's, then tier runs: a TUI run only fills a gap
            if not run.fits and run.variant == "standard":
                ts.no_fit[(run.model, run.task)] = f"{run.task} does not fit {run.model}'s window ({run.input_tokens} > {run.budget_tokens} tokens)"
            if run.task == "localize" or run.variant != "standard" or not run.fits:
                continue
            retriever = SystemName.parse(run.system).retriever if run.task == "rag" else ""
            slot = ts.answers.setdefault((run.model, run.task, retriever), {})
            if run.task == "rag":
                ts.rag_k[(run.model, retriever)] = run.k
            trusted = self.trusted(run.judge)
            for r in run.qa:
                if r.query_id in slot or r.query_id not in self._known:
                    continue
                if vroot and source not in (VERSION_RUN, VERSION_TUI_RUN) and run.task in LABEL_DEPENDENT_TASKS \
                        and relabelled(self.project, r.query_id):
                    continue  # made from the original's labels: this version's are other documents
                slot[r.query_id] = check_answer(self.project.query(r.query_id), run, r, trusted, source)
        self._tiers[tier.name] = ts
        return ts

    def systems(self, tiers: list[Tier]) -> list[SystemSpec]:
        retrievers: set[str] = set()
        models: set[str] = set()
        localizers: set[str] = set()
        in_context: set[str] = set()
        for t in tiers:
            ts = self.tier_store(t)
            for s in ts.rankings:
                name = SystemName.parse(s)
                if name.kind == "model":
                    localizers.add(name.name)
                else:
                    retrievers.add(s)
            models.update(m for m, _, _ in ts.answers)
            in_context.update(m for m, arm, _ in ts.answers if arm == "qa")
        out = []
        for m in sorted(models):
            out += [SystemSpec(f"{r}+{m}", r, m, "rag") for r in sorted(retrievers, key=system_order)]
            if m in in_context or m in localizers:  # the long-context system, once it has something
                out.append(SystemSpec(m, f"model:{m}:localize" if m in localizers else None, m, "qa"))
        if not models:
            out += [SystemSpec(r, r, None, None) for r in sorted(retrievers, key=system_order)]
        return out

    def access(self, tier: Tier, system: str, query: Query) -> QueryAccess | None:
        ranked = self.tier_store(tier).rankings.get(system, {}).get(query.query_id)
        if ranked is None or not query.is_labelled:
            return None
        return query_access(query.query_id, ranked, query.gold_doc_ids, self.k)

    def answer(self, tier: Tier, model: str, arm: str, query_id: str, retriever: str = "") -> AnswerCheck | None:
        return self.tier_store(tier).answers.get((model, arm, retriever), {}).get(query_id)

    def verdict(self, tier: Tier, spec: SystemSpec, query: Query) -> QueryVerdict:
        ts = self.tier_store(tier)
        acc = self.access(tier, spec.access, query) if spec.access else None
        gold_ranks = acc.gold_ranks if acc is not None else None
        oracle = in_context = answer = None
        reader_k = None
        if spec.model:
            oracle = self.answer(tier, spec.model, "oracle", query.query_id)
            in_context = self.answer(tier, spec.model, "qa", query.query_id)
            if spec.reader == "rag":
                answer = self.answer(tier, spec.model, "rag", query.query_id, spec.access or "")
                reader_k = ts.rag_k.get((spec.model, spec.access or ""))
            else:
                answer = in_context
        label = spec.access if spec.reader != "qa" else f"{spec.model} localization"
        v = decide_verdict(Facts(k=self.k, access_label=label or "?", gold_ranks=gold_ranks, answer=answer, oracle=oracle, reader_k=reader_k,
                            by_ranking=spec.reader == "qa"))
        v = split_distractors(v, self.answer(tier, spec.model, "nearmiss", query.query_id) if spec.model else None)
        command, key = self._how_to_fill(v, spec, tier, query, gold_ranks is None)
        return QueryVerdict(
            query_id=query.query_id, tier=tier.name, level=level_of(tier), system=spec.name, verdict=v.verdict,
            rule=v.rule, because=v.because, k=self.k, gold_ranks=gold_ranks, answer=answer, oracle=oracle,
            in_context=in_context, missing=v.missing, command=command, key=key, parametric=v.parametric,
        )

    def _how_to_fill(self, v: Verdict, spec: SystemSpec, tier: Tier, query: Query, no_ranking: bool) -> tuple[str, str]:
        if not v.missing:
            return "", ""
        root = self.project.root
        where = f"--tiers {tier.name} --queries {query.query_id}"
        if v.rule == "N1":
            no_fit = self.tier_store(tier).no_fit.get((spec.model or "", "localize"))
            if spec.reader == "qa" and no_fit:
                return f"{no_fit}: use a model with a larger window", ""
            if spec.reader == "qa":
                return f"workbench run {root} --task localize,qa {where}", f"{TASKS['localize'].key}, {TASKS['qa'].key}"
            return f"workbench eval {root} --retrievers {spec.access} --tiers {tier.name}", ""
        tasks = []
        if v.rule in ("N2", "N4"):
            tasks.append("oracle")
        if v.rule in ("N3", "N4"):
            tasks.append("rag" if spec.reader == "rag" else "qa")
        too_big = self.tier_store(tier).no_fit
        blocked = [too_big[(spec.model or "", t)] for t in tasks if (spec.model or "", t) in too_big]
        if blocked:  # nothing to run: the tier is too large for this model
            return "; ".join(blocked) + ": use a model with a larger window", ""
        model = f" --model {spec.model}" if spec.model else ""
        if self.project.queries_version != ORIGINAL_VERSION:
            where += f" --queries-version {self.project.queries_version}"
        retr = f" --retriever {spec.access}" if "rag" in tasks else ""
        keys = ", ".join(TASKS[t].key for t in tasks)
        return f"workbench run {root}{model} --task {','.join(tasks)}{retr} {where}", keys


class QueryVerdicts(msgspec.Struct, frozen=True):
    """Every verdict of a set of tiers, in ladder order."""

    k: int
    levels: list[str]
    level_tiers: dict[str, list[str]]
    systems: list[SystemSpec]
    primary: str | None  # the system shown first (most end-to-end answers; hybrid first on a tie)
    verdicts: list[QueryVerdict]
    empty_tiers: list[str] = []  # selected tiers with nothing stored yet

    def of(self, system: str) -> list[QueryVerdict]:
        return [v for v in self.verdicts if v.system == system]

    def first_failing(self, system: str, query_id: str) -> QueryVerdict | None:
        """The first level (ladder order) where the query's verdict is decided and not PASS."""
        for v in self.verdicts:
            if v.system == system and v.query_id == query_id and v.verdict not in ("PASS", "NOT-YET"):
                return v
        return None


def collect(project: Project, tiers: list[Tier], query_ids: set[str] | None = None, k: int | None = None,
            collector: Collector | None = None) -> QueryVerdicts:
    c = collector or Collector(project, k)
    # A tier with nothing stored (no ranking, no answer) has nothing to diagnose: it is named, not listed.
    empty = [t.name for t in tiers if not c.tier_store(t).rankings and not c.tier_store(t).answers]
    tiers = [t for t in tiers if t.name not in empty]
    systems = c.systems(tiers)
    levels: list[str] = []
    level_tiers: dict[str, list[str]] = {}
    verdicts = []
    for t in tiers:
        lv = level_of(t)
        if lv not in level_tiers:
            levels.append(lv)
        level_tiers.setdefault(lv, []).append(t.name)
    order = {lv: i for i, lv in enumerate(levels)}
    for t in sorted(tiers, key=lambda t: order[level_of(t)]):
        for qid in project.tier_query_ids(t):
            if query_ids is not None and qid not in query_ids:
                continue
            q = project.query(qid)
            if not q.is_labelled:
                continue  # no gold yet: nothing to decide until it is labelled (eval leaves it out too)
            verdicts += [c.verdict(t, s, q) for s in systems]
    answered = {s.name: sum(v.answer is not None for v in verdicts if v.system == s.name) for s in systems}
    primary = min(systems, key=lambda s: (-answered[s.name], _preference(s))).name if systems else None
    return QueryVerdicts(k=c.k, levels=levels, level_tiers=level_tiers, systems=systems, primary=primary,
                         verdicts=verdicts, empty_tiers=empty)


def _preference(spec: SystemSpec) -> tuple[int, str]:
    """On a tie of answers: the preferred retriever first (retrievers.preferred), then the rest."""
    best = preferred()
    return (best.index(spec.access) if spec.access in best else len(best), spec.name)
