"""The report as ONE self-contained HTML file: no script, no network (a Content-Security-Policy
forbids every fetch), inline SVG charts. Every piece of data text goes through `h` (control
characters made visible, then html.escape): a document containing `<script>` shows as text."""

from __future__ import annotations

import html

from workbench.stats import Estimate
from workbench.display import MISSING, fmt

from workbench.diagnosis.nearmiss import Distractor
from workbench.report.build import QueryReport, Report
from workbench.report.headline import (COLUMNS, access_sentence, lead_stealers, recommended, shown_readings, small_curves, use_cell, use_sentence,
                                       verdict_sentence)
from workbench.report.markdown import decided_word, judge_mark, ranks
from workbench.report.partial import PROVISIONAL_ACCESS, LostGold, shown_verdict
from workbench.report.text import shown
from workbench.report.insight import html_headline, html_section
from workbench.report.sweeps import svg_section
from workbench.report.lead import stealer_lines
from workbench.report.funnel import STYLE as FUNNEL_STYLE, html_section as funnel_html

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
COLORS = {"PASS": "#2e7d32", "ACCESS": "#ef6c00", "USE": "#6a1b9a", "USE-UNDER-DISTRACTORS": "#d81b60",
          "BOTH": "#b71c1c", "NOT-YET": "#bdbdbd", PROVISIONAL_ACCESS: "#ffb74d",
          "UNDECIDED": "#9e9e9e"}
