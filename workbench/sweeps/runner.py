"""Running a sweep: answers first (arms sharing a context back to back), then the judge.

Resumable: an arm with a stored result is never called again; a failed call is counted and left
for the next run. The judge is calibrated before its scores are used; a judge that fails
calibration is not asked at all and the deterministic match decides (the sweep records which).
The judge sees only {question, gold answer, predicted answer} — never the length, depth or arm.
"""

from __future__ import annotations

import asyncio
import time
from typing import Callable

import msgspec

from workbench.llm import prompts
from workbench.llm.calibration import calibrate_judge, save_calibration
from workbench.llm.client import ChatClient, LLMCallError
from workbench.llm.judge import JudgeUnavailable, judge_answer
from workbench.llm.prompts import is_refusal
from workbench.llm.tasks import model_identity
from workbench.project.files import Project
from workbench.records import ModelConfig
from workbench.sweeps.arms import Planner
from workbench.sweeps.records import Arm, ArmResult, Judgement, SweepMeta, SweepSpec, sweep_kind
from workbench.correctness import answer_match
from workbench.sweeps.store import SweepStore, sweep_id

Progress = Callable[[str, int, int], None]


def make_spec(project: Project, kind: str, model: str, cfg: ModelConfig, judge: str, judge_cfg: ModelConfig, **params) -> SweepSpec:
    return SweepSpec(
        kind=sweep_kind(kind), model=model, model_identity=model_identity(cfg), judge=judge, judge_identity=model_identity(judge_cfg),
        prompt_version=f"{prompts.PROMPT_VERSION}+{prompts.SWEEP_PROMPT_VERSION}", corpus_hash=project.corpus_hash(), **params,
    )


def open_sweep(project: Project, spec: SweepSpec, cfg: ModelConfig, store: SweepStore | None = None) -> tuple[SweepMeta, list[Arm], Planner]:
    """The sweep's stored meta (created if new), its arms, and the planner that rebuilds their inputs."""
    store = store or SweepStore(project)
    planner = Planner(project, spec, cfg)
    arms = planner.arms()
    sid = sweep_id(spec)
    meta = store.load_meta(sid)
    if meta is None:
        meta = SweepMeta(sid, spec, time.time(), len(arms))
        store.save_meta(meta)
    return meta, arms, planner


async def run_sweep(
    project: Project,
    spec: SweepSpec,
    client: ChatClient,
    judge_client: ChatClient | None,
    progress: Progress | None = None,
    store: SweepStore | None = None,
    workers: int | None = None,
) -> tuple[SweepMeta, int]:
    """Run (or continue) a sweep. Returns (meta, failed calls)."""
    store = store or SweepStore(project)
    meta, arms, planner = open_sweep(project, spec, client.config, store)
    sid = meta.sweep_id
    started = time.perf_counter()
    done = store.results(sid)
    todo = [a for a in arms if a.arm_id not in done]
    finished, failed = len(arms) - len(todo), 0
    if progress:
        progress("answers", finished, len(arms))
    queue = iter(todo)  # workers take arms in order: a shared context is read back to back
    base_wall, last_save = meta.wall_s, time.perf_counter()

    def save_wall(**changes) -> SweepMeta:
        # wall time is kept as the sweep goes, so a stopped sweep still reports what it cost
        m = msgspec.structs.replace(meta, wall_s=round(base_wall + time.perf_counter() - started, 1), **changes)
        store.save_meta(m)
        return m

    async def worker() -> None:
        nonlocal finished, failed, last_save
        for arm in queue:
            inp = planner.build(arm)
            try:
                c = await client.complete(inp.messages, max_tokens=spec.max_tokens, temperature=0.0)
            except LLMCallError:
                failed += 1
                continue
            answer = c.text.strip()
            store.append_result(sid, ArmResult(
                arm_id=arm.arm_id, answer=answer, match=bool(arm.gold) and answer_match(answer, arm.gold),
                refusal=is_refusal(answer), input_tokens=inp.input_tokens, prompt_tokens=c.prompt_tokens,
                completion_tokens=c.completion_tokens, latency_s=c.latency_s, context_doc_ids=inp.context_doc_ids,
                evidence_depths=inp.evidence_depths, cached=c.cached,
            ))
            finished += 1
            if progress:
                progress("answers", finished, len(arms))
            if time.perf_counter() - last_save > 30:
                save_wall()
                last_save = time.perf_counter()

    await asyncio.gather(*(worker() for _ in range(max(1, workers or client.config.concurrency))))

    verdict, trusted = "no judge", False
    if judge_client is not None:
        cal = await calibrate_judge(judge_client, project.queries, seed=spec.seed)
        save_calibration(project, cal)
        verdict, trusted = cal.verdict(), cal.separates
        if trusted:
            failed += await _judge_all(store, sid, arms, judge_client, spec.judge_samples, progress)
    if not trusted:
        verdict += " — the deterministic match decides"
    return save_wall(calibration=verdict, judge_trusted=trusted), failed


async def _judge_all(store: SweepStore, sid: str, arms: list[Arm], judge: ChatClient, samples: int, progress: Progress | None) -> int:
    results, judged = store.results(sid), store.judgements(sid)
    todo = [a for a in arms if a.arm_id in results and a.arm_id not in judged and a.gold]
    failed, n = 0, 0
    for arm in todo:
        j = await judge_answer(judge, arm.question, arm.gold, results[arm.arm_id].answer, samples=samples)
        if isinstance(j, JudgeUnavailable):
            failed += 1  # a judge failure, not a score: retried on the next run, never recorded as judged
            continue
        store.append_judgement(sid, Judgement(arm.arm_id, j.scores, j.median))
        n += 1
        if progress:
            progress("judge", n, len(todo))
    return failed
