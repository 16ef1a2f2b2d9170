"""One query's report (`workbench report P --queries ID`, the TUI's per-query export): its own
document, not the project's template cut down. Per tier in ladder order: the verdict of the
report's system, every system's top K with where each gold document landed, the near misses
ranked above the gold with their word-level differences (inspection/worddiff.py), and every stored
answer. Rendered by query_page.py; built from stored results only."""

from __future__ import annotations

import msgspec

from workbench.llm.answers import AnswerCheck
from workbench.diagnosis.verdicts import VerdictReader, QueryVerdict, level_of
from workbench.diagnosis.nearmiss import around_changes
from workbench.inspection.rankings import SystemRanking, inspect_stored
from workbench.inspection.worddiff import salient_changes
from workbench.project.files import Project
from workbench.records import Tier
from workbench.report.build import Report, build_report
from workbench.report.partial import shown_verdict
from workbench.triage.answers import LEFT_OUT_BASIS, TASK, answers_left_out

MAX_WORDS = 8


class NearMissView(msgspec.Struct, frozen=True):
    doc_id: int
    title: str
    kind: str  # hard_negative | other
    ranks: dict[str, int]  # system → rank, where it outranks a gold document
    imitates: int
    imitates_title: str
    similarity: float
    distractor_has: list[str]  # salient words only the near miss has (years, numbers, names first)
    gold_has: list[str]
    distractor_spans: list[tuple[str, bool]]  # its text around the differences; True = changed
    gold_spans: list[tuple[str, bool]]


class TierView(msgspec.Struct, frozen=True):
    tier: str
    level: str
    k: int
    verdict: QueryVerdict | None  # of the report's system
    shown: str  # the verdict word shown (ACCESS? for a provisional access failure)
    others: dict[str, str]  # the other systems' shown verdicts
    systems: list[SystemRanking]  # every stored ranking: top K and the gold ranks
    near_misses: list[NearMissView]
    answers: list[AnswerCheck]  # every stored answer to this query on this tier
    capped: list[str]  # systems whose stored completion the length cap cut
    verdict_access: str = ""  # the ranking the verdict reads (shown first)


class QueryPage(msgspec.Struct, frozen=True):
    report: Report  # the one-query report: provenance, system, rules, answer rule
    query_id: str
    query: str
    answer: str
    domain: str
    kind: str
    multi_source: bool
    gold: dict[int, str]
    hard_negatives: dict[int, str]
    tiers: list[TierView]


def _near_misses(project: Project, ins) -> list[NearMissView]:
    out = []
    for m in ins.near_misses:
        diff = ins.diffs[m.doc_id]
        left, right = salient_changes(diff)
        out.append(NearMissView(
            doc_id=m.doc_id, title=m.title, kind=m.kind, ranks=m.ranks, imitates=m.imitates,
            imitates_title=project.documents[m.imitates].title, similarity=m.similarity,
            distractor_has=(left or diff.left_only)[:MAX_WORDS], gold_has=(right or diff.right_only)[:MAX_WORDS],
            distractor_spans=around_changes(diff.left), gold_spans=around_changes(diff.right),
        ))
    return out


def _unjudged_production(tier: str, query_id: str, shown: list[AnswerCheck], left_out) -> list[AnswerCheck]:
    """Production's answers that no use run holds (the query has no reference answer), shown
    undecided: what production answered, with what it read."""
    have = {a.system for a in shown}
    return [AnswerCheck(
        query_id=query_id, arm=TASK, system=system, tier=tier, answer=a.answer, refusal=False, judge=None,
        judge_score=None, judge_scores=[], judge_trusted=None, judge_reason="", exact=False, contains=False, f1=0.0,
        correct=False, basis=LEFT_OUT_BASIS,
        gold_given=False, context_doc_ids=list(a.context_doc_ids), run_queries=0, source="production import",
        decision="undecided") for system, a in left_out if system not in have]


def build_query_page(project: Project, tiers: list[Tier], query_id: str, seed: int = 0, k: int | None = None) -> QueryPage:
    collector = VerdictReader(project, k)
    report = build_report(project, tiers, {query_id}, seed=seed, collector=collector)
    q = project.query(query_id)
    mine = next((x for x in report.queries if x.query_id == query_id), None)
    verdicts: dict[str, list[QueryVerdict]] = mine.verdicts if mine else {}
    capped = {(c.tier, c.system) for c in report.provenance.capped if c.query_id == query_id}
    order = {lv: i for i, lv in enumerate(report.levels)}
    spec = next((s for s in report.systems if s.name == report.primary), None)
    access = (spec.access or "") if spec else ""
    views = []
    for t in sorted((t for t in tiers if query_id in project.tier_query_ids(t)), key=lambda t: (order.get(level_of(t), len(order)), t.name)):
        at = {s: next((v for v in vs if v.tier == t.name), None) for s, vs in verdicts.items()}
        v = at.get(report.primary or "")
        ins = inspect_stored(project, t, q, collector.k)
        ts = collector.tier_store(t)
        # every stored answer: the models' and production's imported ones (import-answers, import-traces)
        answers = sorted((checks[query_id] for checks in (*ts.answers.values(), *ts.production.values()) if query_id in checks),
                         key=lambda a: (a.arm, a.system))
        if t.kind == "full":  # where production's answers are stored
            answers += _unjudged_production(t.name, query_id, answers, answers_left_out(project, query_id))
        views.append(TierView(
            tier=t.name, level=level_of(t), k=collector.k, verdict=v, shown=shown_verdict(v) if v else "",
            others={s: shown_verdict(x) for s, x in at.items() if x is not None and s != report.primary},
            systems=ins.systems, near_misses=_near_misses(project, ins), answers=answers,
            capped=sorted(s for tier, s in capped if tier == t.name), verdict_access=access,
        ))
    return QueryPage(
        report=report, query_id=q.query_id, query=q.query, answer=q.answer, domain=q.domain, kind=q.kind,
        multi_source=q.is_multi_source, gold={g: project.documents[g].title for g in sorted(q.gold_doc_ids)},
        hard_negatives={d: project.documents[d].title for d in sorted(q.hard_negative_ids) if d in project.documents},
        tiers=views,
    )
