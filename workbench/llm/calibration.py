"""Can the judge tell a right answer from a wrong one? Checked before its scores are believed.

For a seeded sample of the project's queries the judge grades (a) the gold answer itself and
(b) the gold answer of another query — certainly wrong for this one. A judge that gives both
about the same score measures nothing: its QA figures are shown, but flagged as not evidence.
The calls go through the same judge prompt and the same response cache as real judging.
"""

from __future__ import annotations

import random
from pathlib import Path
from statistics import fmean
from typing import TYPE_CHECKING

import msgspec

from workbench.fsutil import atomic_write_bytes, safe_name
from workbench.correctness import normalize
from workbench.project.files import Project
from workbench.records import Query

if TYPE_CHECKING:  # the judge's client (asyncio, sqlite, openai) is not loaded to read a calibration
    from workbench.llm.client import ChatClient

CALIBRATION_DIR = Path("judge")
DEFAULT_PAIRS = 8
# A usable judge scores gold answers high, other queries' answers low, and far apart.
MIN_SEPARATION = 2.0
MAX_WRONG_MEAN = 2.0


class JudgeCalibration(msgspec.Struct, frozen=True):
    judge: str
    endpoint: str
    query_ids: list[str]
    right_scores: list[float]  # median judge score of the gold answer, per query (failures left out)
    wrong_scores: list[float]  # median judge score of another query's gold answer
    right_mean: float | None
    wrong_mean: float | None
    separates: bool

    def verdict(self) -> str:
        if self.right_mean is None or self.wrong_mean is None:
            return f"judge {self.judge}: no usable calibration scores; QA figures are not evidence"
        figures = f"gold answers {self.right_mean:.1f}, wrong answers {self.wrong_mean:.1f} (0–5)"
        if self.separates:
            return f"judge {self.judge} separates right from wrong: {figures}"
        return f"judge {self.judge} cannot tell right from wrong ({figures}): its QA figures are not evidence"


def calibration_pairs(queries: list[Query], n: int, seed: int) -> list[tuple[Query, str]]:
    """(query, an answer that is certainly wrong for it): another query's gold answer."""
    usable = [q for q in queries if normalize(q.answer)]
    rng = random.Random(f"{seed}:judge-calibration")
    picked = rng.sample(usable, min(n, len(usable)))
    pairs = []
    for i, q in enumerate(picked):
        for other in picked[i + 1 :] + picked[:i]:
            if normalize(other.answer) != normalize(q.answer):
                pairs.append((q, other.answer))
                break
    return pairs


async def calibrate_judge(
    judge: ChatClient, queries: list[Query], n: int = DEFAULT_PAIRS, seed: int = 0, samples: int = 1
) -> JudgeCalibration:
    from workbench.llm.judge import JudgeResult, JudgeUnavailable, judge_answer

    pairs = calibration_pairs(queries, n, seed)
    right, wrong = [], []
    for q, wrong_answer in pairs:
        r = await judge_answer(judge, q.query, q.answer, q.answer, samples=samples)
        if isinstance(r, JudgeUnavailable):
            break  # the endpoint is down: the other calls would fail the same way, each after its retries
        w = await judge_answer(judge, q.query, q.answer, wrong_answer, samples=samples)
        if isinstance(r, JudgeResult) and r.median is not None:  # an unreachable judge gives no evidence
            right.append(r.median)
        if isinstance(w, JudgeResult) and w.median is not None:
            wrong.append(w.median)
    right_mean = fmean(right) if right else None
    wrong_mean = fmean(wrong) if wrong else None
    separates = (
        right_mean is not None
        and wrong_mean is not None
        and right_mean - wrong_mean >= MIN_SEPARATION
        and wrong_mean <= MAX_WRONG_MEAN
    )
    return JudgeCalibration(
        judge=judge.name, endpoint=judge.endpoint_id, query_ids=[q.query_id for q, _ in pairs],
        right_scores=right, wrong_scores=wrong, right_mean=right_mean, wrong_mean=wrong_mean, separates=separates,
    )


def calibration_path(project: Project, judge: str) -> Path:
    return project.state_dir / CALIBRATION_DIR / f"{safe_name(judge)}.json"


def save_calibration(project: Project, cal: JudgeCalibration) -> None:
    atomic_write_bytes(calibration_path(project, cal.judge), msgspec.json.encode(cal))


def load_calibration(project: Project, judge: str) -> JudgeCalibration | None:
    try:
        return msgspec.json.decode(calibration_path(project, judge).read_bytes(), type=JudgeCalibration)
    except (OSError, msgspec.DecodeError):
        return None
