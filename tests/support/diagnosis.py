"""A tiny project with hand-made stored results, so every verdict of the diagnosis is known in advance.

Rankings and model runs are written straight into the stores (no index, no model call): what is
tested is the diagnosis over stored results, not retrieval or generation. K = 2 here.

  tier full:  q1 gold 1 ranked #3 > K → rag answer (context 3, 2) wrong, oracle right  → ACCESS (A1)
              q2 gold 4 ranked #1      → rag answer "cherries" (gold in context) wrong,
                                         oracle right                                  → USE-UNDER-DISTRACTORS (D1)
              q3 gold 4, 6 at #1, #2   → oracle wrong, rag wrong                        → USE (U1)
  tier base:* q1 gold 1 ranked #1      → rag answer "Paris" right                       → PASS
              q2, q3 as on full

Document 3 (a distractor of q1) carries `<script>` in its title and an escape sequence in its
text: reports must show both as text.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from support.llm_project import TINY_DOCS, TINY_QUERIES
from workbench.llm.calibration import JudgeCalibration, save_calibration
from workbench.llm.records import QAResult, TierRun
from workbench.llm.store import LLMRunStore
from workbench.project.files import write_config, write_project_files
from workbench.project.load import load_project
from workbench.records import Hit, LadderConfig, ProjectConfig, RankedList, RetrieverConfig, Tier
from workbench.access.runs import RunStore, SystemRun, tier_hash

SCRIPT_TITLE = "Berlin <script>alert('pwned')</script>"
# support/llm_project.py's tiny corpus, with document 3 (Berlin: a distractor of q1) made hostile
DOCS = [msgspec.structs.replace(d, title=SCRIPT_TITLE, text="Berlin is the capital of Germany.\x1b]0;owned\x07 The Berlin Wall fell in 1989.")
        if d.doc_id == 3 else d for d in TINY_DOCS]
QUERIES = TINY_QUERIES
RANKINGS = {  # per tier kind: query → ranked DocIDs
    "full": {"q1": [3, 2, 1, 4, 5, 6], "q2": [4, 6, 5, 1, 2, 3], "q3": [4, 6, 5, 1, 2, 3]},
    "base": {"q1": [1, 3, 2], "q2": [4, 6, 5], "q3": [4, 6, 5]},
}
# (answer, context) of the rag reader per tier kind; oracle answers do not depend on the tier
RAG = {
    "full": {"q1": ("Berlin", [3, 2]), "q2": ("cherries", [4, 6]), "q3": ("pear tart", [4, 6])},
    "base": {"q1": ("Paris", [1, 3]), "q2": ("cherries", [4, 6]), "q3": ("pear tart", [4, 6])},
}
ORACLE = {"q1": "Paris", "q2": "apples", "q3": "pears"}
JUDGE_SCORE = 5.0  # the judge gives 5/5 to everything: calibration must catch it


def make_project(root: Path) -> Path:
    from workbench.access.ladder import write_ladder

    root.mkdir(parents=True, exist_ok=True)
    write_config(root, ProjectConfig(name="tiny <b>diag</b>", ladder=LadderConfig(seed=7, base_budget=600, prompt_overhead=100),
                                     retrievers=RetrieverConfig(k=2)))
    write_project_files(root, DOCS, QUERIES)
    write_ladder(load_project(root))
    return root


def tier_kind(tier: Tier) -> str:
    return "base" if tier.kind == "base" else "full"


def store_ranking(project, tier: Tier, system: str = "hybrid", rankings: dict | None = None) -> None:
    table = rankings or RANKINGS[tier_kind(tier)]
    lists = [RankedList(q, [Hit(d, float(10 - i)) for i, d in enumerate(table[q]) if d in tier.doc_ids]) for q in tier.query_ids]
    RunStore(project).save(SystemRun(system, tier.name, tier_hash(project, tier), "test", 100, lists))


def qa_result(query_id: str, answer: str, context: list[int], score: float | None = JUDGE_SCORE, raw: str = "Score: 5") -> QAResult:
    return QAResult(
        query_id=query_id, answer=answer, refusal=False, judge_scores=[int(score)] if score is not None else [],
        judge_median=score, judge_spread=0, judge_failures=0, judge_failure=score is None, exact=None, contains=None,
        prompt_tokens=10, completion_tokens=2, latency_s=0.1, context_doc_ids=context, judge_raw=[raw], judged=True,
    )


def store_answers(project, tier: Tier, task: str, answers: dict[str, tuple[str, list[int]]], store: LLMRunStore | None = None,
                  model: str = "local", retriever: str = "hybrid", k: int = 2) -> TierRun:
    system = f"model:{model}:rag:{retriever}@{k}" if task == "rag" else f"model:{model}:{task}"
    run = TierRun(
        system=system, model=model, task=task, variant="standard", tier=tier.name, tier_hash=tier_hash(project, tier),
        key="test", fits=True, input_tokens=100, budget_tokens=7000, judge="local", k=k,
        qa=[qa_result(q, a, ctx) for q, (a, ctx) in answers.items() if q in tier.query_ids], complete=True,
    )
    (store or LLMRunStore(project)).save(run)
    return run


def calibrate(project, separates: bool) -> None:
    save_calibration(project, JudgeCalibration(
        judge="local", endpoint="test", query_ids=["q1", "q2"], right_scores=[5.0, 5.0],
        wrong_scores=[5.0, 5.0] if not separates else [0.0, 0.0], right_mean=5.0,
        wrong_mean=5.0 if not separates else 0.0, separates=separates,
    ))


def fill(root: Path, oracle_queries: tuple[str, ...] = ("q1", "q2", "q3"), separates: bool = False) -> None:
    """Every tier: hybrid rankings, rag answers; oracle answers for the given queries; a judge calibration."""
    from workbench.access.ladder import load_tiers

    project = load_project(root)
    for tier in load_tiers(project).tiers:
        store_ranking(project, tier)
        store_answers(project, tier, "rag", RAG[tier_kind(tier)])
        gold_only = {q: (ORACLE[q], sorted(project.query(q).gold_doc_ids)) for q in oracle_queries}
        if gold_only:
            store_answers(project, tier, "oracle", gold_only)
    calibrate(project, separates)
