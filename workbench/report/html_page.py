"""The report document (document.py) laid out as ONE self-contained HTML file: no script, no network
(a Content-Security-Policy forbids every fetch), inline SVG charts. Layout only: every word comes from
the document. Every piece of data text goes through `h` (control characters made visible, then
html.escape): a document containing `<script>` shows as text. `answer_row`, `spans_html`, `badge`
and `h` are also the one-query page's (query_page.py)."""

from __future__ import annotations

import html

from workbench.display import MISSING, fmt
from workbench.report.builder import build_document, decided_word, judge_mark
from workbench.report.build import Report
from workbench.report.document import (Block, CurveChart, Details, Document, FunnelChart, Headline, Inline, ListBlock, NextStep, Paragraph,
                                       Section, Sweep, Table, VerdictStrip, WordDiff)
from workbench.report.funnel import COLORS as STAGE_COLORS, STYLE as FUNNEL_STYLE
from workbench.report.partial import PROVISIONAL_ACCESS
from workbench.report.sweeps import sweep_figure
from workbench.report.text import shown

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
COLORS = {"PASS": "#2e7d32", "ACCESS": "#ef6c00", "USE": "#6a1b9a", "USE-UNDER-DISTRACTORS": "#d81b60",
          "BOTH": "#b71c1c", "NOT-YET": "#bdbdbd", PROVISIONAL_ACCESS: "#ffb74d",
          "UNDECIDED": "#9e9e9e"}
