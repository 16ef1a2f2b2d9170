"""The stored model runs of a tier in precedence order: the one list the diagnosis' verdicts, the
report (its capped answers and provenance) and the inspector read. An earlier source's answer of
a query wins: the loaded query-set version's own runs, then its own TUI runs, the original's tier
runs, other versions' own runs (label-dependent answers count there only where the query's labels
are the same), then the shared TUI runs. Which of their answers count is llm/counting.py's rule
(counted_sources applies it to this list: counting.count_once); the runs are loaded by workbench.llm.store."""

from __future__ import annotations

import msgspec

from workbench.llm.records import TierRun
from workbench.llm.store import (LLMRunStore, other_version_stores, tui_root, tui_stores, version_runs_root,
                                 version_tui_root, version_tui_stores)
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
    """``model_sources`` with each run cut to the results that count (llm/counting.py: count_once),
    the rule the verdicts, the figures and the inspector apply."""
    from workbench.llm.counting import count_once

    return count_once(project, model_sources(project, tier))
