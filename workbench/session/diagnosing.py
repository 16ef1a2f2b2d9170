"""One diagnosis view: what `workbench diagnose` shows — the verdicts, where the gold is lost, a
reading per system, the shown system's recommendations and the sharper diagnosis (effective corpus
size, the near-miss split) — read from ONE reading of the stored results with every option honoured
(the oracle model that settles production's verdicts, K, the queries asked for). The front end only
lays it out; nothing here is printed."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from workbench.errors import BadInput
from workbench.session.selection import Selection

if TYPE_CHECKING:
    from workbench.diagnosis.recommend import Recommendation
    from workbench.diagnosis.verdicts import QueryVerdict, QueryVerdicts, VerdictReader
    from workbench.insight.effective_size import EffectiveSize
    from workbench.project.files import Project
    from workbench.records import Tier

LOST = ("ACCESS", "ACCESS?", "BOTH")  # the gold did not reach the reader, confirmed or not
FUNNEL_BAR_WIDTH = 30


class AccessFirst(msgspec.Struct, frozen=True):
    """The shown system's queries whose gold does not reach the reader (access needs no model: it leads)."""

    queries: int
    access: int  # verdicts ACCESS
    both: int
    provisional: int  # ACCESS?
    per_level: dict[str, int]  # level -> queries lost there (levels with none left out)


class VerdictRow(msgspec.Struct, frozen=True):
    """One query of the verdict table: its verdict per level, the rule and facts at its first failing tier."""

    query_id: str
    cells: dict[str, str]  # level -> "VERDICT" or "VERDICT (parametric)"
    because: str  # "RULE: facts", "" when nothing failed


class FunnelLine(msgspec.Struct, frozen=True):
    level: str
    bar: str
    n: int
    counts: str


class SystemReadingLine(msgspec.Struct, frozen=True):
    """A system's overall reading: what it says and why."""

    system: str
    said: str
    rule: str


class DistractorSplit(msgspec.Struct, frozen=True):
    """A system's USE-UNDER-DISTRACTORS verdicts split by cause (D2 interference, D3 volume); D1 not split yet."""

    system: str
    total: int
    causes: list[tuple[str, int, str]]  # (cause, count, rule)
    not_split: int
    command: str  # what splits the rest: the near-miss arm's run


class Pending(msgspec.Struct, frozen=True):
    """The shown system's verdicts still waiting (ACCESS?, UNDECIDED, NOT-YET), one example each."""

    word: str
    count: int
    example: QueryVerdict


class DiagnosisView(msgspec.Struct, frozen=True):
    """Everything `diagnose` prints, from one VerdictReader (``oracle_model`` is the model it used)."""

    verdicts: QueryVerdicts
    system: str  # the system whose verdicts are listed
    oracle_model: str
    queries_version: str
    access_first: AccessFirst | None
    rows: list[VerdictRow]
    funnel_legend: str
    funnel: list[FunnelLine]
    readings: list[SystemReadingLine]
    recommendations: list[Recommendation]
    effective_sizes: list[EffectiveSize]
    distractors: list[DistractorSplit]
    pending: list[Pending]


def verdict_reader(sel: Selection, oracle_model: str | None = None, k: int | None = None) -> "VerdictReader":
    """The one reader of a diagnosis: ``oracle_model`` checked first (an unknown one: BadInput)."""
    from workbench.diagnosis.verdicts import VerdictReader
    from workbench.llm.providers import resolve_model

    if oracle_model is not None:
        resolve_model(sel.project, oracle_model)  # an unknown model is a usage error before anything is read
    return VerdictReader(sel.project, k, oracle_model=oracle_model)