PALETTE = ["#1565c0", "#ef6c00", "#2e7d32", "#6a1b9a", "#c62828", "#00838f", "#5d4037", "#9e9d24", "#ad1457", "#37474f"]
MAX_FAILING = 60
STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;color:#212121;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd}
h3{font-size:15px;margin:18px 0 6px}table{border-collapse:collapse;margin:6px 0 12px}
td,th{border:1px solid #ddd;padding:3px 7px;text-align:right;vertical-align:top}
td.l,th.l{text-align:left}th{background:#f5f5f5}.headline{font-size:16px;background:#f7f7f7;padding:10px 14px;border-left:4px solid #1565c0}
.v{display:inline-block;padding:0 6px;border-radius:3px;color:#fff;font-weight:600;font-size:12px}
.muted{color:#757575}mark{background:#ffe082;padding:0 1px}.diff{font-family:ui-monospace,monospace;font-size:12px;white-space:pre-wrap;background:#fafafa;padding:6px;border:1px solid #eee}
svg text{font:11px system-ui,sans-serif;fill:#424242}code{background:#f3f3f3;padding:0 3px}
details.q{margin:4px 0;padding:2px 6px;border-left:3px solid #eee}details.q>summary{cursor:pointer}
.next{background:#fff8e1;border-left:4px solid #ef6c00;padding:8px 12px}.next code{display:block;white-space:pre-wrap;word-break:break-all;margin-top:4px}
"""


def h(text: object) -> str:
    return html.escape(shown(text), quote=True)


def badge(verdict: str) -> str:
    return f'<span class="v" style="background:{COLORS.get(verdict, "#757575")}">{h(verdict)}</span>'


def est(e: Estimate, minimum: int = 0) -> str:
    if e.n < minimum and e.mean is not None:
        return f"{round(e.mean * e.n)} of {e.n} <span class=muted>(a count: n &lt; {minimum})</span>"
    if e.mean is None:
        return MISSING
    return f"{fmt(e.mean)} <span class=muted>[{fmt(e.low, 2)}, {fmt(e.high, 2)}]</span>" if e.n > 1 else f"{fmt(e.mean)} <span class=muted>(n=1)</span>"


Series = tuple[str, list[tuple[str, Estimate]], bool, int]


def _curve_chart(title: str, levels: list[str], series: list[Series], y_label: str, signed: bool = False) -> str:
    """Lines over levels with interval bars. series: (label, [(level, estimate)], dashed, colour index)."""
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
    for i, (label, points, dashed, hue) in enumerate(series):
        color = PALETTE[hue % len(PALETTE)]
        pts = [(xs[lv], e) for lv, e in points if e.mean is not None and lv in xs]
        if len(pts) > 1:
            path = " ".join(f"{x:.1f},{y(e.mean):.1f}" for x, e in pts)  # type: ignore[arg-type]
            dash = ' stroke-dasharray="5 4"' if dashed else ""
            parts.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"{dash}/>')
        for x, e in pts:
            off = (i - len(series) / 2) * 3  # spread the bars so they do not hide each other
            if e.low is not None and e.high is not None:
                parts.append(f'<line x1="{x + off:.1f}" x2="{x + off:.1f}" y1="{y(e.low):.1f}" y2="{y(e.high):.1f}" stroke="{color}" stroke-width="1.5" opacity=".6"/>')
            parts.append(f'<circle cx="{x + off:.1f}" cy="{y(e.mean):.1f}" r="3.5" fill="{color}"><title>{h(label)} {fmt(e.mean)} [{fmt(e.low, 2)}, {fmt(e.high, 2)}] n={e.n}</title></circle>')  # type: ignore[arg-type]
        ly = top + 4 + i * 16
        dash = ' stroke-dasharray="5 4"' if dashed else ""
        parts.append(f'<line x1="{w - right + 12}" x2="{w - right + 34}" y1="{ly}" y2="{ly}" stroke="{color}" stroke-width="2"{dash}/>'
                     f'<text x="{w - right + 40}" y="{ly + 4}">{h(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _heat_strip(r: Report) -> str:
    primary = r.primary or ""
    qids = [q.query_id for q in r.queries]
    cell_w, cell_h, left, top = max(6, min(28, 900 // max(1, len(qids)))), 18, 110, 4
    w = max(left + cell_w * len(qids) + 10, 520)
    hgt = top + cell_h * len(r.levels) + 30
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{hgt}" role="img" aria-label="verdict per query and tier">',
             "<title>verdict per query (columns) and tier (rows)</title>"]
    row = {lv: i for i, lv in enumerate(r.levels)}
    for i, lv in enumerate(r.levels):
        parts.append(f'<text x="{left - 6}" y="{top + i * cell_h + 13}" text-anchor="end">{h(lv)}</text>')
    for j, q in enumerate(r.queries):
        for v in q.verdicts.get(primary, []):
            x, yy = left + j * cell_w, top + row[v.level] * cell_h
            word = shown_verdict(v)
            parts.append(f'<rect x="{x}" y="{yy}" width="{cell_w - 1}" height="{cell_h - 2}" fill="{COLORS.get(word, "#757575")}">'
                         f"<title>{h(q.query_id)} @ {h(v.level)}: {h(word)} ({v.rule})</title></rect>")
    parts.append(f'<text x="{left}" y="{hgt - 8}">{len(qids)} queries, ladder order top to bottom; hover a cell for the query</text>')
    parts.append("</svg>")
    legend = " ".join(f"{badge(v)}" for v in COLUMNS)
    return "".join(parts) + f"<p>{legend}</p>"


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


def _failing(q: QueryReport, primary: str) -> str:
    v = next((x for x in q.verdicts.get(primary, []) if x.level == q.first_failing.get(primary)), None)
    if v is None:
        return ""
    gold = ", ".join(f"{g} ({h(t)})" for g, t in q.gold.items())
    # collapsed: the page leads with what to do; a query's whole section opens on a click
    out = [f'<details class=q id="q-{h(q.query_id)}"><summary><b>{h(q.query_id)}</b> {badge(v.verdict)} <span class=muted>at {h(v.level)} (tier {h(v.tier)}, rule {v.rule})</span></summary>',
           f"<p>{h(q.query)} — expected <b>{h(q.answer)}</b>; gold {gold}</p>",
           f"<p><b>Because:</b> {h(v.because)}</p>",
           "<p>Over the ladder: " + " · ".join(f"{h(x.level)} {badge(x.verdict)}" + (f" <span class=muted>gold {h(ranks(x))}</span>" if ranks(x) else "")
                                           for x in q.verdicts.get(primary, [])) + "</p>",
           "<table><tr><th class=l>arm</th><th class=l>answer</th><th>decided</th><th>judge</th><th>exact</th><th>contains</th><th>F1</th></tr>",
           answer_row("end-to-end", v.answer), answer_row("oracle", v.oracle)]
    if v.in_context is not None and v.in_context != v.answer:
        out.append(answer_row("QA in context", v.in_context))
    out.append("</table>")
    out.append(distractor_table(q.distractors))
    out.append("</details>")
    return "".join(out)


def distractor_table(found: list[Distractor]) -> str:
    """The near misses ranked above the gold, and the word-level differences of the first one."""
    if not found:
        return ""
    out = ["<table><tr><th>rank</th><th class=l>distractor ranked above the gold</th><th class=l>imitates gold</th><th class=l>distractor has</th><th class=l>gold has</th></tr>"]
    for d in found:
        hn = " <span class=muted>(hard negative)</span>" if d.kind == "hard_negative" else ""
        out.append(f"<tr><td>#{d.rank}</td><td class=l>{d.doc_id} {h(d.title)}{hn}</td><td class=l>{d.imitates} {h(d.imitates_title)}</td>"
                   f"<td class=l><mark>{h(', '.join(d.distractor_has)) or MISSING}</mark></td><td class=l><mark>{h(', '.join(d.gold_has)) or MISSING}</mark></td></tr>")
    out.append("</table>")
    top = found[0]
    out.append(f"<details><summary>word-level differences: distractor {top.doc_id} vs gold {top.imitates}</summary>"
               f'<div class=diff>{spans_html(top.distractor_spans)}</div><div class=diff>{spans_html(top.gold_spans)}</div></details>')
    return "".join(out)


def _lost(x: LostGold, k: int) -> str:
    gold = ", ".join(f"gold {g} " + (f"at #{rank}" if rank is not None else "not retrieved") for g, rank in x.gold_ranks.items())
    out = [f'<details class=q id="lost-{h(x.query_id)}"><summary><b>{h(x.query_id)}</b> ' + (badge(x.verdict) if x.verdict else "")
           + f' <span class=muted>loses gold at {h(x.level)} (tier {h(x.tier)})</span></summary>',
           f"<p>{h(x.query)} — {h(gold)} (top {k}); lost on: {h(', '.join(x.levels_lost))}</p>"]
    if x.verdict == PROVISIONAL_ACCESS and x.command:
        out.append(f"<p class=muted>Confirm: <code>{h(x.command)}</code>" + (f" (inspector key {h(x.key)})" if x.key else "") + "</p>")
    out.append(distractor_table(x.distractors))
    out.append("</details>")
    return "".join(out)


def _access_first(r: Report) -> list[str]:
    af = r.access_first
    if af is None or not af.lost:
        return []
    out = [f"<h2>Where access loses gold ({h(af.system)}, K={af.k}; no model needed)</h2>",
           "<table><tr><th class=l>level</th><th>queries losing gold</th><th>ranked</th></tr>"
           + "".join(f"<tr><td class=l>{h(x.level)}</td><td>{x.lost}</td><td>{x.of}</td></tr>" for x in af.levels) + "</table>"]
    out += [_lost(x, af.k) for x in af.lost[:MAX_FAILING]]
    if len(af.lost) > MAX_FAILING:
        out.append(f"<p class=muted>… and {len(af.lost) - MAX_FAILING} more in the JSON report.</p>")
    return out


def _lead(r: Report) -> str:
    """The one next action (one batch command) and the top stealers: the first screen's."""
    out = []
    if r.next_action is not None:
        out.append(f"<div class=next><b>Next:</b> {h(r.next_action.text)}<code>{h(r.next_action.command)}</code></div>")
    stealers = stealer_lines(lead_stealers(r), h)
    if stealers:
        out.append("<p><b>Top stealers</b> (documents ranked above an outranked gold):</p><ul>" + "".join(f"<li>{x}</li>" for x in stealers) + "</ul>")
    return "".join(out)


def _counts_instead(r: Report) -> str:
    """Use figures from too few answers: listed as counts, never drawn."""
    small = [u for u in r.overview.use if u.accuracy.n < r.min_answers]
    if not small:
        return ""
    items = "".join(f"<li>{h(u.label)} at {h(u.level)}: {use_cell(u.accuracy.n, u.accuracy.mean, r.min_answers) or MISSING}</li>" for u in small)
    return f"<p class=muted>From fewer than {r.min_answers} answers (counts, not drawn):</p><ul>{items}</ul>"


def _reading_table(r: Report) -> list[str]:
    rows, left_out, undecided = shown_readings(r)
    out = ["<h2>Reading per tier</h2>"]
    if rows:
        out.append("<table><tr><th class=l>level</th><th class=l>system</th>"
                   + "".join(f"<th>{h(c)}</th>" for c in COLUMNS) + "<th class=l>reading</th><th class=l>rule</th></tr>")
    for x, c, reading in rows:
        out.append(f"<tr><td class=l>{h(x.level)}</td><td class=l>{h(x.system)}</td>" + "".join(f"<td>{c[w]}</td>" for w in COLUMNS)
                   + f"<td class=l><b>{h(reading)}</b></td><td class='l muted'>{h(x.rule)}</td></tr>")
    if rows:
        out.append("</table>")
    if undecided:
        out.append(f"<p class=muted>{h(undecided)}</p>")
    if left_out:
        out.append(f"<p class=muted>{left_out} level × system row(s) with every verdict NOT-YET left out; a reading needs at least {r.min_decided} decided verdicts.</p>")
    return out


def report_html(r: Report) -> str:
    p = r.provenance
    primary = r.primary or ""
    line, overall = verdict_sentence(r)
    body = [f"<h1>Diagnosis: {h(p.project)}</h1>", f'<p class=muted>queries {h(p.queries_version)} ({len(r.queries)}) · corpus {h(p.corpus_hash[:16])} · K={r.k} · levels {h(", ".join(r.levels))}</p>']
    body.append(f"<p class=headline><b>{h(access_sentence(r))}</b><br>{h(use_sentence(r))}<br>{h(line)}"
                + (f"<br><span class=muted>Rule: {h(overall.rule)}</span>" if overall else "") + "</p>")
    body.append(funnel_html(r, h))
    body.append(_lead(r))
    title, recs = recommended(r, overall)
    recs_html = (f"<p>{h(title)}</p><ol>" + "".join(f"<li>{h(x.text)}" + ("<ul class=muted>" + "".join(f"<li><code>{h(line)}</code></li>" for line in x.lines)
                                                                        + "</ul>" if x.lines else "") + "</li>"
                                                  for x in recs) + "</ol>") if recs else ""
    if overall and recs:
        body.append(recs_html)
    body.append(html_headline(r.insight, h))
    if r.empty_tiers:
        body.append(f"<p class=muted>Nothing stored yet for {len(r.empty_tiers)} tier(s): {h(', '.join(r.empty_tiers))}.</p>")
    body += _access_first(r)
    if recs and not overall:  # no reading yet: where access loses gold leads, the fixes to try follow
        body.append(recs_html)
    body.append(f"<h2>Verdict per query and tier <span class=muted>({h(primary)})</span></h2>" + _heat_strip(r))
    access_series: list[Series] = []  # one colour per system: SR solid, FR dashed
    for hue, system in enumerate(dict.fromkeys(a.system for a in r.overview.access)):
        rows = [a for a in r.overview.access if a.system == system]
        access_series.append((f"{system} SR@{r.k}", [(a.level, a.sr) for a in rows if a.n >= r.min_answers], False, hue))
        if any(a.fr.mean is not None for a in rows):
            access_series.append((f"{system} FR@{r.k}", [(a.level, a.fr) for a in rows if a.n_multi >= r.min_answers], True, hue))
    use_series: list[Series] = [
        (label, [(u.level, u.accuracy) for u in r.overview.use if u.label == label], False, hue)
        for hue, label in enumerate(dict.fromkeys(u.label for u in r.overview.use if u.accuracy.n >= r.min_answers))]
    use_series = [(label, [(lv, e) for lv, e in pts if e.n >= r.min_answers], dashed, hue) for label, pts, dashed, hue in use_series]
    gap_series: list[Series] = [
        (f"{s} SR−FR", [(a.level, a.gap) for a in r.overview.access if a.system == s], False, hue)
        for hue, s in enumerate(dict.fromkeys(a.system for a in r.overview.access if a.gap.mean is not None))]
    body.append("<h2>Access and use over the ladder (95% bootstrap intervals)</h2>")
    body.append(_curve_chart("access", r.levels, access_series, f"access @K={r.k}") if access_series else "<p class=muted>no rankings stored</p>")
    body.append(_curve_chart("use", r.levels, use_series, "share correct") if use_series
                else f"<p class=muted>no use curve yet: {'no model answer stored' if not r.overview.use else f'every level has fewer than {r.min_answers} answers'}</p>")
    body.append(_counts_instead(r))
    if gap_series:
        body.append("<h2>Multi-source gap SR@K − FR@K</h2>" + _curve_chart("gap", r.levels, gap_series, "SR − FR", signed=True))
    body.append(f"<h2>Where the curves turn</h2><p class=muted>first level whose drop exceeds {r.overview.threshold:.2f} and whose interval excludes no drop</p><ul>")
    small = small_curves(r)
    body += [f"<li>{h(t.curve)}: " + (f"<b>{h(t.turn.level)}</b> — {h(t.turn.rule)}" if t.turn else "no turn") + "</li>"
             for t in r.overview.turns if t.curve not in small] or [f"<li class=muted>no curve from at least {r.min_answers} answers (or queries) per level yet</li>"]
    body.append("</ul>")
    body += _reading_table(r)
    body.append(f"<h2>Access (K={r.k})</h2><table><tr><th class=l>level</th><th class=l>system</th><th>n (single/multi)</th><th>R@1</th><th>SR@K</th><th>FR@K</th><th>SR−FR</th></tr>")
    for a in r.overview.access:
        body.append(f"<tr><td class=l>{h(a.level)}</td><td class=l>{h(a.system)}</td><td>{a.n} ({a.n_single}/{a.n_multi})</td><td>{est(a.r_at_1)}</td><td>{est(a.sr)}</td><td>{est(a.fr)}</td><td>{est(a.gap)}</td></tr>")
    body.append("</table><h2>Use</h2><table><tr><th class=l>level</th><th class=l>model · arm</th><th>n</th><th>correct</th><th>judge mean</th><th>exact</th><th>contains</th><th>F1</th><th>from TUI</th></tr>")
    for u in r.overview.use:
        jm = fmt(u.judge_mean, 2) + (judge_mark(u.judge_trusted) if u.judge_mean is not None else "")
        body.append(f"<tr><td class=l>{h(u.level)}</td><td class=l>{h(u.label)}</td><td>{u.accuracy.n}</td><td>{est(u.accuracy, r.min_answers)}</td><td>{jm}</td>"
                    f"<td>{fmt(u.exact, 2)}</td><td>{fmt(u.contains, 2)}</td><td>{fmt(u.f1, 2)}</td><td>{u.from_tui}</td></tr>")
    body.append(f"</table><p class=muted>Correct: {h(r.answer_rule)}. * judge failed calibration (its mean is not evidence); † judge not calibrated. "
                f"Fewer than {r.min_answers} answers: a count, not a rate.</p>")
    if p.capped:
        body.append(f"<p><b>{len(p.capped)} stored completion(s) were cut by the length cap</b> (their answers are the cut text): "
                    + h(", ".join(f"{c.query_id} ({c.system} on {c.tier})" for c in p.capped[:10])) + (" …" if len(p.capped) > 10 else "") + "</p>")
    body.append(html_section(r.insight, h))
    failing = [q for q in r.queries if q.first_failing.get(primary)]
    body.append(f"<h2>Failing queries ({len(failing)} decided, system {h(primary)})</h2>")
    if not failing:
        provisional = any(x.verdict == PROVISIONAL_ACCESS for x in r.access_first.lost) if r.access_first else False
        body.append("<p class=muted>No decided failure" + ("; the ACCESS? queries above are the provisional ones.</p>" if provisional else ".</p>"))
    body += [_failing(q, primary) for q in failing[:MAX_FAILING]]
    if len(failing) > MAX_FAILING:
        body.append(f"<p class=muted>… and {len(failing) - MAX_FAILING} more in the JSON report.</p>")
    if r.sweeps:
        body.append(svg_section(r.sweeps))
    body.append("<h2>Verdict rules (first matching row wins)</h2><table><tr><th class=l>row</th><th class=l>verdict</th><th class=l>when</th></tr>")
    body += [f"<tr><td class=l>{k}</td><td class=l>{badge(v)}</td><td class=l>{h(w)}</td></tr>" for k, (v, w) in r.rules.items()]
    body.append("</table><h2>Reproduce</h2><ul>")
    body.append(f"<li>project {h(p.project)} at <code>{h(p.root)}</code>, corpus sha256 <code>{h(p.corpus_hash)}</code></li>")
    body.append("<li>tiers: " + ", ".join(f"{h(t.name)} ({t.docs} docs, {t.tokens:,} tokens, {t.queries} queries, <code>{h(t.tier_hash)}</code>)" for t in p.tiers) + "</li>")
    body.append(f"<li>index manifests: {len(p.manifests)}; embedder {h(p.embedder)}</li>")
    body.append("<li>models: " + (", ".join(f"{h(n)} ({h(c.model)}, window {c.context_window}, temperature {c.temperature:g})" for n, c in p.models.items()) or MISSING) + "</li>")
    body += [f"<li>{h(j.verdict)}</li>" for j in p.judges]
    body.append(f"<li>seeds: {h(', '.join(f'{k} {v}' for k, v in p.seeds.items()))}</li>")
    body.append(f"<li>model answers behind this report: {p.model_calls}, {p.cache_hits} from the response cache</li></ul>")
    return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>Diagnosis: {h(p.project)}</title><style>{STYLE}{FUNNEL_STYLE}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")
