"""The report's file name, decided once: `workbench report` and the TUI's report key both write
`<stem>.<format>` in PROJECT/reports/ with the stem from here."""

from __future__ import annotations

from pathlib import Path

from workbench.project.files import Project


def report_stem(project: Project, query_ids: set[str] | None = None) -> str:
    """`diagnosis` (or `report-<query>` for one query), with `-<version>` under a query-set version
    other than the original, so a labelled version's report never overwrites the original's."""
    from workbench.fsutil import safe_name
    from workbench.project.files import ORIGINAL_VERSION

    stem = "diagnosis" if query_ids is None or len(query_ids) != 1 else f"report-{safe_name(next(iter(query_ids)))}"
    if project.queries_version != ORIGINAL_VERSION:
        stem += f"-{safe_name(project.queries_version)}"
    return stem


def report_dir(root: Path) -> Path:
    return Path(root) / "reports"


def report_path(root: Path, project: Project, fmt: str, query_ids: set[str] | None = None) -> Path:
    return report_dir(root) / f"{report_stem(project, query_ids)}.{fmt}"
