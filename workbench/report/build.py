"""The diagnosis report's figures, gathered once; builder.py makes the document (sections in order) of them.

It states what is needed to reproduce it: project, corpus hash, tiers and their index
manifests, embedder, models, judge and calibration, seeds and response-cache hits.
No timestamp: the same stored results and seed give the same bytes.
"""

from __future__ import annotations

import msgspec

from workbench.llm.answers import ARM_LABELS
from workbench.correctness import ANSWER_RULE
from workbench.diagnosis.verdicts import VerdictReader, QueryVerdict, QueryVerdicts, SystemSpec, read_verdicts
from workbench.diagnosis.funnel import Funnel
from workbench.diagnosis.nearmiss import Distractor, distractors
from workbench.diagnosis.overview import READING_RULES, Overview, overview
from workbench.diagnosis.rules import RULES
from workbench.stats import DEFAULT_SEED
from workbench.access.indexing import IndexManifest, dense_dir, embedder_name, read_manifest, sparse_dir
from workbench.llm.calibration import JudgeCalibration, load_calibration
from workbench.project.files import Project
from workbench.records import ModelConfig, Tier
from workbench.access.runs import tier_hash
from workbench.report.partial import MIN_ANSWERS, AccessFirst, access_first, first_decided_failure
from workbench.project.settings import MIN_DECIDED
from workbench.report.insight import Insight, insight_section
from workbench.diagnosis.fix_effect import FixEffect, fix_effects
from workbench.diagnosis.recommend import Recommendation, primary_recommendations
from workbench.report.sweeps import sweeps_dict
from workbench.report.lead import NextAction, next_action
from workbench.insight.stealers import Stealer, steals, top_stealers

FOCUSES = ("production",)

FORMAT_VERSION = 1
# The stored answer's flag saying the length cap cut its completion (issue 20 item 13, workbench/llm):
# read by name so the report states it as soon as the use side stores it; absent = never cut.
CAP_FLAG = "cut"


class TierInfo(msgspec.Struct, frozen=True):
    name: str
    kind: str
    level: str
    docs: int
    tokens: int
    queries: int
    tier_hash: str


class JudgeInfo(msgspec.Struct, frozen=True):
    judge: str
    verdict: str
    calibration: JudgeCalibration | None


class CappedAnswer(msgspec.Struct, frozen=True):
    query_id: str
    tier: str
    system: str


class Provenance(msgspec.Struct, frozen=True):
    project: str
    root: str
    corpus_hash: str
    tiers: list[TierInfo]
    manifests: list[IndexManifest]
    embedder: str
    models: dict[str, ModelConfig]
    judges: list[JudgeInfo]
    seeds: dict[str, int]
    model_calls: int  # stored answers and localizations behind this report
    cache_hits: int  # of those, served from the response cache
    queries_version: str = "original"  # the query-set version every figure of the report uses
    capped: list[CappedAnswer] = []  # stored completions the length cap cut


class QueryReport(msgspec.Struct, frozen=True):
    query_id: str
    query: str
    answer: str
    domain: str
    kind: str
    multi_source: bool
    gold: dict[int, str]  # DocID → title
    verdicts: dict[str, list[QueryVerdict]]  # system → one per level, ladder order
    first_failing: dict[str, str | None]  # system → the first level of a decided failure (ACCESS? is not one)
    distractors: list[Distractor]  # primary system, at its first failing level
    distractor_level: str | None


