"""The diagnosis report: build.py makes the document; markdown.py, html_page.py render it; JSON is it;
sweeps.py renders the sweeps' sections (Markdown, SVG, dict) that the report and `sweep show` include."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from workbench.errors import BadInput
from workbench.fsutil import atomic_write_bytes
from workbench.report.build import Report, build_report, report_json

Format = Literal["md", "html", "json"]
FORMATS: tuple[str, ...] = ("md", "html", "json")


def render(report: Report, fmt: str) -> bytes:
    if fmt == "md":
        from workbench.report.markdown import report_markdown

        return report_markdown(report).encode()
    if fmt == "html":
        from workbench.report.html_page import report_html

        return report_html(report).encode()
    if fmt == "json":
        return report_json(report)
    raise BadInput(f"unknown report format {fmt!r}; known: {list(FORMATS)}")


def write_report(report: Report, fmt: str, path: Path) -> Path:
    """Written whole or not at all (temp + rename)."""
    atomic_write_bytes(path, render(report, fmt))
    return path


def export_reports(project, tiers, directory: Path, query_ids: set[str] | None = None, stem: str = "diagnosis",
                   formats: tuple[str, ...] = FORMATS, seed: int = 0) -> list[Path]:
    """<stem>.md, .html and .json in directory (what the TUI's export keys write)."""
    report = build_report(project, tiers, query_ids, seed=seed)
    return [write_report(report, f, directory / f"{stem}.{f}") for f in formats]


__all__ = ["FORMATS", "Report", "build_report", "export_reports", "render", "write_report"]
