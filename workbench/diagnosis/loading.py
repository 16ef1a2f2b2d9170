"""What the diagnosis reads, loaded once per tier: the stored rankings, the model answers that
count for the loaded labels (in the one order of workbench.llm.sources; which count is
workbench.llm.counting's rule), production's imported answers, the judges' calibrations and
whether a task fits a model's window there. Nothing is recomputed; the verdicts over it are
diagnosis/verdicts.py."""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec

from workbench.access.runs import RunStore
from workbench.errors import WorkbenchError
from workbench.llm.answers import AnswerCheck, check_answer
from workbench.llm.calibration import load_calibration
from workbench.llm.records import TierRun
from workbench.llm.sources import model_sources
from workbench.llm.counting import Labels
from workbench.names import TASKS, SystemName
from workbench.diagnosis.systems import production_name
from workbench.project.files import Project
from workbench.records import Tier
from workbench.project.settings import access_k


@dataclass
class _TierStore:
    """One tier's stored results, indexed by query."""

    tier: Tier
    rankings: dict[str, dict[str, list[int]]] = field(default_factory=dict)  # system → query → ranked ids
    # (model, arm, retriever or "") → query → AnswerCheck
    answers: dict[tuple[str, str, str], dict[str, AnswerCheck]] = field(default_factory=dict)
    rag_k: dict[tuple[str, str], int] = field(default_factory=dict)
    no_fit: dict[tuple[str, str], str] = field(default_factory=dict)  # (model, task) → why it cannot run here
    fits: set[tuple[str, str]] = field(default_factory=set)  # (model, task) stored as fitting this tier
    # production's imported answers: run name → query → AnswerCheck, and the queries it gave context for
    production: dict[str, dict[str, AnswerCheck]] = field(default_factory=dict)
    context_known: dict[str, set[str]] = field(default_factory=dict)
    # production's rankings (run:NAME): per system, the depth a query's ranking was truncated at, and the
    # queries served with an unknown ranking (SystemRun.depths / .unknown)
    depths: dict[str, dict[str, int]] = field(default_factory=dict)
    served: dict[str, set[str]] = field(default_factory=dict)