class Report(msgspec.Struct, frozen=True):
    format: int
    provenance: Provenance
    k: int
    levels: list[str]
    level_tiers: dict[str, list[str]]
    systems: list[SystemSpec]
    primary: str | None
    rules: dict[str, tuple[str, str]]
    answer_rule: str
    reading_rules: dict[str, str]
    arms: dict[str, str]
    overview: Overview
    queries: list[QueryReport]
    empty_tiers: list[str] = []  # selected, but nothing stored for them yet
    # the latest volume / depth / distribution sweep (workbench.report.sweeps.sweeps_dict); whole-project reports only
    sweeps: dict = {}
    access_first: AccessFirst | None = None  # what the rankings alone show (no model needed)
    min_answers: int = MIN_ANSWERS  # fewer answers behind a figure: a count, not a rate or a curve
    min_decided: int = MIN_DECIDED  # fewer decided verdicts: no reading
    insight: Insight | None = None  # the sharper diagnosis (workbench/report/insight.py)
    fixes: list[FixEffect] = []  # tried access fixes against their base (workbench/diagnosis/fix_effect.py)
    recommended: list[Recommendation] = []  # the primary's overall recommendations, each fix with command, judge, effect
    next_action: NextAction | None = None  # the one thing to run next, one batch command (report/lead.py)
    funnels: list[Funnel] = []  # the loss funnel per (system, tier): `funnel: {not_retrieved, …}` (diagnosis/funnel.py)
    # "production": the report of a collection window (`report --since`): production's system is the shown
    # one, so the lead is its funnel, its stealers (of its own ranking) and its next action.
    focus: str = ""
    lead_stealers: list[Stealer] | None = None  # the shown system's own stealers (None: the insight section's)


def capped_answers(project: Project, tiers: list[Tier]) -> list[CappedAnswer]:
    """Every stored completion the length cap cut: tier runs, the TUI's one-query runs, the version's."""
    from workbench.llm.sources import model_sources

    out: set[tuple[str, str, str]] = set()
    for t in tiers:
        for run in (src.run for src in model_sources(project, t)):
            items = run.localize if run.task == "localize" else run.qa
            out.update((x.query_id, t.name, run.system) for x in items if getattr(x, CAP_FLAG, False) is True)
    return [CappedAnswer(*c) for c in sorted(out)]


def _provenance(project: Project, tiers: list[Tier], collector: VerdictReader, seed: int) -> Provenance:
    from workbench.diagnosis.verdicts import level_of
    from workbench.llm.providers import resolve_model

    manifests = [m for t in tiers for m in (read_manifest(sparse_dir(project, t)), read_manifest(dense_dir(project, t))) if m]
    models: set[str] = set()
    judges: set[str] = set()
    calls = hits = 0
    from workbench.llm.sources import model_sources

    from workbench.names import TASKS

    used: set[tuple[str, str, str]] = set()
    for t in tiers:  # what the verdicts read: every source, a query's answer counted from the first that has it
        for run in (src.run for src in model_sources(project, t)):
            # an oracle answer (the gold only: the same prompt on every tier) is one answer, not one per tier
            where = "" if TASKS[run.task].context == "gold" else t.name
            items = [x for x in (run.localize if run.task == "localize" else run.qa) if (run.system, x.query_id, where) not in used]
            if not items:
                continue
            used.update((run.system, x.query_id, where) for x in items)
            models.add(run.model)
            if run.judge:
                judges.add(run.judge)
            calls += len(items)
            hits += sum(x.cached for x in items)
    model_cfgs = {}
    for m in sorted(models | judges):
        try:
            model_cfgs[m] = resolve_model(project, m)[1]
        except ValueError:
            continue
    judge_infos = []
    for j in sorted(judges):
        cal = load_calibration(project, j)
        judge_infos.append(JudgeInfo(j, cal.verdict() if cal else f"judge {j}: not calibrated yet", cal))
    return Provenance(
        project=project.config.name, root=str(project.root), corpus_hash=project.corpus_hash(),
        tiers=[TierInfo(t.name, t.kind, level_of(t), len(t.doc_ids), t.tokens, len(project.tier_query_ids(t)), tier_hash(project, t)) for t in tiers],
        manifests=manifests, embedder=embedder_name(project), models=model_cfgs, judges=judge_infos,
        seeds={"ladder": project.config.ladder.seed, "bootstrap": seed}, model_calls=calls, cache_hits=hits,
        queries_version=project.queries_version, capped=capped_answers(project, tiers),
    )


