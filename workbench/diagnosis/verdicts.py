"""Everything stored about a project's queries, turned into one verdict per (query, tier, system).

Reads only stored results, loaded by diagnosis/loading.py (nothing is recomputed): retriever and localization rankings from the
run store, model answers from the use-side store — full-tier runs from `workbench run` and the
one-query runs started in the TUI (.workbench/tui/<query>/), each labelled with how many queries
its run covers. A *system* pairs an access source with a reader:

  <retriever>+<model>   the retriever's ranking; the model reads its top documents (rag)
  <model>               long context: the model's own localization; it reads the whole tier (qa)
  <retriever>           no model run at all yet: access only (verdicts say what is missing)
  run:<name>:answers    production's imported answers (import-answers): access = what production
                        read (context_doc_ids), else its imported ranking run:<name>; oracle = the
                        oracle model's (`--oracle-model`, default the project's judge or model)

Tiers of the same rung of the ladder (base:<d> per domain, mix:<d>:<S>) are one *level*: each
query sits on exactly one tier of a level, so levels share the fixed query set and can be
compared query by query.
"""

from __future__ import annotations


import msgspec

from workbench.llm.answers import AnswerCheck
from workbench.diagnosis.rules import PENDING, Facts, decide_verdict, split_distractors
from workbench.names import SystemName
from workbench.access.retrievers import preferred, system_order
from workbench.access.metrics import query_access
from workbench.project.files import Project
from workbench.records import Query, QueryAccess, Tier
from workbench.diagnosis.loading import StoredResults
from workbench.diagnosis.next_steps import how_to_fill
from workbench.diagnosis.systems import SystemSpec, production_name
from workbench.diagnosis.funnel import Funnel, funnel_stage, funnels

RERANK_CUT = ">rerank"  # production's reranked list beside its ranking (triage/traces/importer.py RERANK_SUFFIX)



def level_of(tier: Tier) -> str:
    """The ladder rung a tier belongs to: base, mix:<S>, shared, global:<S>, full."""
    if tier.kind == "base":
        return "base"
    if tier.kind == "mix":
        return f"mix:{tier.budget}"
    return tier.name


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
    stage: str = "undecided"  # the loss funnel's stage (diagnosis/funnel.py)