def diagnosis_view(sel: Selection, oracle_model: str | None = None, system: str | None = None) -> DiagnosisView:
    """The selection's diagnosis with ``system``'s verdicts shown (default: the diagnosis' choice),
    every part read by the same reader, so every option reaches every part."""
    from workbench.diagnosis.funnel import bar_legend
    from workbench.diagnosis.overview import system_readings
    from workbench.diagnosis.recommend import primary_recommendations
    from workbench.diagnosis.rules import PENDING
    from workbench.diagnosis.verdicts import read_verdicts

    reader = verdict_reader(sel, oracle_model)
    qv = read_verdicts(sel.project, sel.tiers, sel.query_ids, collector=reader)
    chosen = shown_system(qv, system, sel)
    mine = qv.of(chosen)
    pending = []
    for word in PENDING:
        waiting = [v for v in mine if v.verdict == word]
        if waiting:
            pending.append(Pending(word, len(waiting), waiting[0]))
    return DiagnosisView(
        verdicts=qv, system=chosen, oracle_model=reader.oracle_model, queries_version=sel.project.queries_version,
        access_first=access_first(qv, chosen), rows=verdict_rows(qv, chosen), funnel_legend=bar_legend(),
        funnel=funnel_lines(qv, chosen),
        readings=[SystemReadingLine(spec.name, r.said, r.rule) for spec in qv.systems for r in system_readings(qv, spec)[-1:]],
        recommendations=primary_recommendations(sel.project, qv, sel.tiers, reader, chosen),
        effective_sizes=shown_effective_sizes(sel.project, sel.tiers, reader, sel.query_ids),
        distractors=distractor_splits(qv, sel.project), pending=pending)


def shown_system(qv: "QueryVerdicts", system: str | None = None, sel: Selection | None = None) -> str:
    """The system whose verdicts are listed: the one asked for, else the diagnosis' own choice
    (one not among them: BadInput, saying on which tiers it lives when ``sel`` is given)."""
    from workbench.session.selection import unknown_system

    names = [s.name for s in qv.systems]
    chosen = system or qv.primary
    if chosen is None or chosen not in names:
        if sel is not None:
            raise unknown_system(sel, chosen, names)
        raise BadInput(f"unknown system {chosen!r}; known: {names}" if names else "no system has verdicts on these tiers")
    return chosen


def access_first(qv: "QueryVerdicts", system: str) -> AccessFirst | None:
    lost = [v for v in qv.of(system) if v.verdict in LOST]
    if not lost:
        return None
    per_level = {lv: len({v.query_id for v in lost if v.level == lv}) for lv in qv.levels}
    return AccessFirst(len({v.query_id for v in lost}), sum(v.verdict == "ACCESS" for v in lost),
                       sum(v.verdict == "BOTH" for v in lost), sum(v.verdict == "ACCESS?" for v in lost),
                       {lv: n for lv, n in per_level.items() if n})


def verdict_rows(qv: "QueryVerdicts", system: str) -> list[VerdictRow]:
    cells: dict[str, dict[str, str]] = {}
    for v in qv.of(system):
        cells.setdefault(v.query_id, {})[v.level] = v.verdict + (" (parametric)" if v.parametric else "")
    rows = []
    for qid, row in cells.items():
        first = qv.first_failing(system, qid)
        rows.append(VerdictRow(qid, row, f"{first.rule}: {first.because}" if first else ""))
    return rows


def funnel_lines(qv: "QueryVerdicts", system: str, width: int = FUNNEL_BAR_WIDTH) -> list[FunnelLine]:
    """Where the gold is lost, per level (workbench/diagnosis/funnel.py)."""
    from workbench.diagnosis.funnel import bar, counts_line, level_funnels

    return [FunnelLine(f.level, bar(f.funnel, width), f.n, counts_line(f.funnel)) for f in level_funnels(qv.funnels, system)]


def shown_effective_sizes(project: "Project", tiers: "list[Tier]", reader: "VerdictReader",
                          query_ids: set[str] | None = None) -> "list[EffectiveSize]":
    """Per system and metric, the sizes that have levels to compare (`eval` and `diagnose` show them)."""
    from workbench.insight.effective_size import effective_sizes

    return [e for e in effective_sizes(project, tiers, reader, query_ids=query_ids) if e.levels]


def distractor_splits(qv: "QueryVerdicts", project: "Project") -> list[DistractorSplit]:
    """USE-UNDER-DISTRACTORS per system: interference (D2), volume (D3), not split yet (D1)."""
    from workbench.diagnosis.rules import DISTRACTOR_CAUSES
    from workbench.project.suggest import command

    out = []
    for spec in qv.systems:
        mine = [v for v in qv.of(spec.name) if v.verdict == "USE-UNDER-DISTRACTORS"]
        if mine:
            out.append(DistractorSplit(spec.name, len(mine),
                                       [(cause, sum(v.rule == row for v in mine), row) for row, cause in DISTRACTOR_CAUSES.items()],
                                       sum(v.rule == "D1" for v in mine), command("run", project.root, task="nearmiss")))
    return out
