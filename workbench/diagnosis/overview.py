"""Per level × system: access and use with seeded bootstrap intervals, where each curve turns,
and a reading per level and overall with the rule beside it and recommendations keyed to it.

Reading of one system on one level, from its decided per-query verdicts
(A = ACCESS, U = USE + USE-UNDER-DISTRACTORS, B = BOTH, F = A + U + B):

  F = 0        balanced       nothing fails here
  B ≥ F/2      both           most failures miss the gold and could not use it anyway
  A ≥ 2·U      retrieval-bound  access failures at least twice the use failures
  U ≥ 2·A      use-bound      use failures at least twice the access failures
  otherwise    balanced       access and use fail about as often

ACCESS?, UNDECIDED and NOT-YET are not decided. With nothing decided yet, provisional access
failures (ACCESS?: the gold does not reach the reader) still lead: the reading says how many and
recommends the access fixes.

A reading carries its n (verdicts behind it, decided and pending) and its certainty: *settled* when no
outcome of the pending verdicts could change it (an ACCESS? can only become ACCESS or BOTH; any other
pending verdict PASS, ACCESS, USE or BOTH: the reading's regions are convex in (A, U, B), so the
corners of what the pending verdicts can reach decide it), else *tentative*, with the fewest answers
that could change it and the fewest that, going its way, would settle it.

Recommendations follow the method's fix order: access first (you cannot reason over evidence you
never found), then use. The access fixes stay while access loses gold (ACCESS, BOTH or ACCESS?),
whatever the reading of the decided verdicts.
"""

from __future__ import annotations

from collections import Counter

import msgspec

from workbench.llm.answers import ARM_LABELS
from workbench.names import TASKS
from workbench.diagnosis.verdicts import VerdictReader, QueryVerdicts, SystemSpec, level_of
from workbench.diagnosis.rules import PENDING
from workbench.stats import DEFAULT_SEED, TURN_THRESHOLD, Estimate, Turn, bootstrap_ci, turning_point
from workbench.project.files import Project
from workbench.records import Tier
from workbench.project.settings import MIN_DECIDED, reading_given

READING_RULES = {
    "none": "no decided verdict yet",
    "provisional": "no decided verdict yet; the gold does not reach the reader of some queries (ACCESS?, provisional until an oracle answer)",
    "too-few": f"fewer than {MIN_DECIDED} decided verdicts: no reading yet",
    "clean": "F = 0: nothing fails here",
    "both": "B ≥ F/2: most failures miss the gold and could not use it anyway",
    "retrieval-bound": "A ≥ 2·U: access failures at least twice the use failures",
    "use-bound": "U ≥ 2·A: use failures at least twice the access failures",
    "balanced": "access and use failures within a factor of two of each other",
}

# Arms whose prompt holds no tier's documents (only the gold): one answer per query, served on every
# tier that holds it (workbench/llm/store.py LLMRunStore.runs).
TIER_FREE_ARMS = tuple(name for name, spec in TASKS.items() if spec.context == "gold")

ACCESS_FIXES = [
    "hybrid search (BM25 + dense fused with RRF) if this system is not hybrid yet",
    "a reranker (cross-encoder) over the top 100 before the top K is cut",
    "hard-negative fine-tuning of the embedder on the near misses listed per query",
]
USE_FIXES = [
    "prompting: ask the model to restate the constraint (entity, year, number) before answering",
    "evidence ordering: the best-ranked documents first (and last), near misses away from them",
    "verification: check the answer against the document it came from before returning it",
]


class AccessRow(msgspec.Struct, frozen=True):
    system: str
    level: str
    n: int
    n_single: int
    n_multi: int
    r_at_1: Estimate
    sr: Estimate
    fr: Estimate
    gap: Estimate  # SR@K − FR@K over multi-source queries


