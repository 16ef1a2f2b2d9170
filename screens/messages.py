"""Typed messages that workers post to the UI (never touch widgets from a thread)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message


class ProjectLoaded(Message):
    def __init__(self, session: Any, stale: list[str]) -> None:
        super().__init__()
        self.session = session
        self.stale = stale  # readable reasons the tiers/indexes need building; [] = ready


class TaskProgress(Message):
    """Progress of the one long background task; replaces the previous one."""

    def __init__(self, label: str, done: int, total: int) -> None:
        super().__init__()
        self.label, self.done, self.total = label, done, total

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, TaskProgress)


class IndexesBuilt(Message):
    def __init__(self, summary: str) -> None:
        super().__init__()
        self.summary = summary


class AccessReady(Message):
    """Access results for every tier × system (evaluate)."""

    def __init__(self, results: list) -> None:
        super().__init__()
        self.results = results


class UseReady(Message):
    def __init__(self, use: dict) -> None:
        super().__init__()
        self.use = use


class InspectionReady(Message):
    def __init__(self, query_id: str, tier: str, inspection: Any) -> None:
        super().__init__()
        self.query_id, self.tier, self.inspection = query_id, tier, inspection


class PromptEstimates(Message):
    def __init__(self, query_id: str, tier: str, model: str, estimates: dict) -> None:
        super().__init__()
        self.query_id, self.tier, self.model, self.estimates = query_id, tier, model, estimates


class ModelUpdate(Message):
    """A model result for (query, tier) arrived or changed (live, from the run's saves)."""

    def __init__(self, evidence: Any, final: bool) -> None:
        super().__init__()
        self.evidence, self.final = evidence, final


class Exported(Message):
    def __init__(self, paths: list) -> None:
        super().__init__()
        self.paths = paths


@dataclass
class Failure:
    title: str
    message: str
