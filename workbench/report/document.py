"""The diagnosis report as ONE typed document: metadata, then sections in order, each with a stable
key, one title, the n behind its figures and its blocks. report/builder.py makes it once from the
Report (the figures); render_markdown.py, html_page.py and the JSON only lay it out, so every
format has the same sections, in the same order, with the same words.

Text from data stays plain text here: each renderer escapes it for its own format."""

from __future__ import annotations

from typing import Literal, Union

import msgspec

# How a run of text is shown. "verdict": a verdict word (a coloured badge in HTML, plain in Markdown);
# "verdict_strong": the same, bold in Markdown; "mark": a highlighted difference (plain in Markdown).
SpanStyle = Literal["plain", "strong", "code", "muted", "verdict", "verdict_strong", "mark"]
# "muted": secondary in HTML, plain in Markdown; "note": secondary in HTML, italic in Markdown.
Tone = Literal["plain", "muted", "note"]


class Span(msgspec.Struct, frozen=True):
    text: str
    style: SpanStyle = "plain"


Inline = list[Span]


class Paragraph(msgspec.Struct, frozen=True, tag="paragraph"):
    spans: Inline
    tone: Tone = "plain"


class Headline(msgspec.Struct, frozen=True, tag="headline"):
    """The lead's lines, read first (one box in HTML, one paragraph per line in Markdown)."""

    lines: list[Inline]


class Table(msgspec.Struct, frozen=True, tag="table"):
    header: list[str]
    rows: list[list[Inline]]
    align: list[Literal["l", "r"]]  # one per column


class Item(msgspec.Struct, frozen=True):
    spans: Inline
    sub: list[Inline] = []  # lines under the item
    sub_code: bool = False  # the lines under it are commands


class ListBlock(msgspec.Struct, frozen=True, tag="list"):
    items: list[Item]
    ordered: bool = False


class NextStep(msgspec.Struct, frozen=True, tag="next"):
    """The one thing to run next and its one command."""

    text: str
    command: str


class FunnelRow(msgspec.Struct, frozen=True):
    system: str
    level: str
    n: int
    counts: dict[str, int]  # stage → queries, stages in diagnosis/funnel.py's order
    line: str  # the counts in words
    bar: str  # the counts as a text bar (Markdown)


class FunnelChart(msgspec.Struct, frozen=True, tag="funnel"):
    legend: str  # the text bar's legend
    stages: dict[str, str]  # stage → its label, in order
    rows: list[FunnelRow]


class Point(msgspec.Struct, frozen=True):
    level: str
    mean: float
    low: float | None
    high: float | None
    n: int


class Series(msgspec.Struct, frozen=True):
    label: str
    points: list[Point]
    dashed: bool = False
    hue: int = 0


class CurveChart(msgspec.Struct, frozen=True, tag="curve"):
    """Lines over the ladder's levels with interval bars (a table of the points in Markdown)."""

    name: str
    levels: list[str]
    series: list[Series]
    y_label: str
    signed: bool = False


class StripCell(msgspec.Struct, frozen=True):
    query_id: str
    level: str
    verdict: str
    rule: str


class VerdictStrip(msgspec.Struct, frozen=True, tag="strip"):
    """The shown system's verdict per query (columns) and level (rows)."""

    levels: list[str]
    queries: list[str]
    cells: list[StripCell]
    legend: list[str]  # the verdict words, in the tally's order


class WordDiff(msgspec.Struct, frozen=True, tag="worddiff"):
    """A near miss against the gold it imitates, word by word (changed spans have style "mark")."""

    title: str
    left: Inline
    right: Inline


class Details(msgspec.Struct, frozen=True, tag="details"):
    """One query's part: collapsed in HTML, a level-3 heading in Markdown."""

    anchor: str
    summary: Inline
    blocks: list["Block"]


class Sweep(msgspec.Struct, frozen=True, tag="sweep"):
    """One stored sweep's summary (workbench/sweeps/summary.py): its tables in Markdown, its charts in HTML."""

    kind: str
    summary: dict


Block = Union[Paragraph, Headline, Table, ListBlock, NextStep, FunnelChart, CurveChart, VerdictStrip, WordDiff, Details, Sweep]


class Section(msgspec.Struct, frozen=True):
    key: str  # stable: the JSON's and the HTML's anchor
    title: str  # "" : no heading (the lead's parts)
    n: int | None  # the queries (or answers) behind its figures; None where it holds none
    blocks: list[Block]


class Metadata(msgspec.Struct, frozen=True):
    title: str
    project: str
    queries_version: str
    queries: int
    corpus_hash: str
    k: int
    levels: list[str]
    line: Inline  # what the metadata says under the title


class Document(msgspec.Struct, frozen=True):
    metadata: Metadata
    sections: list[Section]

    def titled(self) -> list[Section]:
        return [s for s in self.sections if s.title]


def text(value: object, style: SpanStyle = "plain") -> Span:
    return Span(str(value), style)


def para(*spans: Span | str, tone: Tone = "plain") -> Paragraph:
    return Paragraph([s if isinstance(s, Span) else Span(s) for s in spans], tone)


def cells(*values: object) -> list[Inline]:
    """A table row of plain cells."""
    return [[v] if isinstance(v, Span) else v if isinstance(v, list) else [Span(str(v))] for v in values]