class UseRow(msgspec.Struct, frozen=True):
    model: str
    arm: str  # qa | oracle | rag
    retriever: str  # rag only
    level: str
    accuracy: Estimate  # share of answers decided correct (answers.py)
    judge_mean: float | None  # mean median judge score 0–5
    judge_trusted: bool | None  # False: the judge failed calibration — its mean is not evidence
    exact: float | None
    contains: float | None
    f1: float | None
    from_tui: int  # answers that came from one-query TUI runs
    undecided: int = 0  # answers the deterministic rule abstained on: left out of `accuracy`, counted here

    @property
    def label(self) -> str:
        return f"{self.model} {ARM_LABELS[self.arm]}" + (f" on {self.retriever}" if self.retriever else "")


class Reading(msgspec.Struct, frozen=True):
    system: str
    level: str  # "overall" for all levels together
    counts: dict[str, int]
    decided: int
    reading: str
    rule: str
    recommendations: list[str]
    n: int = 0  # verdicts behind it (query × level), decided and pending
    certainty: str = ""  # "settled" | "tentative" ("": no reading given)
    could_change: int | None = None  # tentative: the fewest more answers that could change it
    to_settle: int | None = None  # tentative: more answers that, going its way, would settle it (the fewest, up to 256)

    @property
    def certainty_line(self) -> str:
        """The reading's n and certainty in words (diagnose, the report and the TUI say the same)."""
        pending = self.n - self.decided
        of = f"{self.decided} decided of {self.n} verdicts"
        if self.certainty == "settled":
            return f"settled: {of}" + (f"; the {pending} pending cannot change it" if pending else "")
        if self.certainty == "tentative":
            change = (f"{self.could_change} more answer{'' if self.could_change == 1 else 's'} could change it"
                      if self.could_change else "the pending answers could change it")
            settle = f"; {self.to_settle} more, going its way, would settle it" if self.to_settle else ""
            return f"tentative: {of}, {pending} wait for an answer; {change}{settle}"
        return of

    @property
    def said(self) -> str:
        """The reading with its certainty: "use-bound (tentative: 8 decided of 100 verdicts, …)"."""
        return f"{self.reading} ({self.certainty_line})"


class CurveTurn(msgspec.Struct, frozen=True):
    curve: str
    turn: Turn | None


class Overview(msgspec.Struct, frozen=True):
    seed: int
    threshold: float
    access: list[AccessRow]
    use: list[UseRow]
    turns: list[CurveTurn]
    readings: list[Reading]
    # Stored answers behind the use rows, each once: an oracle answer is the same prompt
    # on every tier holding its query and is one answer (answer_figures: counted once per level row).
    answers: int = 0
    answer_figures: int = 0  # the same answers counted per level row (what the use rows stand on together)


NO_READING = "no reading yet"  # nothing decided: never "undecided" (that word is the verdict UNDECIDED's)
_NAMES = {"none": NO_READING, "provisional": NO_READING, "too-few": "too few decided", "clean": "balanced"}


def reading_key(a: int, u: int, b: int, decided: int, provisional: int) -> str:
    """The row of READING_RULES that holds (the module docstring's table)."""
    f = a + u + b
    if decided == 0:
        return "provisional" if provisional else "none"
    if not reading_given(decided):  # one verdict is no reading: the report, diagnose and the TUI agree
        return "too-few"
    if f == 0:
        return "clean"
    if b * 2 >= f:
        return "both"
    if a >= 2 * u:
        return "retrieval-bound"
    if u >= 2 * a:
        return "use-bound"
    return "balanced"


# What a pending verdict can still become, as (A, U, B) added: an ACCESS? (gold not reached) only
# ACCESS or BOTH; any other pending one PASS, ACCESS, USE or BOTH.
_OUTCOMES = {"PASS": (0, 0, 0), "ACCESS": (1, 0, 0), "USE": (0, 1, 0), "BOTH": (0, 0, 1)}


