"""Every stored model answer of the diagnosis, checked: AnswerCheck carries the judge's score
(marked when the judge failed or skipped its calibration), the deterministic matches and the
decision taken on them, so a reader can see when the two disagree. The decision rule itself is
workbench/correctness.py (one definition of "this answer is right" for the whole workbench).
"""

from __future__ import annotations

import re
from typing import Literal

import msgspec

from workbench.correctness import decide
from workbench.llm.judge import parse_score
from workbench.llm.records import QAResult, TierRun
from workbench.records import Query

_ECHO = re.compile(r"\b(example \d|question:|gold answer:|predicted answer:)", re.IGNORECASE)
Arm = Literal["qa", "oracle", "rag", "nearmiss"]
ARM_LABELS: dict[str, str] = {"qa": "QA in context", "oracle": "oracle (gold only)", "rag": "retrieve-then-read",
                              "nearmiss": "near-miss arm (gold + hard negatives)"}


class AnswerCheck(msgspec.Struct, frozen=True):
    """One model answer to one query, with every score and the decision taken on it."""

    query_id: str
    arm: str  # qa | oracle | rag
    system: str  # the stored run's system name, e.g. model:local:rag:hybrid@5
    tier: str
    answer: str
    refusal: bool
    judge: str | None
    judge_score: float | None  # median over samples; None = no usable score
    judge_scores: list[int]
    judge_trusted: bool | None  # passed calibration; None = not calibrated yet
    judge_reason: str  # the judge's words beyond the score; "" when it gave none
    exact: bool
    contains: bool
    f1: float
    correct: bool  # decided right (an undecided answer is not correct, nor wrong: see `decision`)
    basis: str  # why `correct` is what it is, in words
    gold_given: bool  # every gold document was in this answer's context
    context_doc_ids: list[int]
    run_queries: int  # how many queries the stored run behind this answer covers
    source: str  # "tier run" (workbench run) or "TUI run" (one query from the inspector)
    decision: str = ""  # right | wrong | undecided (the rule abstained: neither right nor wrong)
    named: list[str] = []  # a comparison's candidates the answer named (the decision's reason)

    @property
    def decided(self) -> bool:
        return self.decision != "undecided"

    @property
    def wrong(self) -> bool:
        return self.decided and not self.correct


def judge_reason(raw: list[str]) -> str:
    """The judge's own words beyond its score, only when its reply parsed as a score and has some."""
    if not raw or parse_score(raw[0]) is None:
        return ""
    text = " ".join(raw[0].split())
    if _ECHO.search(text):  # a small judge running on into the prompt's examples: not a reason
        return ""
    words = [w for w in text.replace(":", " ").split() if any(c.isalpha() for c in w)]
    return text if len([w for w in words if w.lower() != "score"]) >= 3 else ""


def check_answer(query: Query, run: TierRun, r: QAResult, trusted: bool | None, source: str = "tier run") -> AnswerCheck:
    d = decide(query, r.answer, r.refusal, r.judge_median if r.judged else None, trusted, run.judge)
    return AnswerCheck(
        query_id=r.query_id, arm=run.task, system=run.system, tier=run.tier, answer=r.answer, refusal=r.refusal, judge=run.judge,
        judge_score=r.judge_median if r.judged else None, judge_scores=list(r.judge_scores), judge_trusted=trusted,
        judge_reason=judge_reason(r.judge_raw), exact=d.exact, contains=d.contains, f1=round(d.f1, 4), correct=d.correct, basis=d.basis,
        gold_given=set(query.gold_doc_ids) <= set(r.context_doc_ids), context_doc_ids=list(r.context_doc_ids),
        run_queries=len(run.qa), source=source, decision=d.decision, named=list(d.named),
    )


def check_stored(project, run: TierRun, query_id: str) -> AnswerCheck | None:
    """The decision on one stored answer, with the judge's calibration looked up (for a UI's model panel)."""
    from workbench.llm.calibration import load_calibration

    r = next((x for x in run.qa if x.query_id == query_id), None)
    if r is None or (not r.judged and run.judge is not None):  # judging still to come
        return None
    cal = load_calibration(project, run.judge) if run.judge else None
    return check_answer(project.query(query_id), run, r, cal.separates if cal else None)
