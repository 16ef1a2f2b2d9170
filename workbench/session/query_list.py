"""The query list as one immutable view record, read in a worker: which queries the filter keeps
(over every query), in the chosen sort, each row's facts (verdict, access figure per tier, where it
breaks, production's feedback), and what the legend says. The screen draws the record and reads
nothing: the filter words reach the disk (production's feedback, the trace imports' sources,
the unjudged documents) and, at 100,000 production queries, filtering costs more than a key may."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import msgspec

from workbench.diagnosis.filters import filter_problems, parse_filter, query_matches
from workbench.session.diagnosis import query_sources, verdict_system
from workbench.session.follow import production_feedback
from workbench.session.state import Session
from workbench.session.unjudged import has_answer_bearing_unjudged

if TYPE_CHECKING:
    from workbench.records import Query
    from workbench.triage.live.feedback import Feedback

ListSort = Literal["ladder", "breaks", "feedback"]
LIST_SORTS: tuple[ListSort, ...] = ("ladder", "breaks", "feedback")  # feedback: what production's users flagged first, worst score first


class QueryRow(msgspec.Struct, frozen=True):
    """One listed query. ``figures``: per tier (ladder order) its access figure, None where not
    evaluated yet; ``asked``: whether the tier asks the query at all (another domain's base does not)."""

    query_id: str
    domain: str
    kind: Literal["M", "S", "U"]  # multi-source, single-source, unlabelled
    text: str
    verdict: str | None  # the list's verdict (LiveDiagnosis.summary); None: no diagnosis yet
    figures: tuple[float | None, ...]
    asked: tuple[bool, ...]
    breaks: str | None  # the first tier where its figure drops below 1
    flagged: bool  # production's user flagged its answer


class QueryListView(msgspec.Struct, frozen=True):
    """What the list shows for one filter, sort and figures' system; ``rows``: the first ``cap`` of
    the ``matching`` queries the filter keeps, in the sort's order."""

    system: str
    filter_text: str
    sort: ListSort
    rows: tuple[QueryRow, ...]
    matching: int
    total: int
    cap: int
    tiers: tuple[str, ...]
    k: int
    figures_known: bool  # some access results exist (else a break is "not known yet", not "none")
    ids_name_domains: bool  # every query id starts with its domain: the domain column says nothing more
    verdict_system: str | None  # whose verdicts the rows show; None while there is no diagnosis
    stand_ins: dict[str, str]  # tier → the system standing in for ``system`` there (while a build runs)
    problems: tuple[str, ...]  # why a filter word matches nothing


class SessionFacts:
    """The filter words' facts from the session, for one system's figures (FilterFacts); what
    lives on disk is read once per filtering, not once per query."""

    def __init__(self, s: Session, system: str) -> None:
        self.s, self.system = s, system
        self._sources: dict[str, tuple[str, ...]] | None = None
        self._feedback: dict[str, Feedback] | None = None
        self._verdict_system = verdict_system(s)

    @property
    def feedback(self) -> dict[str, Feedback]:
        """Query id → production users' feedback."""
        if self._feedback is None:
            self._feedback = production_feedback(self.s.project)
        return self._feedback

    def flagged(self, query: Query) -> bool:
        fb = self.feedback.get(query.query_id)
        return fb is not None and fb.negative

    def breaks(self, query: Query) -> bool:
        return self.s.breaks_at(self.system, query) is not None

    def fails_on(self, query: Query, tier_word: str) -> bool:
        # only the query's own tiers: fail:base is its own domain's base tier, not the others'
        names = [t.name for t in self.s.tiers if tier_word in t.name.lower() and self.s.asks(t, query.query_id)]
        figs = [self.s.figure(self.system, n, query) for n in names]
        return any(f is not None and f < 1.0 for f in figs)

    def verdict_in(self, query: Query, word: str) -> bool:
        from workbench.diagnosis.live import UNJUDGED_WORD

        if word == UNJUDGED_WORD:  # not a verdict: an answer-bearing unjudged document
            return has_answer_bearing_unjudged(self.s, query.query_id)
        d = self.s.diagnosis
        return d is not None and d.matches(query.query_id, word, self._verdict_system)

    def sources(self, query: Query) -> tuple[str, ...]:
        if self._sources is None:
            self._sources = {k: tuple(v) for k, v in query_sources(self.s.project).items()}
        return self._sources.get(query.query_id, ())


def feedback_rank(fb: Feedback | None) -> tuple[int, float]:
    """The feedback sort: flagged first (lowest score first), then other scored answers by score,
    then queries without feedback."""
    if fb is None:
        return (2, 0.0)
    return (0 if fb.negative else 1, fb.score if fb.score is not None else 0.0)


def read_query_list(s: Session, system: str, filter_text: str, sort: ListSort, cap: int) -> QueryListView:
    """The list for this filter and sort (blocking: a worker's call). The filter and the sort run
    over every query; the rows are the first ``cap``."""
    f = parse_filter(filter_text)
    facts = SessionFacts(s, system)
    queries = [q for q in s.project.queries if query_matches(f, q, facts)]
    tiers = s.tiers
    if sort == "breaks":
        queries.sort(key=lambda q: (b if (b := s.breaks_at(system, q)) is not None else len(tiers) + 1, q.query_id))
    elif sort == "feedback":
        queries.sort(key=lambda q: feedback_rank(facts.feedback.get(q.query_id)))  # stable: ladder order within
    d, shown_system = s.diagnosis, verdict_system(s)
    rows = []
    for q in queries[:cap]:
        asked = tuple(s.asks(t, q.query_id) for t in tiers)
        b = s.breaks_at(system, q)
        v = d.summary(q.query_id, shown_system) if d is not None else None
        rows.append(QueryRow(
            query_id=q.query_id, domain=q.domain or "", text=q.query,
            kind="M" if q.is_multi_source else "S" if q.is_labelled else "U",
            verdict=v.verdict if v is not None else None,
            figures=tuple(s.figure(system, t.name, q) if a else None for t, a in zip(tiers, asked)),
            asked=asked, breaks=tiers[b].name if b is not None else None, flagged=facts.flagged(q)))
    return QueryListView(
        system=system, filter_text=filter_text, sort=sort, rows=tuple(rows), matching=len(queries),
        total=len(s.project.queries), cap=cap, tiers=tuple(t.name for t in tiers), k=s.k,
        figures_known=bool(s.per_query),
        ids_name_domains=all(q.query_id.startswith(q.domain or "\0") for q in s.project.queries),
        verdict_system=shown_system if d is not None else None, stand_ins=s.stand_ins(system),
        problems=tuple(filter_problems(f, s.project.domains, [t.name for t in tiers], d is not None)))