def _settled(a: int, u: int, b: int, decided: int, provisional: int, other: int) -> bool:
    """No outcome of the pending verdicts changes the reading: every corner of what they can reach
    (each region of the table is convex in (A, U, B), so the corners decide it) gives the one now."""
    now = reading_key(a, u, b, decided, provisional)
    pending = provisional + other
    if pending == 0:
        return True
    for pa, pu, pb in (_OUTCOMES["ACCESS"], _OUTCOMES["BOTH"]):
        for oa, ou, ob in _OUTCOMES.values():
            end = reading_key(a + pa * provisional + oa * other, u + pu * provisional + ou * other,
                              b + pb * provisional + ob * other, decided + pending, 0)
            if end != now:
                return False
    return True


def _add(state: tuple[int, int, int, int, int, int], outcome: str, j: int) -> tuple[int, int, int, int, int, int] | None:
    """``j`` more pending verdicts decided as ``outcome`` (an ACCESS? first when it can be one); None: not that many can."""
    a, u, b, decided, provisional, other = state
    from_prov = min(j, provisional) if outcome in ("ACCESS", "BOTH") else 0
    if j - from_prov > other:
        return None
    da, du, db = _OUTCOMES[outcome]
    return a + da * j, u + du * j, b + db * j, decided + j, provisional - from_prov, other - (j - from_prov)


def certainty(a: int, u: int, b: int, decided: int, provisional: int, other: int) -> tuple[str, int | None, int | None]:
    """(settled | tentative, the fewest more answers that could change the reading, the fewest that,
    going its way, settle it)."""
    state = (a, u, b, decided, provisional, other)
    if _settled(*state):
        return "settled", None, None
    now = reading_key(a, u, b, decided, provisional)
    pending = provisional + other
    change = next((j for j in range(1, pending + 1) for o in _OUTCOMES
                   if (s := _add(state, o, j)) is not None and reading_key(*s[:5]) != now), None)
    settle = next((j for j in _steps(pending) for o in _OUTCOMES
                   if (s := _add(state, o, j)) is not None and reading_key(*s[:5]) == now and _settled(*s)), None)
    return "tentative", change, settle