class VerdictReader(StoredResults):
    """The verdicts over what StoredResults loaded (diagnosis/loading.py): the systems, each
    query's access and answers, the verdict and its next step (diagnosis/next_steps.py)."""

    def systems(self, tiers: list[Tier]) -> list[SystemSpec]:
        retrievers: set[str] = set()
        models: set[str] = set()
        localizers: set[str] = set()
        in_context: set[str] = set()
        production: set[str] = set()
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
            production.update(ts.production)
        out = []
        for m in sorted(models):
            out += [SystemSpec(f"{r}+{m}", r, m, "rag") for r in sorted(retrievers, key=system_order)]
            if m in in_context or m in localizers:  # the long-context system, once it has something
                out.append(SystemSpec(m, f"model:{m}:localize" if m in localizers else None, m, "qa"))
        if not models:
            out += [SystemSpec(r, r, None, None) for r in sorted(retrievers, key=system_order)]
        for prod in sorted(production):  # production: its own ranking when imported (import-run --name NAME)
            ranking = str(SystemName.for_run(prod))
            out.append(SystemSpec(f"{ranking}:answers", ranking if ranking in retrievers else None, None, "production",
                                  self.oracle_model))
        return out

    def access(self, tier: Tier, system: str, query: Query) -> QueryAccess | None:
        """The query's access by this system's ranking; None when unknown: no ranking, or production's
        ranking truncated above K with a gold document not found before its depth (no gold is
        "not retrieved" where the ranking says nothing)."""
        ts = self.tier_store(tier)
        ranked = ts.rankings.get(system, {}).get(query.query_id)
        if ranked is None or not query.is_labelled:
            return None
        acc = query_access(query.query_id, ranked, query.gold_doc_ids, self.k)
        depth = ts.depths.get(system, {}).get(query.query_id)
        if depth is not None and depth < self.k and any(r is None or r > depth for r in acc.gold_ranks.values()):
            return None
        return acc

    def answer(self, tier: Tier, model: str, arm: str, query_id: str, retriever: str = "") -> AnswerCheck | None:
        return self.tier_store(tier).answers.get((model, arm, retriever), {}).get(query_id)

    def applies(self, tier: Tier, spec: SystemSpec, query_id: str) -> bool:
        """Production answered some queries on one tier (its whole collection: full): its verdicts are
        those; production's ranking (run:NAME) has verdicts on the queries it served; every other
        system has one on every tier for every query."""
        ts = self.tier_store(tier)
        if spec.reader == "production":
            return query_id in ts.production.get(production_name(spec.name), {})
        # production's ranking as a retriever: only the queries it served (never an ACCESS failure for the rest)
        return spec.access not in ts.served or query_id in ts.served[spec.access]

    def verdict(self, tier: Tier, spec: SystemSpec, query: Query) -> QueryVerdict:
        ts = self.tier_store(tier)
        acc = self.access(tier, spec.access, query) if spec.access else None
        gold_ranks = acc.gold_ranks if acc is not None else None
        oracle = in_context = answer = None
        reader_k = None
        production = spec.reader == "production"
        context_known = True
        if production:
            name = production_name(spec.name)
            answer = ts.production.get(name, {}).get(query.query_id)
            context_known = query.query_id in ts.context_known.get(name, set())
            if spec.oracle_model:
                oracle = self.answer(tier, spec.oracle_model, "oracle", query.query_id)
        elif spec.model:
            oracle = self.answer(tier, spec.model, "oracle", query.query_id)
            in_context = self.answer(tier, spec.model, "qa", query.query_id)
            if spec.reader == "rag":
                answer = self.answer(tier, spec.model, "rag", query.query_id, spec.access or "")
                reader_k = ts.rag_k.get((spec.model, spec.access or ""))
            else:
                answer = in_context
        label = spec.access if spec.reader != "qa" else f"{spec.model} localization"
        facts = Facts(k=self.k, access_label=label or "?", gold_ranks=gold_ranks, answer=answer, oracle=oracle, reader_k=reader_k,
                      by_ranking=spec.reader == "qa", production=production, context_known=context_known,
                      gold_ids=tuple(query.gold_doc_ids))
        v = decide_verdict(facts)
        v = split_distractors(v, self.answer(tier, spec.model, "nearmiss", query.query_id) if spec.model else None)
        command, key = how_to_fill(self, v, spec, tier, query)
        stage = self.stage(tier, spec, query, answer, context_known)
        return QueryVerdict(
            query_id=query.query_id, tier=tier.name, level=level_of(tier), system=spec.name, verdict=v.verdict,
            rule=v.rule, because=v.because, k=self.k, gold_ranks=gold_ranks, answer=answer, oracle=oracle,
            in_context=in_context, missing=v.missing, command=command, key=key, parametric=v.parametric,
            stage=stage,
        )

    def stage(self, tier: Tier, spec: SystemSpec, query: Query, answer: AnswerCheck | None, context_known: bool) -> str:
        """The funnel stage (diagnosis/funnel.py) from the access source's stored ranking, production's
        reranked list (its trace's reranker: run:NAME>rerank), the context the reader was given and its answer."""
        rankings = self.tier_store(tier).rankings
        ranking = rankings.get(spec.access, {}).get(query.query_id) if spec.access else None
        cut = rankings.get(f"{spec.access}{RERANK_CUT}", {}).get(query.query_id) if spec.reader == "production" and spec.access else None
        if spec.reader is None:
            answer = None  # access only: no reader, nothing delivered
        return funnel_stage(query.gold_doc_ids, self.k, ranking, answer, cut=cut, whole_tier=spec.reader == "qa",
                            context_known=context_known)


