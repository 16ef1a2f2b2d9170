"""Judge calibration: a judge that cannot tell a right answer from a wrong one is flagged."""

from __future__ import annotations

import asyncio
import re

from support.llm_project import TINY_QUERIES, make_tiny_project

from workbench.llm.calibration import calibrate_judge, calibration_pairs, load_calibration, save_calibration
from workbench.llm.client import ChatClient
from workbench.correctness import normalize
from workbench.llm.figures import judge_verdicts
from workbench.project.load import load_project
from workbench.records import ModelConfig

from support.fault_server import FaultServer


def honest_judge(messages: list[dict]) -> str:
    text = messages[-1]["content"].split("Now grade this one.")[-1]
    gold = re.search(r"Gold answer: (.*)", text).group(1)
    predicted = re.search(r"Predicted answer: (.*)", text).group(1)
    return "Score: 5" if normalize(gold) == normalize(predicted) else "Score: 0"


def calibrate(tmp_path, responder):
    project = load_project(make_tiny_project(tmp_path / "tiny"))
    with FaultServer(responder) as server:
        client = ChatClient("judge", ModelConfig(model="j"), server.base_url)

        async def go():
            try:
                return await calibrate_judge(client, project.queries, n=3, seed=1)
            finally:
                await client.aclose()

        return project, asyncio.run(go())


def test_pairs_give_each_query_another_querys_answer():
    pairs = calibration_pairs(TINY_QUERIES, n=3, seed=1)
    assert len(pairs) == 3
    for q, wrong in pairs:
        assert normalize(wrong) != normalize(q.answer)
        assert wrong in {o.answer for o in TINY_QUERIES}


def test_a_judge_that_separates_passes(tmp_path):
    project, cal = calibrate(tmp_path, honest_judge)
    assert cal.right_mean == 5.0 and cal.wrong_mean == 0.0 and cal.separates
    save_calibration(project, cal)
    assert load_calibration(project, "judge") == cal
    assert "separates right from wrong" in judge_verdicts(project, {"judge"})["judge"]


def test_a_judge_that_praises_everything_is_flagged(tmp_path):
    project, cal = calibrate(tmp_path, lambda messages: "Score: 5")
    assert cal.right_mean == 5.0 and cal.wrong_mean == 5.0 and not cal.separates
    save_calibration(project, cal)
    assert "cannot tell right from wrong" in judge_verdicts(project, {"judge"})["judge"]
    assert "not calibrated" in judge_verdicts(project, {"other"})["other"]


def test_calibration_stops_at_the_first_call_that_failed_after_its_retries(tmp_path):
    # issue 10: with the endpoint down, calibration made 16 judge calls × every retry
    project = load_project(make_tiny_project(tmp_path / "tiny"))
    with FaultServer() as server:
        server.default = 503
        client = ChatClient("judge", ModelConfig(model="j", max_retries=1), server.base_url, backoff_base_s=0.01)
        cal = asyncio.run(calibrate_judge(client, project.queries, n=3))
        assert server.chat_requests == 2  # one judge call, two attempts
    assert cal.right_mean is None and "no usable calibration" in cal.verdict()
