"""The report as JSON: the figures (every key the Report has, for the programs that read them),
then the document's sections (builder.py): the same keys, titles and words as the Markdown and HTML
headings. A renderer like the other two, above build.py (which it reads) and builder.py."""

from __future__ import annotations

import msgspec

from workbench.report.build import Report
from workbench.report.builder import build_document


def report_json(report: Report) -> bytes:
    doc = msgspec.to_builtins(report)
    doc["sections"] = msgspec.to_builtins(build_document(report).sections)
    return msgspec.json.format(msgspec.json.encode(doc), indent=1) + b"\n"