class QueryVerdicts(msgspec.Struct, frozen=True):
    """Every verdict of a set of tiers, in ladder order."""

    k: int
    levels: list[str]
    level_tiers: dict[str, list[str]]
    systems: list[SystemSpec]
    primary: str | None  # the system shown first (verdict_system: the preferred one that fits and covers most tiers)
    verdicts: list[QueryVerdict]
    empty_tiers: list[str] = []  # selected tiers with nothing stored yet
    funnels: list[Funnel] = []  # the loss funnel per (system, tier): each verdict's stage counted

    def of(self, system: str) -> list[QueryVerdict]:
        return [v for v in self.verdicts if v.system == system]

    def first_failing(self, system: str, query_id: str) -> QueryVerdict | None:
        """The first level (ladder order) where the query's verdict is a failure, decided or provisional
        (ACCESS?: access shows the gold lost before any answer)."""
        for v in self.verdicts:
            if v.system == system and v.query_id == query_id and v.verdict not in ("PASS", "NOT-YET", "UNDECIDED"):
                return v
        return None


def read_verdicts(project: Project, tiers: list[Tier], query_ids: set[str] | None = None, k: int | None = None,
            collector: VerdictReader | None = None) -> QueryVerdicts:
    c = collector or VerdictReader(project, k)
    c.tiers = list(tiers)
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
            verdicts += [c.verdict(t, s, q) for s in systems if c.applies(t, s, qid)]
    primary = verdict_system(systems, verdicts, tiers, c)
    return QueryVerdicts(k=c.k, levels=levels, level_tiers=level_tiers, systems=systems, primary=primary,
                         verdicts=verdicts, empty_tiers=empty, funnels=funnels(verdicts))


def _preference(spec: SystemSpec) -> tuple[int, str]:
    """The preferred retriever first (retrievers.preferred), then the rest; long context, then production last."""
    best = preferred()
    last = {"qa": 1, "production": 2}.get(spec.reader or "", 0)
    return (best.index(spec.access) if spec.access in best and spec.reader not in ("qa", "production") else len(best) + last,
            spec.name)


def verdict_system(systems: list[SystemSpec], verdicts: list[QueryVerdict], tiers: list[Tier], c: VerdictReader) -> str | None:
    """The default system whose verdicts are shown: among the systems whose reader fits most levels
    of the ladder and that have what a verdict needs (a ranking, or answers) on most of them, the preferred
    retriever's (hybrid, then dense, bm25; a long-context reader after them, production last); then
    the one with most decided verdicts. Stable: one more answer of another system does not move it."""
    if not systems:
        return None
    decided = {s.name: 0 for s in systems}
    for v in verdicts:
        if v.verdict not in PENDING:
            decided[v.system] = decided.get(v.system, 0) + 1

    levels: dict[str, list[Tier]] = {}
    for t in tiers:  # most *levels* of the ladder: eight base tiers are one rung, not eight
        levels.setdefault(level_of(t), []).append(t)

    def fits_most(spec: SystemSpec) -> bool:
        if spec.reader not in ("qa", "rag") or not spec.model:
            return True
        task = "qa" if spec.reader == "qa" else "rag"
        return 2 * sum(all(not c.fits(spec.model, task, t) for t in ts) for ts in levels.values()) >= len(levels)

    def has_needs(spec: SystemSpec, t: Tier) -> bool:
        ts = c.tier_store(t)
        if spec.reader == "production":
            return production_name(spec.name) in ts.production
        if spec.access and spec.access in ts.rankings:
            return True
        return bool(spec.model) and any(m == spec.model for m, _, _ in ts.answers)

    def covered(spec: SystemSpec) -> int:
        return sum(any(has_needs(spec, t) for t in ts) for ts in levels.values())

    def key(spec: SystemSpec) -> tuple:
        eligible = fits_most(spec) and 2 * covered(spec) >= len(levels)
        return (not eligible, _preference(spec)[0], -decided[spec.name], spec.name)

    return min(systems, key=key).name
