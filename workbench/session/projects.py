"""The project folder's operations: `init`, `import`, `ladder`, `tiers`, `index`, `query-sets`, and
the check that a project opens (`open`) and the demo's copy (`demo`). Each returns what the
front end shows; the logic lives in workbench/project/ and workbench/access/ (ladder, indexing)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from workbench.progress import Progress
    from workbench.project.files import Project
    from workbench.project.importers import ImportResult
    from workbench.project.versions import VersionInfo
    from workbench.records import Tier, TierSet


def init_project(root: Path, name: str | None = None) -> None:
    """An empty project folder (workbench.toml and the files a project holds)."""
    from workbench.project.files import init_project as init

    init(root, name)


def import_into_project(root: Path, documents: Path, queries: Path | None = None, fmt: str = "jsonl",
                        split: str = "test") -> ImportResult:
    """Fill a project (creating it if absent) from documents and queries; into one that has some,
    add the input's new records and keep every record the project holds."""
    from workbench.project.importers import merge_import

    return merge_import(root, documents, queries, fmt, split)


class TierRow(msgspec.Struct, frozen=True):
    """One tier of the ladder as `tiers` shows it."""

    name: str
    kind: str
    budget: int
    docs: int
    tokens: int
    domains: list[str]
    queries: int
    multi_source_queries: int


class TierTable(msgspec.Struct, frozen=True):
    project: str  # the project's name (workbench.toml)
    tiers: list[TierRow]


def _tier_table(project: Project, tierset: TierSet) -> TierTable:
    rows = [TierRow(t.name, t.kind, t.budget, len(t.doc_ids), t.tokens, list(t.domains), len(t.query_ids),
                    sum(project.query(q).is_multi_source for q in t.query_ids)) for t in tierset.tiers]
    return TierTable(project.config.name, rows)


def build_ladder(root: Path) -> TierTable:
    """Build the reference-corpus ladder (tiers) from the spec in workbench.toml, and show it."""
    from workbench.access.ladder import write_ladder
    from workbench.project.load import load_project

    project = load_project(root)
    return _tier_table(project, write_ladder(project))


def tier_table(root: Path) -> TierTable:
    """The ladder's tiers (built first if the project has none)."""
    from workbench.access.ladder import ensure_tiers
    from workbench.project.load import load_project

    project = load_project(root)
    return _tier_table(project, ensure_tiers(project))


class IndexesBuilt(msgspec.Struct, frozen=True):
    """Index labels ("kind tier") built now, and those already current."""

    built: list[str]
    kept: list[str]


def index_tiers(project: Project, tiers: list[Tier], *, kinds: tuple[str, ...] = ("sparse", "dense"), force: bool = False,
                progress: Progress | None = None) -> IndexesBuilt:
    """Build the tiers' missing or stale indexes (all of them with ``force``)."""
    from workbench.access.indexing import build_indexes

    done = build_indexes(project, tiers, kinds=kinds, force=force, progress=progress)
    return IndexesBuilt(list(done["built"]), list(done["kept"]))


def index_project(root: Path, *, kinds: tuple[str, ...] = ("sparse", "dense"), force: bool = False,
                  progress: Progress | None = None) -> IndexesBuilt:
    """Every tier's indexes (building the ladder first if needed)."""
    from workbench.access.ladder import ensure_tiers
    from workbench.project.load import load_project

    project = load_project(root)
    return index_tiers(project, ensure_tiers(project).tiers, kinds=kinds, force=force, progress=progress)


class QuerySet(msgspec.Struct, frozen=True):
    """A query-set version and when it last changed ("–" where that is not recorded)."""

    info: VersionInfo
    changed: str


def query_sets(root: Path) -> list[QuerySet]:
    """The project's query-set versions, original first, with parent and provenance."""
    from workbench.project.files import load_config
    from workbench.project.versions import last_changed, list_versions

    load_config(root)  # a readable error if this is not a project
    return [QuerySet(v, last_changed(v)) for v in list_versions(root)]


def check_project(root: Path, queries_version: str = "original") -> None:
    """Raise the readable error a project that does not load (or lacks the version) gives, before
    a front end opens on it."""
    from workbench.project.load import load_project

    load_project(root, queries_version)


def demo_project() -> Path:
    """The demo's working copy (user data folder), refreshed from the corpus this installation ships."""
    from workbench.project.demo import prepare_demo

    return prepare_demo()