def query_report(project: Project, qv: QueryVerdicts, collector: VerdictReader, tiers: list[Tier], query_id: str) -> QueryReport:
    q = project.query(query_id)
    verdicts: dict[str, list[QueryVerdict]] = {}
    for v in qv.verdicts:
        if v.query_id == query_id:
            verdicts.setdefault(v.system, []).append(v)
    first = {s: (f.level if (f := first_decided_failure(qv, s, query_id)) else None) for s in verdicts}
    found: list[Distractor] = []
    spec = next((s for s in qv.systems if s.name == qv.primary), None)
    fail = first_decided_failure(qv, qv.primary, query_id) if qv.primary else None
    if spec is not None and spec.access and fail is not None:
        tier = next(t for t in tiers if t.name == fail.tier)
        ranked = collector.tier_store(tier).rankings.get(spec.access, {}).get(query_id)
        if ranked:
            found = distractors(project, tier, q, spec.access, ranked, qv.k)
    return QueryReport(
        query_id=q.query_id, query=q.query, answer=q.answer, domain=q.domain, kind=q.kind, multi_source=q.is_multi_source,
        gold={g: project.documents[g].title for g in sorted(q.gold_doc_ids)}, verdicts=verdicts, first_failing=first,
        distractors=found, distractor_level=fail.level if fail is not None else None,
    )


def production_first(qv: QueryVerdicts) -> QueryVerdicts:
    """The verdicts with production's system as the shown one (the one with most verdicts: the
    queries it served); unchanged when no production system has any."""
    served = {s.name: len(qv.of(s.name)) for s in qv.systems if s.reader == "production"}
    served = {name: n for name, n in served.items() if n}
    if not served:
        return qv
    return msgspec.structs.replace(qv, primary=min(served, key=lambda name: (-served[name], name)))


def _own_stealers(project: Project, tiers: list[Tier], qv: QueryVerdicts, query_ids: set[str] | None) -> list[Stealer]:
    """The shown system's stealers, from its own ranking only (production's: its retriever's)."""
    spec = next((s for s in qv.systems if s.name == qv.primary), None)
    if spec is None or not spec.access:
        return []
    return top_stealers(project, [x for x in steals(project, tiers, qv.k, query_ids) if x.system == spec.access])


def build_report(project: Project, tiers: list[Tier], query_ids: set[str] | None = None, seed: int = DEFAULT_SEED,
                 k: int | None = None, collector: VerdictReader | None = None, focus: str = "") -> Report:
    """``focus`` "production": production's system leads (`report --since`: a collection window)."""
    collector = collector or VerdictReader(project, k)
    qv = read_verdicts(project, tiers, query_ids, collector=collector)
    if focus == "production":
        qv = production_first(qv)
    ov = overview(project, tiers, qv, collector, query_ids, seed)
    qids = list(dict.fromkeys(v.query_id for v in qv.verdicts))
    focused = focus == "production" and any(s.name == qv.primary and s.reader == "production" for s in qv.systems)
    return Report(
        format=FORMAT_VERSION, provenance=_provenance(project, tiers, collector, seed), k=qv.k, levels=qv.levels,
        level_tiers=qv.level_tiers, systems=qv.systems, primary=qv.primary, rules=RULES, answer_rule=ANSWER_RULE,
        reading_rules=READING_RULES, arms=ARM_LABELS, overview=ov,
        queries=[query_report(project, qv, collector, tiers, q) for q in qids], empty_tiers=qv.empty_tiers,
        sweeps=sweeps_dict(project) if query_ids is None else {},
        access_first=access_first(project, tiers, qv, collector, query_ids, answers=ov.answers, own=focused),
        insight=insight_section(project, tiers, collector, qv, query_ids, seed),
        fixes=fix_effects(project, tiers, collector, seed),
        recommended=primary_recommendations(project, qv, tiers, collector),
        funnels=qv.funnels,
        next_action=next_action(project, qv, collector, tiers),
        focus="production" if focused else "",
        lead_stealers=_own_stealers(project, tiers, qv, query_ids) if focused else None,
    )
