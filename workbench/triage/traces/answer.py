"""Production's answer is what the program returned, isolated from any reasoning around it.

The outermost chain's output (the program's return value) is preferred over the LLM span's raw
text; either is parsed when structured: DSPy's field markers (``[[ ## answer ## ]]``), a JSON object
with an answer field (DSPy's JSONAdapter, a chain returning ``{"context": …, "answer": …}``), a tool
call's arguments, a ``<think>`` block before the answer. Reasoning is never part of the answer:
where the answer cannot be told apart from it, the answer is undecided (a reason, never a verdict).
"""

from __future__ import annotations

import json
import re
from typing import Any

ANSWER_KEYS = ("answer", "final_answer", "response", "output", "result", "completion", "text", "content")
REASONING_KEYS = frozenset({"reasoning", "rationale", "thought", "thoughts", "chain_of_thought", "explanation",
                            "analysis", "scratchpad", "think", "thinking", "reasoning_content"})
_MARKER = re.compile(r"\[\[ ## (\w+) ## \]\]")
_THINK = re.compile(r"^\s*<think(?:ing)?>.*?</think(?:ing)?>\s*", re.S)
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S)


class Parsed:
    """An answer (None when undecided) and, when undecided, why."""

    __slots__ = ("answer", "undecided")

    def __init__(self, answer: str | None, undecided: str | None = None) -> None:
        self.answer, self.undecided = answer, undecided

    def __repr__(self) -> str:
        return f"Parsed({self.answer!r}, {self.undecided!r})"


def _json(text: str) -> Any:
    m = _FENCE.match(text)
    body = m.group(1) if m else text
    if not body.lstrip().startswith(("{", "[", '"')):
        return None
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return None


def from_markers(text: str) -> Parsed | None:
    """DSPy's ChatAdapter: ``[[ ## field ## ]]`` sections, closed by ``[[ ## completed ## ]]``."""
    parts = _MARKER.split(text)
    if len(parts) < 3:
        return None
    fields = {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2) if parts[i] != "completed"}
    return from_object(fields, "DSPy's output fields")


def from_object(obj: dict, what: str = "the output object") -> Parsed:
    for key in ANSWER_KEYS:
        v = obj.get(key)
        if isinstance(v, str):
            return parse_text(v) if key in ("output", "result", "response", "text", "content") else Parsed(v.strip())
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return Parsed(str(v))
        if isinstance(v, dict):  # {"output": {"answer": …}} and the like
            inner = from_object(v, what)
            if inner.answer is not None:
                return inner
    if isinstance(obj.get("tool_calls"), list):
        return from_tool_calls(obj["tool_calls"])
    rest = {k: v for k, v in obj.items() if k not in REASONING_KEYS and isinstance(v, str) and v.strip()}
    if len(rest) == 1 and len(obj) > len(rest):  # reasoning beside one other text field: that one is the answer
        return Parsed(next(iter(rest.values())).strip())
    if len(rest) == 1 and len(obj) == 1:
        return Parsed(next(iter(rest.values())).strip())
    return Parsed(None, f"{what} has fields {sorted(obj)[:8]} and none holds the answer alone")


def from_tool_calls(calls: list) -> Parsed:
    """The answer a model gave as a tool call's arguments (``{"answer": …}``)."""
    for call in calls:
        if not isinstance(call, dict):
            continue
        fn: dict = call["function"] if isinstance(call.get("function"), dict) else call
        args = fn.get("arguments", fn.get("args"))
        if isinstance(args, str):
            args = _json(args)
        if isinstance(args, dict):
            got = from_object(args, "the tool call's arguments")
            if got.answer is not None:
                return got
    return Parsed(None, "a tool call whose arguments hold no answer field")


def parse_text(text: str) -> Parsed:
    """One output text → the answer in it, or why it cannot be isolated."""
    stripped = _THINK.sub("", text, count=1)
    if stripped is not text and not stripped.strip():
        return Parsed(None, "the output is reasoning only (a <think> block, no answer after it)")
    found = from_markers(stripped)
    if found is not None:
        return found
    value = _json(stripped)
    if isinstance(value, list) and len(value) == 1:  # DSPy's adapter / LM output: a list of one completion
        value = value[0]
    if isinstance(value, dict):
        return from_object(value)
    if isinstance(value, str) and stripped.lstrip().startswith('"'):
        return parse_text(value)
    if isinstance(value, list):
        return Parsed(None, f"the output is a list of {len(value)} items")
    return Parsed(stripped.strip())


def parse_value(value: Any) -> Parsed | None:
    """An attribute's value (text or already-decoded JSON) → the answer; None when there is none."""
    if value is None:
        return None
    if isinstance(value, str):
        return parse_text(value) if value.strip() else None
    if isinstance(value, dict):
        return from_object(value)
    if isinstance(value, list) and len(value) == 1:
        return parse_value(value[0])
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return Parsed(str(value))
    return Parsed(None, f"the output is a {type(value).__name__}")
