"""The diagnosis as an interactive front end holds it: verdicts per query, refreshed when a result lands.

One object per open project. `refresh()` re-reads every stored result (after `ctrl+r` or a tier
run); `update_query(q)` after a one-query model run re-reads and recomputes that query only, so the
query list and the inspector show the new verdict the moment the run is stored; `reread()` and
`with_query(q)` do the same into a new object, for a front end that reads in a worker and installs
on its UI thread. Headless.
"""

from __future__ import annotations

import copy

import msgspec

from workbench.diagnosis.verdicts import VerdictReader, QueryVerdict, QueryVerdicts, read_verdicts
from workbench.diagnosis.funnel import Funnel, funnels, level_funnels
from workbench.diagnosis.overview import Reading, system_readings
from workbench.diagnosis.rules import PENDING, VERDICT_SHORT
from workbench.project.files import Project
from workbench.records import Tier

FAILURES = ("ACCESS", "USE", "USE-UNDER-DISTRACTORS", "BOTH")
PROVISIONAL = ("ACCESS?",)  # a failure access shows, waiting for the oracle answer that confirms it
# v:unjudged: a retrieved document nobody judged states the answer (workbench/session/unjudged.py;
# the inspector's U steps through them)
UNJUDGED_WORD = "unjudged"
# `v:WORD` in the query list filter: WORD → the verdicts it matches
FILTER_WORDS: dict[str, tuple[str, ...]] = {
    **{short: (name,) for name, short in VERDICT_SHORT.items()},
    "use": ("USE", "USE-UNDER-DISTRACTORS"),
    "fail": FAILURES,
    "notyet": ("NOT-YET",),
    "lost": ("ACCESS", "ACCESS?", "BOTH"),  # the gold did not reach the reader, confirmed or not
    UNJUDGED_WORD: (),  # no verdict: the session answers it
}


class LiveDiagnosis:
    def __init__(self, project: Project, tiers: list[Tier], k: int | None = None, oracle_model: str | None = None):
        self.project, self.tiers = project, tiers
        self.collector = VerdictReader(project, k, oracle_model)
        self.qv: QueryVerdicts = read_verdicts(project, tiers, collector=self.collector)
        self.chosen: str | None = None  # the user's choice of verdict system (None: the default, qv.primary)
        self.base: LiveDiagnosis | None = None  # the diagnosis this one was derived from (with_query), until installed
        self._index()

    def _index(self) -> None:
        self.by_query: dict[str, list[QueryVerdict]] = {}
        for v in self.qv.verdicts:
            self.by_query.setdefault(v.query_id, []).append(v)

    @property
    def primary(self) -> str | None:
        """The system whose verdicts are shown: the user's choice while it exists, else the default."""
        names = [s.name for s in self.qv.systems]
        return self.chosen if self.chosen in names else self.qv.primary

    @property
    def system_names(self) -> list[str]:
        return [s.name for s in self.qv.systems]

    def choose(self, system: str | None) -> str | None:
        """Show this system's verdicts (None: back to the default); returns the system now shown."""
        if system is not None and system not in self.system_names:
            raise KeyError(system)
        self.chosen = system
        return self.primary

    def reread(self) -> LiveDiagnosis:
        """A new diagnosis read afresh from every stored result; this one is not touched (a worker
        reads while the screens keep showing this one, then the UI thread installs the new one)."""
        return LiveDiagnosis(self.project, self.tiers, self.collector.k, self.collector.oracle_model)

    def with_query(self, query_id: str) -> LiveDiagnosis:
        """A new diagnosis: this one with one query's verdicts read afresh after a result for it was
        stored (update_query); this one is not touched, so a worker reads while the screens show it.
        ``base`` names this one: whoever installs the new one checks nothing else was installed since."""
        new = copy.copy(self)
        new.collector = VerdictReader(self.project, self.collector.k, self.collector.oracle_model)
        new.base = self
        new.update_query(query_id)
        return new

    def refresh(self) -> None:
        self.collector.forget()
        self.qv = read_verdicts(self.project, self.tiers, collector=self.collector)
        self._index()

    def update_query(self, query_id: str) -> None:
        """Recompute one query after a result for it was stored (the system list may grow)."""
        self.collector.forget()
        systems = self.collector.systems(self.tiers)
        if [s.name for s in systems] != [s.name for s in self.qv.systems]:
            self.refresh()
            return
        mine = read_verdicts(self.project, self.tiers, {query_id}, collector=self.collector)
        kept = [v for v in self.qv.verdicts if v.query_id != query_id]
        if mine.levels != self.qv.levels:  # a tier got its first result
            self.refresh()
            return
        self.qv = msgspec.structs.replace(self.qv, verdicts=kept + mine.verdicts, funnels=funnels(kept + mine.verdicts))
        self._index()

    def verdicts(self, query_id: str, system: str | None = None) -> list[QueryVerdict]:
        system = system or self.primary
        return [v for v in self.by_query.get(query_id, []) if v.system == system]

    def at(self, query_id: str, tier: str, system: str | None = None) -> QueryVerdict | None:
        return next((v for v in self.verdicts(query_id, system) if v.tier == tier), None)

    def summary(self, query_id: str, system: str | None = None) -> QueryVerdict | None:
        """What the query list shows: the first failing tier's verdict; else the first provisional
        access failure (ACCESS?); else a PASS; else an UNDECIDED; else the first NOT-YET."""
        mine = self.verdicts(query_id, system)
        for wanted in (FAILURES, PROVISIONAL, ("PASS",), ("UNDECIDED",)):
            found = next((v for v in mine if v.verdict in wanted), None)
            if found is not None:
                return found
        return mine[0] if mine else None

    def line(self, query_id: str, tier: str | None = None, system: str | None = None) -> str:
        """One line for the top of the query inspector."""
        v = self.at(query_id, tier, system) if tier else self.summary(query_id, system)
        if v is None:
            return "no verdict: nothing stored for this query yet"
        head = f"{v.verdict} at {v.tier} ({v.system}, rule {v.rule})"
        how = (f" — run: {v.command}" if v.command else "") + (f" (keys {v.key})" if v.key else "")
        if v.verdict == "NOT-YET":
            return f"{head}: missing {v.missing}{how}"
        if v.verdict in PENDING:  # provisional or undecided: the facts, then what settles it
            return f"{head}: {v.because}; missing {v.missing}{how}"
        return f"{head}: {v.because}"

    def readings(self, system: str | None = None) -> list[Reading]:
        """The system's reading per level and overall (the Diagnosis tab)."""
        spec = next((s for s in self.qv.systems if s.name == (system or self.primary)), None)
        return system_readings(self.qv, spec) if spec else []

    def funnel(self, system: str | None = None) -> list[Funnel]:
        """The system's loss funnel summed per level (the Diagnosis tab's bars; diagnosis/funnel.py)."""
        return level_funnels(self.qv.funnels, system or self.primary or "")

    def counts(self, system: str | None = None) -> dict[str, int]:
        """How many queries the query list shows under each verdict (their summary verdict)."""
        out: dict[str, int] = {}
        for qid in self.by_query:
            v = self.summary(qid, system)
            if v is not None:
                out[v.verdict] = out.get(v.verdict, 0) + 1
        return out

    def matches(self, query_id: str, word: str, system: str | None = None) -> bool:
        """The `v:WORD` filter of the query list (workbench/diagnosis/filters.py), on the verdict it
        shows for the system; an unknown WORD matches nothing."""
        v = self.summary(query_id, system)
        return v is not None and v.verdict in FILTER_WORDS.get(word.lower(), ())
