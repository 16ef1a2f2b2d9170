"""The report operations: its file name, decided once (`workbench report` and the TUI's report key both
write `<stem>.<format>` in PROJECT/reports/ with the stem from here), a collection window's queries
(`report --since`), and the report rendered or written."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from workbench.project.files import Project

if TYPE_CHECKING:
    from workbench.session.selection import Selection


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


class ReportWindow(msgspec.Struct, frozen=True):
    """The queries of a collection window (`report --since`)."""

    query_ids: list[str]  # production's queries traced since the start, narrowed to those asked for
    since: str  # the window's start, "YYYY-MM-DD HH:MM:SS UTC"
    unknown_start: int  # traces imported before start times were kept: left out


def production_window(root: Path, since: str, queries: str, queries_version: str) -> ReportWindow:
    """The production queries whose trace began since ``since`` (an ISO date or time, `today`, a span back),
    the --queries given narrowing them."""
    from datetime import datetime, timezone

    from workbench.project.load import load_project
    from workbench.session.production import production_since, since_ns

    window = production_since(load_project(root, queries_version), since_ns(since))
    asked = {q.strip() for q in queries.split(",") if q.strip()}
    when = datetime.fromtimestamp(window.since_ns / 1e9, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    return ReportWindow([q for q in window.query_ids if not asked or q in asked], when, window.unknown_start)


def rendered_report(sel: Selection, fmt: str, seed: int = 0, focus: str = "") -> bytes:
    """The selection's report (one query: that query's page) in ``fmt`` (md, html, json)."""
    from workbench.report import render
    from workbench.session.reading import diagnosis_report

    return render(diagnosis_report(sel, seed, focus=focus), fmt)


def write_report(sel: Selection, fmt: str, path: Path | None = None, seed: int = 0, focus: str = "") -> Path:
    """The report written whole or not at all (temp + rename), by default where report_path says."""
    from workbench.fsutil import atomic_write_bytes

    target = path or report_path(sel.project.root, sel.project, fmt, sel.query_ids)
    atomic_write_bytes(target, rendered_report(sel, fmt, seed, focus))
    return target
