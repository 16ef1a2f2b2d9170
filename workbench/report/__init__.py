"""The diagnosis report: build.py gathers the figures (the Report); builder.py makes the ONE document
of them (document.py: sections in order, each with its key, title, n and blocks); render_markdown.py
and html_page.py lay it out, and the JSON is the figures plus the document's sections. sweeps.py draws
the sweeps' charts and tables (also `sweep show`'s). The report of ONE query has its own document
(query.py) and template (query_page.py); its JSON is the one-query Report."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from workbench.errors import BadInput
from workbench.fsutil import atomic_write_bytes
from workbench.report.build import Report, build_report
from workbench.report.query import QueryPage, build_query_page

Format = Literal["md", "html", "json"]
FORMATS: tuple[str, ...] = ("md", "html", "json")


def render(report: Report | QueryPage, fmt: str) -> bytes:
    if isinstance(report, QueryPage):
        return _render_query(report, fmt)
    if fmt == "md":
        from workbench.report.markdown import report_markdown

        return report_markdown(report).encode()
    if fmt == "html":
        from workbench.report.html_page import report_html

        return report_html(report).encode()
    if fmt == "json":
        from workbench.report.render_json import report_json

        return report_json(report)
    raise BadInput(f"unknown report format {fmt!r}; known: {list(FORMATS)}")


def _render_query(page: QueryPage, fmt: str) -> bytes:
    from workbench.report.query_page import query_html, query_markdown

    if fmt == "md":
        return query_markdown(page).encode()
    if fmt == "html":
        return query_html(page).encode()
    return render(page.report, fmt)


def make_report(project, tiers, query_ids: set[str] | None = None, seed: int = 0, focus: str = "") -> Report | QueryPage:
    """The project's report, or with exactly one query that query's own page. ``focus``
    "production": production's system leads (the report of a collection window)."""
    if query_ids is not None and len(query_ids) == 1:
        return build_query_page(project, tiers, next(iter(query_ids)), seed=seed)
    return build_report(project, tiers, query_ids, seed=seed, focus=focus)


def write_report(report: Report | QueryPage, fmt: str, path: Path) -> Path:
    """Written whole or not at all (temp + rename)."""
    atomic_write_bytes(path, render(report, fmt))
    return path


def export_reports(project, tiers, directory: Path, query_ids: set[str] | None = None, stem: str = "diagnosis",
                   formats: tuple[str, ...] = FORMATS, seed: int = 0) -> list[Path]:
    """<stem>.md, .html and .json in directory (what the TUI's export keys write); one query: its own page."""
    report = make_report(project, tiers, query_ids, seed=seed)
    return [write_report(report, f, directory / f"{stem}.{f}") for f in formats]


__all__ = ["FORMATS", "QueryPage", "Report", "build_query_page", "build_report", "export_reports", "make_report", "render",
           "write_report"]
