"""Typed messages that workers post to the UI (never touch widgets from a thread)."""

from __future__ import annotations

from pathlib import Path

from textual.message import Message
from textual.worker import Worker

from workbench.session import (DocIdResolver, LiveDiagnosis, ModelEvidence, PromptEstimate, Recommendation, Relabelled, Reloaded, TierSet,
                               Session, SystemResult, UseTable)


class ProjectLoaded(Message):
    def __init__(self, session: Session, stale: list[str], stamp: tuple) -> None:
        super().__init__()
        self.session = session
        self.stale = stale  # readable reasons the tiers/indexes need building; [] = ready
        self.stamp = stamp  # the project's files as read (core.project_stamp): the follow's baseline


class ProjectFollowed(Message):
    """The follow's look at the project: its stamp now, and the project read again when it moved
    (core.Reloaded; None: only the stamp to keep). ``asked``: ctrl+r, said even when nothing changed."""

    def __init__(self, stamp: tuple, reloaded: Reloaded | None, asked: bool = False) -> None:
        super().__init__()
        self.stamp, self.reloaded, self.asked = stamp, reloaded, asked


class ResolverReady(Message):
    """The corpus' document IDs for the add-query form's gold field, built off the UI thread."""

    def __init__(self, project: object, resolver: DocIdResolver) -> None:
        super().__init__()
        self.project = project  # what it was built on: a reloaded project builds it again
        self.resolver = resolver


class TaskProgress(Message):
    """Progress of the one long background task; replaces the previous one."""

    def __init__(self, label: str, done: int, total: int, worker: Worker | None = None) -> None:
        super().__init__()
        self.label, self.done, self.total = label, done, total
        self.worker = worker  # the reporting worker: its late messages are dropped once it is cancelled

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, TaskProgress)


class IndexesReady(Message):
    """Some indexes of a running build are usable now (every sparse one, or one tier's dense)."""

    def __init__(self, kind: str, tiers: list[str]) -> None:
        super().__init__()
        self.kind, self.tiers = kind, tiers


class TiersReady(Message):
    """The build's tier set (the stored one, or the ladder written afresh), for the UI thread to
    install on the session it was read for."""

    def __init__(self, session: Session, tierset: TierSet) -> None:
        super().__init__()
        self.session, self.tierset = session, tierset


class IndexesBuilt(Message):
    def __init__(self, summary: str) -> None:
        super().__init__()
        self.summary = summary


class AccessReady(Message):
    """Access results for every tier × system (evaluate)."""

    def __init__(self, results: list[SystemResult]) -> None:
        super().__init__()
        self.results = results


class UseReady(Message):
    def __init__(self, use: UseTable | None) -> None:
        super().__init__()
        self.use = use


class PromptEstimates(Message):
    def __init__(self, query_id: str, tier: str, model: str, estimates: dict[str, PromptEstimate]) -> None:
        super().__init__()
        self.query_id, self.tier, self.model, self.estimates = query_id, tier, model, estimates


class ModelUpdate(Message):
    """A model result for (query, tier) arrived or changed (live, from the run's saves);
    ``final``: the run ended (``evidence`` None: it produced nothing for this query), and
    ``diagnosis`` is the session's with the query's verdicts read afresh (None: no diagnosis yet)."""

    def __init__(self, query_id: str, evidence: ModelEvidence | None, final: bool,
                 diagnosis: LiveDiagnosis | None = None) -> None:
        super().__init__()
        self.query_id, self.evidence, self.final, self.diagnosis = query_id, evidence, final, diagnosis


class QueryAnswered(Message):
    """A batch's model answered one query (``evidence`` None: nothing stored for it), or a query's
    verdicts were read again (``evidence`` None too); ``diagnosis``: the session's with that query's
    verdicts read afresh in the worker, for the UI thread to install."""

    def __init__(self, query_id: str, evidence: ModelEvidence | None, diagnosis: LiveDiagnosis | None) -> None:
        super().__init__()
        self.query_id, self.evidence, self.diagnosis = query_id, evidence, diagnosis


class Exported(Message):
    def __init__(self, paths: list[Path]) -> None:
        super().__init__()
        self.paths = paths


class LabelsChanged(Message):
    """A label, an undo, an answer edit or an added query was saved and the figures recomputed;
    ``change`` None: the mark changed nothing (the document already was that)."""

    def __init__(self, change: Relabelled | None, opened: bool = False) -> None:
        super().__init__()
        self.change, self.opened = change, opened  # opened: open the inspector on change.query_id


class DiagnosisReady(Message):
    """Every query's verdicts read afresh, with the verdict system's recommendations (read in the
    evaluate worker; the UI thread installs them on the session)."""

    def __init__(self, diagnosis: LiveDiagnosis, system: str, recommendations: list[Recommendation]) -> None:
        super().__init__()
        self.diagnosis, self.system, self.recommendations = diagnosis, system, recommendations


class WarmedUp(Message):
    """The project's embedder is loaded (core.warm_up): what the app keeps from now on is frozen
    out of the cyclic collector's walks."""

    def __init__(self, model: str) -> None:
        super().__init__()
        self.model = model