def _steps(pending: int, exact: int = 256) -> list[int]:
    """How many more answers to try: each up to ``exact``, then growing by a quarter (a reading over
    tens of thousands of verdicts stays quick; the count found is then one that settles it, near the fewest)."""
    out = list(range(1, min(pending, exact) + 1))
    j = exact
    while j < pending:
        j = min(pending, j + max(1, j // 4))
        out.append(j)
    return out


def reading_of(counts: Counter, system: str, level: str, rag: bool) -> Reading:
    a, b = counts["ACCESS"], counts["BOTH"]
    u = counts["USE"] + counts["USE-UNDER-DISTRACTORS"]
    f = a + u + b
    decided = sum(n for v, n in counts.items() if v not in PENDING)
    provisional = counts["ACCESS?"]
    other = sum(n for v, n in counts.items() if v in PENDING and v != "ACCESS?")
    key = reading_key(a, u, b, decided, provisional)
    name = _NAMES.get(key, key)
    recs: list[str] = []
    if a + b + provisional:  # access loses gold: its fixes stay, first (the method's order), whatever the reading
        recs += ACCESS_FIXES if rag or key not in ("balanced", "use-bound") else ACCESS_FIXES[1:]
    if name in ("use-bound", "both", "balanced") and f:
        recs += USE_FIXES
        if counts["USE-UNDER-DISTRACTORS"] > counts["USE"]:
            recs.insert(len(recs) - 2, "distractors: the model is right with the gold alone — filter or demote the near misses")
    given = reading_given(decided)
    sure, change, settle = certainty(a, u, b, decided, provisional, other) if given else ("", None, None)
    rule = f"{READING_RULES[key]} (A={a}, U={u}, B={b}, F={f}, decided {decided}" + (f"; ACCESS? {provisional}" if provisional else "") + ")"
    return Reading(system, level, dict(sorted(counts.items())), decided, name, rule, recs, n=sum(counts.values()),
                   certainty=sure, could_change=change, to_settle=settle)


def overview(project: Project, tiers: list[Tier], qv: QueryVerdicts, collector: VerdictReader,
             query_ids: set[str] | None = None, seed: int = DEFAULT_SEED) -> Overview:
    by_level: dict[str, list[Tier]] = {}
    for t in tiers:
        by_level.setdefault(level_of(t), []).append(t)
    rankers = sorted({s for t in tiers for s in collector.tier_store(t).rankings})
    access_rows, use_rows, turns = [], [], []
    series: dict[str, list[tuple[str, dict[str, float]]]] = {}
    for system in rankers:
        for level in qv.levels:
            per = {}
            for t in by_level[level]:
                for qid in project.tier_query_ids(t):
                    if query_ids is None or qid in query_ids:
                        a = collector.access(t, system, project.query(qid))
                        if a is not None:
                            per[qid] = a
            if not per:
                continue
            single = {q: a.r_at_1 for q, a in per.items() if a.r_at_1 is not None}
            multi = {q: a for q, a in per.items() if a.fr_at_k is not None}
            sr = {q: a.sr_at_k for q, a in per.items()}
            fr = {q: a.fr_at_k for q, a in multi.items()}
            salt = f"{system}:{level}"
            access_rows.append(AccessRow(
                system, level, len(per), len(single), len(multi),
                bootstrap_ci(list(single.values()), seed, "R@1:" + salt), bootstrap_ci(list(sr.values()), seed, "SR:" + salt),
                bootstrap_ci(list(fr.values()), seed, "FR:" + salt),  # type: ignore[arg-type]
                bootstrap_ci([a.sr_at_k - a.fr_at_k for a in multi.values()], seed, "gap:" + salt),  # type: ignore[operator]
            ))
            series.setdefault(f"{system} SR@{qv.k}", []).append((level, sr))
            if fr:
                series.setdefault(f"{system} FR@{qv.k}", []).append((level, fr))  # type: ignore[arg-type]
    slots = sorted({key for t in tiers for key in collector.tier_store(t).answers})
    stored: set[tuple[str, str, str, str, str]] = set()
    figures = 0
    for model, arm, retriever in slots:
        for level in qv.levels:
            checks = []
            for t in by_level[level]:
                for qid in project.tier_query_ids(t):
                    if query_ids is None or qid in query_ids:
                        c = collector.answer(t, model, arm, qid, retriever)
                        if c is not None:
                            checks.append(c)
            if not checks:
                continue
            stored.update((model, arm, retriever, c.query_id, "" if arm in TIER_FREE_ARMS else c.tier) for c in checks)
            figures += len(checks)
            scored = [c.judge_score for c in checks if c.judge_score is not None]
            trust = {c.judge_trusted for c in checks}
            decided = [c for c in checks if c.decided]
            row = UseRow(
                model, arm, retriever, level,
                bootstrap_ci([float(c.correct) for c in decided], seed, f"use:{model}:{arm}:{retriever}:{level}"),
                sum(scored) / len(scored) if scored else None,
                False if False in trust else (None if None in trust else True),
                sum(c.exact for c in checks) / len(checks), sum(c.contains for c in checks) / len(checks),
                sum(c.f1 for c in checks) / len(checks), sum(c.source == "TUI run" for c in checks),
                len(checks) - len(decided),
            )
            use_rows.append(row)
            series.setdefault(f"{row.label} accuracy", []).append((level, {c.query_id: float(c.correct) for c in decided}))
    for curve, points in series.items():
        turns.append(CurveTurn(curve, turning_point(points, seed, salt=curve)))
    readings = [r for spec in qv.systems for r in system_readings(qv, spec)]
    return Overview(seed, TURN_THRESHOLD, access_rows, use_rows, turns, readings, answers=len(stored), answer_figures=figures)


def system_readings(qv: QueryVerdicts, spec: SystemSpec) -> list[Reading]:
    """One system's reading per level (ladder order), then overall."""
    mine = qv.of(spec.name)
    out = []
    for level in qv.levels:
        counts = Counter(v.verdict for v in mine if v.level == level)
        if counts:
            out.append(reading_of(counts, spec.name, level, spec.reader == "rag"))
    out.append(reading_of(Counter(v.verdict for v in mine), spec.name, "overall", spec.reader == "rag"))
    return out