PALETTE = ["#1565c0", "#ef6c00", "#2e7d32", "#6a1b9a", "#c62828", "#00838f", "#5d4037", "#9e9d24", "#ad1457", "#37474f"]
STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;color:#212121;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd}
h3{font-size:15px;margin:18px 0 6px}table{border-collapse:collapse;margin:6px 0 12px}
td,th{border:1px solid #ddd;padding:3px 7px;text-align:right;vertical-align:top}
td.l,th.l{text-align:left}th{background:#f5f5f5}p.headline{font-size:16px;background:#f7f7f7;padding:10px 14px;border-left:4px solid #1565c0}
.v{display:inline-block;padding:0 6px;border-radius:3px;color:#fff;font-weight:600;font-size:12px}
.muted{color:#757575}mark{background:#ffe082;padding:0 1px}.diff{font-family:ui-monospace,monospace;font-size:12px;white-space:pre-wrap;background:#fafafa;padding:6px;border:1px solid #eee}
svg text{font:11px system-ui,sans-serif;fill:#424242}code{background:#f3f3f3;padding:0 3px}
details.q{margin:4px 0;padding:2px 6px;border-left:3px solid #eee}details.q>summary{cursor:pointer}
div.next{background:#fff8e1;border-left:4px solid #ef6c00;padding:8px 12px}div.next code{display:block;white-space:pre-wrap;word-break:break-all;margin-top:4px}
"""


def h(text: object) -> str:
    return html.escape(shown(text), quote=True)


def badge(verdict: str) -> str:
    return f'<span class="v" style="background:{COLORS.get(verdict, "#757575")}">{h(verdict)}</span>'


_WRAP = {"strong": ("<b>", "</b>"), "code": ("<code>", "</code>"), "muted": ("<span class=muted>", "</span>"), "mark": ("<mark>", "</mark>")}


def inline(spans: Inline) -> str:
    out = []
    for s in spans:
        if s.style in ("verdict", "verdict_strong"):
            out.append(badge(s.text))
        elif s.style in _WRAP:
            out.append(_WRAP[s.style][0] + h(s.text) + _WRAP[s.style][1])
        else:
            out.append(h(s.text))
    return "".join(out)


def _curve_chart(c: CurveChart) -> str:
    """Lines over levels with interval bars: solid or dashed, one colour per hue."""
    title, levels, series, y_label, signed = c.name, c.levels, c.series, c.y_label, c.signed
    w, hgt, left, right, top, bottom = 900, 260, 48, 300, 14, 46
    lo, hi = (-1.0, 1.0) if signed else (0.0, 1.0)
    xs = {lv: left + (i + 0.5) * (w - left - right) / max(1, len(levels)) for i, lv in enumerate(levels)}

    def y(v: float) -> float:
        return top + (hi - max(lo, min(hi, v))) / (hi - lo) * (hgt - top - bottom)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{hgt}" role="img" aria-label="{h(title)}">',
             f"<title>{h(title)}</title>"]
    for t in ([-1, -0.5, 0, 0.5, 1] if signed else [0, 0.25, 0.5, 0.75, 1]):
        parts.append(f'<line x1="{left}" x2="{w - right}" y1="{y(t):.1f}" y2="{y(t):.1f}" stroke="#eee"/>'
                     f'<text x="{left - 6}" y="{y(t) + 4:.1f}" text-anchor="end">{t:g}</text>')
    for lv, x in xs.items():
        parts.append(f'<text x="{x:.1f}" y="{hgt - bottom + 16}" text-anchor="middle">{h(lv)}</text>')
    parts.append(f'<text x="12" y="{top + (hgt - top - bottom) / 2:.0f}" transform="rotate(-90 12 {top + (hgt - top - bottom) / 2:.0f})" text-anchor="middle">{h(y_label)}</text>')
    for i, one in enumerate(series):
        label, dashed, hue = one.label, one.dashed, one.hue
        color = PALETTE[hue % len(PALETTE)]
        pts = [(xs[p.level], p) for p in one.points if p.level in xs]
        if len(pts) > 1:
            path = " ".join(f"{x:.1f},{y(e.mean):.1f}" for x, e in pts)
            dash = ' stroke-dasharray="5 4"' if dashed else ""
            parts.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"{dash}/>')
        for x, e in pts:
            off = (i - len(series) / 2) * 3  # spread the bars so they do not hide each other
            if e.low is not None and e.high is not None:
                parts.append(f'<line x1="{x + off:.1f}" x2="{x + off:.1f}" y1="{y(e.low):.1f}" y2="{y(e.high):.1f}" stroke="{color}" stroke-width="1.5" opacity=".6"/>')
            parts.append(f'<circle cx="{x + off:.1f}" cy="{y(e.mean):.1f}" r="3.5" fill="{color}"><title>{h(label)} {fmt(e.mean)} [{fmt(e.low, 2)}, {fmt(e.high, 2)}] n={e.n}</title></circle>')
        ly = top + 4 + i * 16
        dash = ' stroke-dasharray="5 4"' if dashed else ""
        parts.append(f'<line x1="{w - right + 12}" x2="{w - right + 34}" y1="{ly}" y2="{ly}" stroke="{color}" stroke-width="2"{dash}/>'
                     f'<text x="{w - right + 40}" y="{ly + 4}">{h(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _strip(s: VerdictStrip) -> str:
    cell_w, cell_h, left, top = max(6, min(28, 900 // max(1, len(s.queries)))), 18, 110, 4
    w = max(left + cell_w * len(s.queries) + 10, 520)
    hgt = top + cell_h * len(s.levels) + 30
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{hgt}" role="img" aria-label="verdict per query and tier">',
             "<title>verdict per query (columns) and tier (rows)</title>"]
    row = {lv: i for i, lv in enumerate(s.levels)}
    col = {q: j for j, q in enumerate(s.queries)}
    for i, lv in enumerate(s.levels):
        parts.append(f'<text x="{left - 6}" y="{top + i * cell_h + 13}" text-anchor="end">{h(lv)}</text>')
    for c in s.cells:
        x, yy = left + col[c.query_id] * cell_w, top + row[c.level] * cell_h
        parts.append(f'<rect x="{x}" y="{yy}" width="{cell_w - 1}" height="{cell_h - 2}" fill="{COLORS.get(c.verdict, "#757575")}">'
                     f"<title>{h(c.query_id)} @ {h(c.level)}: {h(c.verdict)} ({h(c.rule)})</title></rect>")
    parts.append(f'<text x="{left}" y="{hgt - 8}">{len(s.queries)} queries, ladder order top to bottom; hover a cell for the query</text>')
    parts.append("</svg>")
    return "".join(parts) + "<p>" + " ".join(badge(v) for v in s.legend) + "</p>"


def _funnel(f: FunnelChart) -> str:
    legend = " ".join(f'<span class=fkey style="background:{STAGE_COLORS[s]}"></span>{h(label)}' for s, label in f.stages.items())
    body = []
    for r in f.rows:
        bar = "".join(f'<span title="{h(f.stages[s])}: {n}" style="width:{100 * n / r.n:.2f}%;background:{STAGE_COLORS[s]}"></span>'
                      for s, n in r.counts.items() if n and r.n)
        body.append(f"<tr><td class=l>{h(r.system)}</td><td class=l>{h(r.level)}</td><td class=l style='width:55%'><div class=fbar>{bar}</div></td>"
                    f"<td class='l muted'>n={r.n}: {h(r.line)}</td></tr>")
    return (f"<p class=muted>{legend}</p><table class=funnel><tr><th class=l>system</th><th class=l>level</th><th class=l>stages</th>"
            f"<th class=l>counts</th></tr>{''.join(body)}</table>")


def _table(t: Table) -> str:
    head = "".join(f"<th class=l>{h(x)}</th>" if a == "l" else f"<th>{h(x)}</th>" for x, a in zip(t.header, t.align))
    rows = "".join("<tr>" + "".join(f"<td class=l>{inline(c)}</td>" if a == "l" else f"<td>{inline(c)}</td>" for c, a in zip(row, t.align)) + "</tr>"
                   for row in t.rows)
    return f"<table><tr>{head}</tr>{rows}</table>"


def _list(b: ListBlock) -> str:
    tag = "ol" if b.ordered else "ul"
    items = []
    for item in b.items:
        sub = ""
        if item.sub:
            sub = "<ul class=muted>" + "".join(f"<li><code>{inline(x)}</code></li>" if item.sub_code else f"<li>{inline(x)}</li>" for x in item.sub) + "</ul>"
        items.append(f"<li>{inline(item.spans)}{sub}</li>")
    return f"<{tag}>{''.join(items)}</{tag}>"


def block(b: Block) -> str:
    if isinstance(b, Paragraph):
        return f"<p class=muted>{inline(b.spans)}</p>" if b.tone != "plain" else f"<p>{inline(b.spans)}</p>"
    if isinstance(b, Headline):
        return "<p class=headline>" + "<br>".join(inline(line) for line in b.lines) + "</p>"
    if isinstance(b, Table):
        return _table(b)
    if isinstance(b, ListBlock):
        return _list(b)
    if isinstance(b, NextStep):
        return f"<div class=next><b>Next:</b> {h(b.text)}<code>{h(b.command)}</code></div>"
    if isinstance(b, FunnelChart):
        return _funnel(b)
    if isinstance(b, CurveChart):
        return _curve_chart(b)
    if isinstance(b, VerdictStrip):
        return _strip(b)
    if isinstance(b, WordDiff):
        return (f"<details><summary>{h(b.title)}</summary><div class=diff>{inline(b.left)}</div>"
                f"<div class=diff>{inline(b.right)}</div></details>")
    if isinstance(b, Details):  # collapsed: the page leads with what to do; a query's part opens on a click
        return f'<details class=q id="{h(b.anchor)}"><summary>{inline(b.summary)}</summary>' + "".join(block(x) for x in b.blocks) + "</details>"
    if isinstance(b, Sweep):
        return sweep_figure(b.kind, b.summary)
    raise TypeError(f"no HTML layout for {type(b).__name__}")


def section(s: Section) -> str:
    body = "\n".join(block(b) for b in s.blocks)
    if not s.title:
        return body
    return f'<section class="{h(s.key)}">\n<h2>{h(s.title)}</h2>\n{body}\n</section>'


def render_html(doc: Document) -> str:
    m = doc.metadata
    body = [f"<h1>{h(m.title)}</h1>", f"<p class=muted>{inline(m.line)}.</p>", *(section(s) for s in doc.sections)]
    return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{h(m.title)}</title><style>{STYLE}{FUNNEL_STYLE}</style></head><body>\n"
            + "\n".join(x for x in body if x) + "\n</body></html>\n")


def report_html(r: Report) -> str:
    return render_html(build_document(r))


def answer_row(name: str, a) -> str:
    if a is None:
        return f"<tr><td class=l>{h(name)}</td><td class='l muted' colspan=6>not run</td></tr>"
    judge = MISSING if a.judge_score is None else f"{a.judge_score:g}/5{judge_mark(a.judge_trusted)}"
    reason = f"<br><span class=muted>judge: {h(a.judge_reason)}</span>" if a.judge_reason else ""
    src = "" if a.source == "tier run" else f"<br><span class=muted>{h(a.source)}, {a.run_queries} quer{'y' if a.run_queries == 1 else 'ies'}</span>"
    return (f"<tr><td class=l>{h(name)}</td><td class=l>{h(a.answer)}{reason}{src}</td><td>{'<b>wrong</b>' if decided_word(a) == 'wrong' else decided_word(a)}</td>"
            f"<td>{judge}</td><td>{fmt(a.exact)}</td><td>{fmt(a.contains)}</td><td>{a.f1:.2f}</td></tr>"
            f"<tr><td></td><td class='l muted' colspan=6>{h(a.basis)}</td></tr>")


def spans_html(spans: list[tuple[str, bool]]) -> str:
    return "".join(f"<mark>{h(t)}</mark>" if changed else h(t) for t, changed in spans)
