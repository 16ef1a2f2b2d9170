"""Use-side results beside the retriever runs: .workbench/runs/<tier>/llm/<system>.json.

Localization is also saved as a workbench.access.runs.SystemRun (system ``model:<name>:localize``)
through RunStore once complete, so `workbench eval` scores it with the retrievers. Files are
rewritten atomically after every query: an interrupted run resumes from the last saved query,
and a finished result is never lost or duplicated (results are keyed by query id).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import msgspec

from workbench.fsutil import guard_state_path, safe_name
from workbench.llm.counting import LABEL_DEPENDENT_TASKS, same_prompt_on_every_tier
from workbench.llm.records import TierRun
from workbench.project.files import ORIGINAL_VERSION, Project
from workbench.records import Hit, RankedList, Tier
from workbench.access.runs import JsonRunStore, RunStore, SystemRun, query_text_hash, tier_docs_hash, tier_hash

LLM_DIR = "llm"
VERSIONS_DIR = "versions"
TUI_DIR = "tui"  # .workbench/tui/<query>/: the one-query runs started in the TUI, one store per query


class LLMRunStore(JsonRunStore):
    """``root`` and ``publish=False`` give a scratch store (the TUI's one-query runs): its runs
    live apart and never replace a tier's full localization run on the access side."""

    record_type = TierRun
    subdir = LLM_DIR

    def __init__(
        self,
        project: Project,
        root: Path | None = None,
        publish: bool = True,
        on_save: Callable[[TierRun], None] | None = None,
    ):
        super().__init__(project, root)
        self.publish = publish
        self.on_save = on_save  # sees every saved state: how a UI shows results as they arrive

    def runs(self, tier: Tier) -> list:  # (untyped as the base: readers mix both kinds)
        """THE reader of a tier's stored model runs (diagnosis, report, figures, inspector): runs
        made on the tier's current documents, plus every gold-context (oracle) answer of the tier's
        queries stored on another tier — the same prompt on every tier, so it decides the query
        wherever the query is (same system, same key: same model, prompt version and judge; the
        rule is llm/counting.py's)."""
        own = super().runs(tier)
        shared = [run for run in self._shared(tier, own) if run is not None]
        replaced = {run.system for run in shared}
        return [run for run in own if run.system not in replaced] + shared

    def runs_elsewhere(self, system: str, tier_name: str) -> list[TierRun]:
        """The same system's stored runs on every other tier (in tier-folder order)."""
        return self._elsewhere(f"{safe_name(system)}.json", tier_name)

    def _elsewhere(self, file_name: str, tier_name: str) -> list[TierRun]:
        out = []
        for d in sorted(p for p in self.root.iterdir() if p.is_dir()) if self.root.is_dir() else []:
            path = (d / self.subdir if self.subdir else d) / file_name
            run = self._decode(path) if path.is_file() else None
            if run is not None and run.tier != tier_name:
                out.append(run)
        return out

    def _shared(self, tier: Tier, own: list[TierRun]) -> list[TierRun | None]:
        members = set(self.project.tier_query_ids(tier))
        by_system = {r.system: r for r in own}
        files = sorted({p.name for d in (self.root.iterdir() if self.root.is_dir() else []) if d.is_dir()
                        for p in (d / self.subdir if self.subdir else d).glob("*.json")})
        out: list[TierRun | None] = []
        for name in files:
            others = [r for r in self._elsewhere(name, tier.name) if same_prompt_on_every_tier(r.task) and r.fits]
            if not others:
                continue
            mine = by_system.get(others[0].system)
            key = mine.key if mine is not None else others[0].key
            have = {r.query_id for r in mine.qa} if mine is not None else set()
            extra = {}
            for run in others:
                if run.key != key:
                    continue
                for r in run.qa:
                    if r.query_id in members and r.query_id not in have and r.query_id not in extra and r.key:
                        extra[r.query_id] = r
            if not extra:
                continue
            order = {q: i for i, q in enumerate(self.project.tier_query_ids(tier))}
            if mine is not None:
                qa = sorted([*mine.qa, *extra.values()], key=lambda r: order.get(r.query_id, 1 << 30))
                out.append(msgspec.structs.replace(mine, qa=qa, shared=True))
            else:
                qa = sorted(extra.values(), key=lambda r: order.get(r.query_id, 1 << 30))
                out.append(msgspec.structs.replace(
                    others[0], tier=tier.name, tier_hash=tier_hash(self.project, tier),
                    docs_hash=tier_docs_hash(self.project, tier), qa=qa, failures=[], invalidated=[], shared=True,
                    complete=False))
        return out

    def save(self, run: TierRun) -> None:
        super().save(run)
        if self.on_save is not None:
            self.on_save(run)

    def save_localization(self, run: TierRun) -> SystemRun | None:
        """The access-side view of a finished localization run."""
        if not self.publish:
            return None
        k = run.k
        rankings = [
            RankedList(r.query_id, [Hit(d, float(len(r.doc_ids) - i)) for i, d in enumerate(r.doc_ids)])
            for r in run.localize
        ]
        originals = {q.query_id: q.query for q in self.project.original_queries}
        texts = {r.query_id: query_text_hash(originals[r.query_id]) for r in run.localize if r.query_id in originals}
        sr = SystemRun(system=run.system, tier=run.tier, tier_hash=run.tier_hash, key=run.key, k=k, rankings=rankings,
                       texts=texts, docs_hash=run.docs_hash)
        RunStore(self.project).save(sr)
        return sr

    def drop_localization(self, system: str, tier: str) -> None:
        if self.publish:  # never through a symlinked runs/ folder: a file outside is not ours to remove
            guard_state_path(RunStore(self.project).path(system, tier)).unlink(missing_ok=True)


def _version_dir(project: Project) -> Path | None:
    from workbench.fsutil import safe_name

    if project.queries_version == ORIGINAL_VERSION:
        return None
    return project.state_dir / VERSIONS_DIR / safe_name(project.queries_version)


def version_runs_root(project: Project) -> Path | None:
    """Where label-dependent runs made under a query-set version live (None for the original):
    .workbench/versions/<version>/runs/<tier>/llm/, apart from the original's, which they must
    never replace."""
    vdir = _version_dir(project)
    return vdir / "runs" if vdir else None


def store_for(project: Project, task: str) -> "LLMRunStore":
    """The store a run of this task goes to: the version's own for a label-dependent task."""
    return LLMRunStore(project, root=version_runs_root(project) if task in LABEL_DEPENDENT_TASKS else None)


def tui_root(project: Project, query_id: str, task: str | None = None) -> Path:
    """A query's folder of one-query TUI runs: .workbench/tui/<query>/, shared by every version,
    except a label-dependent task's run under a version, which goes to that version's folder."""
    from workbench.fsutil import safe_name

    versioned = version_tui_root(project, query_id) if task in LABEL_DEPENDENT_TASKS else None
    return versioned or project.state_dir / TUI_DIR / safe_name(query_id)


def version_tui_root(project: Project, query_id: str) -> Path | None:
    """The loaded version's folder of a query's label-dependent TUI runs (None for the original)."""
    from workbench.fsutil import safe_name

    vdir = _version_dir(project)
    return vdir / TUI_DIR / safe_name(query_id) if vdir else None


def _stores_under(project: Project, base: Path) -> list[LLMRunStore]:
    roots = sorted(p for p in base.iterdir() if p.is_dir()) if base.is_dir() else []
    return [LLMRunStore(project, root=r, publish=False) for r in roots]


def tui_stores(project: Project) -> list[LLMRunStore]:
    """The scratch stores of every query the TUI ran a model on (never published on the access side)."""
    return _stores_under(project, project.state_dir / TUI_DIR)


def version_tui_stores(project: Project) -> list[LLMRunStore]:
    """The loaded version's own scratch stores (its label-dependent TUI runs); none for the original."""
    vdir = _version_dir(project)
    return _stores_under(project, vdir / TUI_DIR) if vdir else []


def other_version_stores(project: Project) -> list[tuple[str, LLMRunStore, bool]]:
    """(version, store, is_tui) of every query-set version's own label-dependent runs except the
    loaded version's: an answer there counts for the loaded labels only when the query's labels
    are the same in both versions (labelling one query must not drop the answers of the others)."""
    from workbench.fsutil import safe_name
    from workbench.project.versions import list_versions

    out: list[tuple[str, LLMRunStore, bool]] = []
    for info in list_versions(project.root):
        if info.name in (ORIGINAL_VERSION, project.queries_version):
            continue
        vdir = project.state_dir / VERSIONS_DIR / safe_name(info.name)
        if (vdir / "runs").is_dir():
            out.append((info.name, LLMRunStore(project, root=vdir / "runs", publish=False), False))
        out += [(info.name, store, True) for store in _stores_under(project, vdir / TUI_DIR)]
    return out
