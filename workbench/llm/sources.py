"""Which stored model runs of a tier count, and in which order: the one list the diagnosis'
verdicts, the report (its capped answers and provenance) and the inspector read. An earlier
source's answer of a query wins: the loaded query-set version's own runs, then its own TUI runs,
the original's tier runs, other versions' own runs (label-dependent answers count there only
where the query's labels are the same: the reader checks), then the shared TUI runs. The runs
are loaded by workbench.llm.store (which decides which are current for the tier)."""

from __future__ import annotations

import msgspec

from workbench.llm.records import TierRun
from workbench.llm.store import (LABEL_DEPENDENT_TASKS, LLMRunStore, labels_of, other_version_stores, relabelled,
                                 tui_root, tui_stores, version_runs_root, version_tui_root, version_tui_stores)
from workbench.project.files import ORIGINAL_VERSION, Project
from workbench.records import Tier

VERSION_RUN = "version run"  # a run made under the loaded query-set version (its labels)
VERSION_TUI_RUN = "version TUI run"
TIER_RUN = "tier run"
TUI_RUN = "TUI run"


class Source(msgspec.Struct, frozen=True):
    run: TierRun
    source: str  # VERSION_RUN, VERSION_TUI_RUN, TIER_RUN or TUI_RUN
    made_under: str | None  # the query-set version whose labels made it
    other_version: bool = False  # another version's own: its label-dependent answers need the same labels


def model_sources(project: Project, tier: Tier, query_id: str | None = None) -> list[Source]:
    """Every stored model run of the tier, highest precedence first; with ``query_id``, the TUI's
    one-query runs of that query only (the inspector's)."""
    mine = project.queries_version
    vroot = version_runs_root(project)
    if query_id is None:
        own_tui, scratch = version_tui_stores(project), tui_stores(project)
    else:
        vtui = version_tui_root(project, query_id)
        own_tui = [LLMRunStore(project, root=vtui, publish=False)] if vtui else []
        scratch = [LLMRunStore(project, root=tui_root(project, query_id), publish=False)]
    own = ([Source(run, VERSION_RUN, mine) for run in LLMRunStore(project, root=vroot).runs(tier)]
           + [Source(run, VERSION_TUI_RUN, mine) for store in own_tui for run in store.runs(tier)]) if vroot else []
    full = [Source(run, TIER_RUN, ORIGINAL_VERSION) for run in LLMRunStore(project).runs(tier)]
    others = [Source(run, VERSION_TUI_RUN if tui else VERSION_RUN, version, other_version=True)
              for version, store, tui in other_version_stores(project) for run in store.runs(tier)]
    shared = [Source(run, TUI_RUN, ORIGINAL_VERSION) for store in scratch for run in store.runs(tier)]
    return own + full + others + shared


def counted_sources(project: Project, tier: Tier) -> list[Source]:
    """``model_sources`` with each run cut to the results that count, the rule the verdicts apply:
    a query's result from the first source of its system that has one, for a query the loaded
    version keeps; a label-dependent answer made under other labels only where the query's labels
    are the same. A run that does not fit the window is kept whole (it holds no answer)."""
    labels = Labels(project)
    claimed: set[tuple[str, str]] = set()
    out: list[Source] = []
    for src in model_sources(project, tier):
        run = src.run
        if not run.fits:
            out.append(src)
            continue

        def counts(query_id: str) -> bool:
            if (run.system, query_id) in claimed or not project.has_query(query_id):
                return False
            return labels.count(src, query_id)

        qa = [r for r in run.qa if counts(r.query_id)]
        localize = [r for r in run.localize if counts(r.query_id)]
        claimed.update((run.system, r.query_id) for r in qa)
        claimed.update((run.system, r.query_id) for r in localize)
        if len(qa) != len(run.qa) or len(localize) != len(run.localize):
            run = msgspec.structs.replace(run, qa=qa, localize=localize)
        out.append(msgspec.structs.replace(src, run=run))
    return out


class Labels:
    """Whether an answer made under a version's labels holds for the loaded labels (each version's
    queries read once): the one rule of the verdicts and the inspector."""

    def __init__(self, project: Project):
        self.project = project
        self._versions: dict[str, dict[str, tuple[list[int], list[int]]]] = {}

    def count(self, src: Source, query_id: str) -> bool:
        """A source's answer for the query counts under the loaded labels: any answer that does not
        read the labels; a label-dependent one (oracle, rag, near-miss) only where they hold."""
        return src.run.task not in LABEL_DEPENDENT_TASKS or self.hold(src.made_under, query_id)

    def hold(self, made_under: str | None, query_id: str) -> bool:
        mine = self.project.queries_version
        if made_under == mine:
            return True
        if made_under == ORIGINAL_VERSION:
            return not relabelled(self.project, query_id)
        if made_under is None:
            return False
        if made_under not in self._versions:
            from workbench.errors import WorkbenchError
            from workbench.project.versions import load_queries

            try:
                self._versions[made_under] = {q.query_id: labels_of(q) for q in load_queries(self.project.root, made_under)}
            except (OSError, WorkbenchError):  # an unreadable version: its answers do not count
                self._versions[made_under] = {}
        return self._versions[made_under].get(query_id) == labels_of(self.project.query(query_id))
