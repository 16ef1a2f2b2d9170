"""Position effects in long context: does the model lose the gold by where it sits in the input?

The whole-tier context's order is seeded and known (workbench/llm/tasks.py: tier_order; a QA
answer also stores the order it was given). A gold document's *depth* is where its serialised
text starts, in tokens, as a share of the whole serialised context; its decile is
min(9, ⌊10 · depth⌋). From stored long-context runs only (no model call), per tier and per level:

  localization recall   per (query, gold document): is it among the DocIDs the model listed
                        (top K), by that gold document's decile
  answer correctness    per query answered with the whole tier in context (QA): right or wrong
                        (workbench/correctness.py via the diagnosis' answer check), by the decile
                        of its deepest gold document (the last evidence the model reaches)

Every cell carries its count; LOFT saw recall fall as the gold moved toward the end.
"""

from __future__ import annotations

import msgspec

from workbench.llm.answers import check_answer
from workbench.diagnosis.verdicts import VerdictReader, level_of
from workbench.llm.records import TierRun
from workbench.llm.store import LLMRunStore
from workbench.llm.tasks import tier_order
from workbench.project.files import Project
from workbench.records import Tier
from workbench.tokens import count_tokens, serialize_doc

DECILES = 10


class DecileCell(msgspec.Struct, frozen=True):
    decile: int  # 0 = the first tenth of the input
    loc_n: int  # gold documents at this depth in localization runs
    loc_found: int
    qa_n: int  # QA answers whose deepest gold is at this depth
    qa_correct: int

    @property
    def recall(self) -> float | None:
        return self.loc_found / self.loc_n if self.loc_n else None

    @property
    def correct(self) -> float | None:
        return self.qa_correct / self.qa_n if self.qa_n else None


class PositionTable(msgspec.Struct, frozen=True):
    model: str
    scope: str  # a tier name, or "level <level>" for the tiers of a level together
    tiers: list[str]
    cells: list[DecileCell]  # DECILES of them, first to last

    @property
    def localized(self) -> int:
        return sum(c.loc_n for c in self.cells)

    @property
    def answered(self) -> int:
        return sum(c.qa_n for c in self.cells)


def depths(project: Project, order: list[int], encoding: str) -> dict[int, float]:
    """Each document's start in the serialised context (serialize_docs: one newline between documents), 0–1."""
    starts, at = {}, 0
    for doc_id in order:
        starts[doc_id] = at
        at += count_tokens(serialize_doc(project.documents[doc_id]) + "\n", encoding)
    return {d: s / at for d, s in starts.items()} if at else {}


def decile(depth: float) -> int:
    return min(DECILES - 1, int(depth * DECILES))


def _tier_runs(project: Project, tier: Tier) -> dict[str, list[TierRun]]:
    out: dict[str, list[TierRun]] = {}
    for run in LLMRunStore(project).runs(tier):
        if run.task in ("localize", "qa") and run.fits and run.variant == "standard":
            out.setdefault(run.model, []).append(run)
    return out


def _tally(project: Project, tier: Tier, runs: list[TierRun], collector: VerdictReader,
           query_ids: set[str] | None) -> list[list[int]]:
    """[loc_n, loc_found, qa_n, qa_correct] per decile for one model's runs on one tier."""
    cells = [[0, 0, 0, 0] for _ in range(DECILES)]
    cache: dict[tuple[int, ...], dict[int, float]] = {}

    def depth_of(order: list[int]) -> dict[int, float]:
        key = tuple(order)
        if key not in cache:
            cache[key] = depths(project, order, project.config.tokenizer)
        return cache[key]

    for run in runs:
        seed = project.config.ladder.seed if run.seed is None else run.seed
        if run.task == "localize":
            where = depth_of(tier_order(tier, seed))
            for r in run.localize:
                if (query_ids is not None and r.query_id not in query_ids) or not project.has_query(r.query_id):
                    continue
                listed = set(r.doc_ids[: run.k])
                for g in project.query(r.query_id).gold_doc_ids:
                    if g in where:
                        cell = cells[decile(where[g])]
                        cell[0] += 1
                        cell[1] += g in listed
            continue
        trusted = collector.trusted(run.judge)
        for a in run.qa:
            if not a.judged or (query_ids is not None and a.query_id not in query_ids) or not project.has_query(a.query_id):
                continue
            q = project.query(a.query_id)
            where = depth_of(list(a.context_doc_ids))
            gold = [where[g] for g in q.gold_doc_ids if g in where]
            if gold:
                cell = cells[decile(max(gold))]
                cell[2] += 1
                cell[3] += check_answer(q, run, a, trusted).correct
    return cells


def position_tables(project: Project, tiers: list[Tier], collector: VerdictReader | None = None,
                    query_ids: set[str] | None = None) -> list[PositionTable]:
    """Per model: one table per tier with a stored long-context run, then one per level of several tiers."""
    c = collector or VerdictReader(project)
    per_tier: list[tuple[str, Tier, list[list[int]]]] = []
    for tier in tiers:
        for model, runs in sorted(_tier_runs(project, tier).items()):
            per_tier.append((model, tier, _tally(project, tier, runs, c, query_ids)))
    out = [PositionTable(m, t.name, [t.name], _cells(cells)) for m, t, cells in per_tier]
    groups: dict[tuple[str, str], list[tuple[Tier, list[list[int]]]]] = {}
    for m, t, cells in per_tier:
        groups.setdefault((m, level_of(t)), []).append((t, cells))
    for (m, level), members in groups.items():
        if len(members) > 1:
            summed = [[sum(cells[d][i] for _, cells in members) for i in range(4)] for d in range(DECILES)]
            out.append(PositionTable(m, f"level {level}", [t.name for t, _ in members], _cells(summed)))
    return [t for t in out if t.localized or t.answered]


def _cells(cells: list[list[int]]) -> list[DecileCell]:
    return [DecileCell(d, *cells[d]) for d in range(DECILES)]
