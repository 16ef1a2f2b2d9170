"""What the pipelines run in their own virtualenvs share (stdlib + the OpenTelemetry SDK only):
hotpotqa-100 and its word-overlap ranking, the chat model's stub on loopback, the OTLP writer,
the pipeline's own log. Imported from tests/support/real_pipelines.py and fault_server.py, which
need nothing else."""

from __future__ import annotations

import json
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

TESTS = Path(__file__).resolve().parents[2]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from support.fault_server import FaultServer  # noqa: E402
from support.real_pipelines import STUFFED, TOP_K, WRONG, Corpus, choose_answer, hotpot_rows, write_otlp  # noqa: E402

__all__ = ["STUFFED", "TOP_K", "WRONG", "Corpus", "FaultServer", "Logged", "choose_answer", "hotpot_rows", "rows",
           "question_in", "write_log", "write_otlp"]


@dataclass
class Logged:
    """What the program did for one query, from its own side."""

    query_id: str
    query: str
    ranked: list[str] | None  # what the traced retriever returned (None: no retrieval traced)
    stuffed: list[str]  # the documents the prompt holds, in prompt order
    answer: str  # what the program returned


def rows(n: int | None) -> list[dict]:
    found = hotpot_rows("queries.jsonl")
    return found if n is None else found[:n]


def question_in(text: str, questions: list[str]) -> str | None:
    """The longest known question the text holds (a stub must know which query it answers)."""
    found = [q for q in questions if q in text]
    return max(found, key=len) if found else None


def write_log(out: Path, log: list[Logged]) -> None:
    out.with_name(out.name + ".log.json").write_text(json.dumps([asdict(e) for e in log]), encoding="utf-8")


def reasoning_quoting(gold: str, question: str) -> str:
    """Reasoning that quotes the gold answer whatever the answer: matching it would decide a wrong answer right."""
    return f"The passages mention {gold} among other names; the question asks: {question}"


def fields_asked(messages: list[dict]) -> tuple[list[str], bool]:
    """(output fields the adapter asks for, whether as JSON) from DSPy's closing instruction."""
    text = str(messages[-1].get("content", "")) if messages else ""
    tail = text[text.rfind("Respond with"):] if "Respond with" in text else ""
    names = [n for n in re.findall(r"`(?:\[\[ ## )?(\w+)(?: ## \]\])?`", tail) if n != "completed"]
    return names, "JSON object" in tail


Responder = Callable[[list[dict]], str]
