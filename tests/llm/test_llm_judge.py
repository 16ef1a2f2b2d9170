"""Judge parsing, median/spread, failures; exact/contains match; refusal detection."""

import itertools

import pytest

from workbench.llm.client import ChatClient
from workbench.llm.judge import JudgeResult, JudgeUnavailable, judge_answer, parse_score
from workbench.correctness import contains_match, exact_match, normalize, short_answer
from workbench.llm.prompts import is_refusal, judge_messages
from workbench.records import ModelConfig


@pytest.mark.parametrize(
    "text, score",
    [
        ("Score: 4", 4),
        ("score=0", 0),
        ("**Score:** 5", 5),
        ("Score: 3/5", 3),
        ("I'd give it 2/5.", 2),
        ("5", 5),
        ("  3.  ", 3),
        ("Score: 7", None),
        ("Score: 4.5", None),
        ("The answer is Paris", None),
        ("", None),
        ("1989", None),
        ("Score: 12", None),
    ],
)
def test_parse_score(text, score):
    assert parse_score(text) == score


def test_judge_prompt_sees_only_query_gold_and_prediction():
    msgs = judge_messages("Q?", "gold", "pred")
    text = " ".join(m["content"] for m in msgs)
    assert "Question: Q?" in text and "Gold answer: gold" in text and "Predicted answer: pred" in text
    assert "DocID=" not in text and "tier" not in text.lower()


def test_normalised_matches():
    assert normalize("The  Eiffel-Tower!") == "eiffel tower"
    assert exact_match("the Paris.", "Paris")
    assert not exact_match("Paris, France", "Paris")
    assert contains_match("It is Paris, France.", "Paris")
    assert not contains_match("Parisian", "Paris")
    assert short_answer("apple pie and cherry pie") and not short_answer("a b c d e f g h")


@pytest.mark.parametrize("text", ["I do not know.", "I don't know", "The documents do not mention it.",
                                  "This is not mentioned in the text.", "The answer is not in the documents.",
                                  "Unable to answer from the documents."])
def test_refusals(text):
    assert is_refusal(text)


@pytest.mark.parametrize("text", ["Paris", "The capital of France is Paris.", "Apples and cinnamon"])
def test_not_refusals(text):
    assert not is_refusal(text)


def _client(server, **kw):
    cfg = ModelConfig(model="fault", base_url=server.base_url, timeout_s=5, max_retries=2, **kw)
    return ChatClient("judge", cfg, server.base_url, backoff_base_s=0.01)


async def test_median_and_spread(fault_server):
    replies = iter(["Score: 1", "Score: 4", "Score: 5"])
    fault_server.responder = lambda messages: next(replies)
    async with _client(fault_server) as c:
        j = await judge_answer(c, "q", "gold", "pred", samples=3)
    assert j.scores == [1, 4, 5] and j.median == 4.0 and j.spread == 4 and not j.failure


async def test_unparseable_is_retried_then_a_failure_never_a_score(fault_server):
    replies = itertools.cycle(["Paris is nice", "Score: 3", "no idea", "no idea", "no idea"])
    fault_server.responder = lambda messages: next(replies)
    async with _client(fault_server) as c:
        j = await judge_answer(c, "q", "gold", "pred", samples=2, parse_retries=2)
    # sample 0: garbage then "Score: 3"; sample 1: three unparseable replies = one failure
    assert j.scores == [3] and j.failures == 1 and j.median == 3.0 and not j.failure
    assert fault_server.chat_requests == 5


async def test_all_unparseable_means_no_score(fault_server):
    fault_server.responder = lambda messages: "I think it is good"
    async with _client(fault_server) as c:
        j = await judge_answer(c, "q", "gold", "pred", samples=2, parse_retries=1)
    assert j.failure and j.median is None and j.scores == [] and j.failures == 2


async def test_a_failed_judge_call_is_its_own_outcome_not_a_score(fault_server):
    fault_server.default = 503
    async with _client(fault_server) as c:
        j = await judge_answer(c, "q", "gold", "pred", samples=3)
    assert isinstance(j, JudgeUnavailable) and not isinstance(j, JudgeResult)
    assert j.kind == "server_error" and "503" in j.error
    assert fault_server.chat_requests == 3  # one sample's retries (max_retries=2), then it stops asking
