"""The report document (document.py) laid out as Markdown for a pull request. Layout only: every
word comes from the document. Data text is escaped (control characters made visible; Markdown and
HTML specials backslash-escaped or entity-encoded; bare URLs kept from linking), never interpreted.
Charts are written as the table of their points."""

from __future__ import annotations

import re

from workbench.display import fmt
from workbench.report.document import (Block, CurveChart, Details, Document, FunnelChart, Headline, Inline, ListBlock, NextStep, Paragraph,
                                       Section, Sweep, Table, VerdictStrip, WordDiff)
from workbench.report.sweeps import summary_markdown
from workbench.report.text import no_autolinks, shown

# "#" only matters at a line's start (a heading): escaped there alone, so "#3" (a rank) reads as written.
_SPECIAL = {c: "\\" + c for c in "\\`*_[]|"} | {"<": "&lt;", ">": "&gt;", "&": "&amp;"}
_LINE_START = re.compile(r"^(\s*)([#+\-=]|\d+[.)] )")


def esc(value: object) -> str:
    body = "".join(_SPECIAL.get(c, c) for c in shown(value, one_line=True))
    return no_autolinks(body)


def _code(value: object) -> str:
    body = shown(value, one_line=True).replace("`", "'").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f"`{body}`"


def _bold(body: str) -> str:
    """Bold that survives surrounding spaces (``** x**`` is not bold)."""
    core = body.strip()
    if not core:
        return body
    lead, trail = body[: len(body) - len(body.lstrip())], body[len(body.rstrip()):]
    return f"{lead}**{core}**{trail}"


def inline(spans: Inline, *, diff: bool = False) -> str:
    out = []
    for s in spans:
        if s.style == "code":
            out.append(_code(s.text))
        elif s.style in ("strong", "verdict_strong") or (diff and s.style == "mark"):
            out.append(_bold(esc(s.text)))
        else:
            out.append(esc(s.text))
    return "".join(out)


def _line(spans: Inline) -> str:
    """A paragraph's line: a leading "#", "-", "1." … would start a heading or a list: escaped."""
    return _LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), inline(spans))


def _table(t: Table) -> list[str]:
    out = ["| " + " | ".join(esc(h) for h in t.header) + " |", "|" + "".join("---:|" if a == "r" else "---|" for a in t.align)]
    return out + ["| " + " | ".join(inline(c) for c in row) + " |" for row in t.rows] + [""]


def _list(b: ListBlock) -> list[str]:
    out = []
    for i, item in enumerate(b.items, 1):
        out.append(f"{i}. " + inline(item.spans) if b.ordered else "- " + inline(item.spans))
        out += [("   - " if b.ordered else "  - ") + inline(sub) for sub in item.sub]
    return out + [""]


def _point(p) -> str:
    return f"{fmt(p.mean)} [{fmt(p.low, 2)}, {fmt(p.high, 2)}], n={p.n}" if p.low is not None else f"{fmt(p.mean)}, n={p.n}"


def _curve(c: CurveChart) -> list[str]:
    at = [{p.level: p for p in s.points} for s in c.series]
    rows = [[esc(lv)] + [_point(x[lv]) if lv in x else "–" for x in at] for lv in c.levels if any(lv in x for x in at)]
    head = ["level"] + [esc(s.label) for s in c.series]
    return [f"{esc(c.y_label)} per level:", "", "| " + " | ".join(head) + " |", "|---|" + "---:|" * len(c.series),
            *("| " + " | ".join(r) + " |" for r in rows), ""]


def _strip(s: VerdictStrip) -> list[str]:
    at = {(c.query_id, c.level): c.verdict for c in s.cells}
    out = ["<details><summary>" + esc(f"{len(s.queries)} queries × {len(s.levels)} levels") + "</summary>", "",
           "| query | " + " | ".join(esc(lv) for lv in s.levels) + " |", "|---|" + "---|" * len(s.levels)]
    out += ["| " + esc(q) + " | " + " | ".join(esc(at.get((q, lv), "")) for lv in s.levels) + " |" for q in s.queries]
    return out + ["", "</details>", "", "Verdicts: " + esc(" · ".join(s.legend)), ""]


def _funnel(f: FunnelChart) -> list[str]:
    width = max(len(f"{r.system} @ {r.level}") for r in f.rows)
    lines = [f"{f'{r.system} @ {r.level}':<{width}}  {r.bar:<40}  n={r.n}: {r.line}" for r in f.rows]
    return [esc(f.legend), "", "```", *(shown(x, one_line=True).replace("`", "'") for x in lines), "```", ""]


def block(b: Block) -> list[str]:
    if isinstance(b, Paragraph):
        body = _line(b.spans)
        return [f"_{body}_" if b.tone == "note" and body else body, ""]
    if isinstance(b, Headline):
        return [x for line in b.lines for x in (_line(line), "")]
    if isinstance(b, Table):
        return _table(b)
    if isinstance(b, ListBlock):
        return _list(b)
    if isinstance(b, NextStep):
        return [f"**Next:** {esc(b.text)}", "", "    " + shown(b.command, one_line=True), ""]
    if isinstance(b, FunnelChart):
        return _funnel(b)
    if isinstance(b, CurveChart):
        return _curve(b)
    if isinstance(b, VerdictStrip):
        return _strip(b)
    if isinstance(b, WordDiff):
        return [esc(b.title) + ":", "", "- distractor: " + inline(b.left, diff=True), "- gold: " + inline(b.right, diff=True), ""]
    if isinstance(b, Details):
        return ["### " + inline(b.summary), ""] + [x for inner in b.blocks for x in block(inner)]
    if isinstance(b, Sweep):
        return [summary_markdown(b.summary)]
    raise TypeError(f"no Markdown layout for {type(b).__name__}")


def section(s: Section) -> list[str]:
    head = [f"## {esc(s.title)}", ""] if s.title else []
    return head + [x for b in s.blocks for x in block(b)]


def render_markdown(doc: Document) -> str:
    out = [f"# {esc(doc.metadata.title)}", "", inline(doc.metadata.line) + ".", ""]
    for s in doc.sections:
        out += section(s)
    return "\n".join(out).rstrip("\n") + "\n"


__all__ = ["esc", "inline", "render_markdown"]