class StoredResults:
    """Loads each tier's stored results once (rankings, the answers that count for the loaded
    labels, window fits); judge calibrations are read once per judge."""

    def __init__(self, project: Project, k: int | None = None, oracle_model: str | None = None):
        self.project = project
        self.k = k or access_k(project)
        self.oracle_model = oracle_model or default_oracle_model(project)
        self._trust: dict[str, bool | None] = {}
        self._tiers: dict[str, _TierStore] = {}
        self._known = {q.query_id for q in project.queries}
        self._labels = Labels(project)  # whether an answer made under other labels counts (llm/counting.py)
        self._window: dict[tuple[str, str, str], str] = {}  # (model, task, tier) → why it does not fit ("" = fits)
        self.tiers: list[Tier] = []  # the tiers being diagnosed (collect sets them): where a task fits is said among them

    def trusted(self, judge: str | None) -> bool | None:
        if judge is None:
            return None
        if judge not in self._trust:
            cal = load_calibration(self.project, judge)
            self._trust[judge] = cal.separates if cal else None
        return self._trust[judge]

    def forget(self) -> None:
        """Drop what was loaded (after a new run was stored)."""
        self._tiers.clear()
        self._trust.clear()

    def tier_store(self, tier: Tier) -> _TierStore:
        if tier.name in self._tiers:
            return self._tiers[tier.name]
        ts = _TierStore(tier)
        store = RunStore(self.project)
        # production's runs as the ledger holds them now (a stored one may predate the last import: never read stale)
        stored = [r for r in store.runs(tier) if SystemName.parse(r.system).kind != "run"] + self._production_runs(tier, store)
        for run in stored:
            ts.rankings[run.system] = {r.query_id: [h.doc_id for h in r.hits] for r in run.rankings}
            if SystemName.parse(run.system).kind == "run":
                ts.depths[run.system] = dict(run.depths)
                ts.served[run.system] = set(ts.rankings[run.system]) | set(run.unknown)
        for run, source, made_under in ((x.run, x.source, x.made_under) for x in model_sources(self.project, tier)):
            if SystemName.parse(run.system).kind == "run":  # production's imported answers
                self._production(ts, run)
                continue
            if run.variant == "standard":
                if not run.fits:
                    ts.no_fit[(run.model, run.task)] = f"{run.task} does not fit {run.model}'s window on {tier.name} ({run.input_tokens} > {run.budget_tokens} tokens)"
                else:
                    ts.fits.add((run.model, run.task))
            if run.task == "localize" or run.variant != "standard" or not run.fits:
                continue
            retriever = SystemName.parse(run.system).retriever if run.task == "rag" else ""
            slot = ts.answers.setdefault((run.model, run.task, retriever), {})
            if run.task == "rag":
                ts.rag_k.setdefault((run.model, retriever), run.k)
            trusted = self.trusted(run.judge)
            for r in run.qa:
                if r.query_id in slot or r.query_id not in self._known:
                    continue
                if not self._labels.counts(run.task, made_under, r.query_id):
                    continue  # made from other labels: this version's gold or hard negatives are other documents
                slot[r.query_id] = check_answer(self.project.query(r.query_id), run, r, trusted, source)
        self._tiers[tier.name] = ts
        return ts

    def _production_runs(self, tier: Tier, store: RunStore) -> list:
        from workbench.triage.runs import external_runs

        try:
            return external_runs(self.project, tier, store)
        except OSError:  # a read-only project: what the run store holds (current when eval made it)
            return [r for r in store.runs(tier) if SystemName.parse(r.system).kind == "run"]

    def _production(self, ts: _TierStore, run: TierRun) -> None:
        from workbench.triage.answers import load_answers

        name = production_name(run.system)
        slot = ts.production.setdefault(name, {})
        record = load_answers(self.project, name)
        # the import says which answers came with context_doc_ids; another importer's run (traces):
        # a non-empty context
        ts.context_known[name] = ({a.query_id for a in record.answers if a.has_context} if record
                                  else {r.query_id for r in run.qa if r.context_doc_ids})
        trusted = self.trusted(run.judge)
        undecided = {a.query_id: a.undecided for a in record.answers if a.undecided} if record else {}
        for r in run.qa:
            if r.query_id in self._known and r.query_id not in slot:
                check = check_answer(self.project.query(r.query_id), run, r, trusted, "production import")
                if r.query_id in undecided:  # the answer could not be isolated from reasoning: never decided on that text
                    check = msgspec.structs.replace(check, decision="undecided", correct=False,
                                                    basis=f"undecided: {undecided[r.query_id]}")
                slot[r.query_id] = check

    def fits(self, model: str, task: str, tier: Tier) -> str:
        """Why this task of this model does not fit the tier's window ("" = it fits, or nothing says it
        does not): a stored run's record first, else the window check (no model call)."""
        ts = self.tier_store(tier)
        if (model, task) in ts.no_fit:
            return ts.no_fit[(model, task)]
        if (model, task) in ts.fits or TASKS[task].context != "tier":
            return ""  # the gold or the retrieved documents only: small next to a window
        key = (model, task, tier.name)
        if key not in self._window:
            self._window[key] = self._window_check(model, task, tier)
        return self._window[key]

    def _window_check(self, model: str, task: str, tier: Tier) -> str:
        from workbench.llm.providers import resolve_model
        from workbench.llm.tasks import TaskOptions, estimate_input

        qids = self.project.tier_query_ids(tier)
        if not qids:
            return ""
        try:
            _, cfg = resolve_model(self.project, model)
            _, reason = estimate_input(self.project, tier, cfg, TaskOptions(task), [self.project.query(qids[0])])
        except WorkbenchError:
            return ""
        return f"{task} does not fit {model}'s window on {tier.name}: {reason}" if reason else ""

    def fitting_tiers(self, model: str, task: str) -> list[str]:
        """The diagnosed tiers where the task fits the model's window."""
        return [t.name for t in self.tiers if not self.fits(model, task, t)]


def default_oracle_model(project: Project) -> str:
    """Whose oracle answers a production system's verdicts read: the project's judge, else its model."""
    from workbench.llm.providers import resolve_model

    return project.config.judge or resolve_model(project, None)[0]
