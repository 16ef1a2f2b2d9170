"""One query's report (query.py) as Markdown and as one self-contained HTML page: per tier its
verdict, every system's top K with the gold ranks, the near misses with their word diffs, the
answers. Data text goes through md / h as in the project report."""

from __future__ import annotations

from workbench.display import MISSING
from workbench.inspection.rankings import SystemRanking
from workbench.report.html_page import CSP, STYLE, answer_row, spans_html, badge, h
from workbench.report.markdown import answer_line, md
from workbench.report.query import NearMissView, QueryPage, TierView

KIND_MARK = {"gold": "gold", "hard_negative": "hard negative"}
PROVISIONAL_NOTE = " (shown as ACCESS?: the gold is not reached, so access fails unless the oracle answer says BOTH)"
ARM_NAMES = {"qa": "QA in context", "oracle": "oracle (gold only)", "rag": "retrieve-then-read"}


def _rank(r: int | None, depth: int) -> str:
    return f"#{r}" if r is not None else f"not retrieved (of {depth})"


def _md_spans(spans: list[tuple[str, bool]]) -> str:
    return "".join(f"**{md(t.strip())}**" + (" " if t.endswith(" ") else "") if changed and t.strip() else md(t) for t, changed in spans)


def _md_rankings(t: TierView, gold: dict[int, str]) -> list[str]:
    if not t.systems:
        return ["_No stored ranking of this query on this tier._", ""]
    out = ["| system | " + " | ".join(f"gold {g}" for g in gold) + " |", "|---|" + "---|" * len(gold)]
    out += [f"| {md(s.system)} | " + " | ".join(_rank(s.gold_ranks.get(g), s.depth) for g in gold) + " |" for s in t.systems]
    out.append("")
    for s in t.systems:
        out += [f"<details><summary>top {t.k} of {md(s.system)}</summary>", "", "| rank | DocID | kind | title | score |", "|---:|---:|---|---|---:|"]
        out += [f"| {r.rank} | {r.doc_id} | {KIND_MARK.get(r.kind, '')} | {md(r.title)} | {r.score:.4f} |" for r in s.rows]
        out += ["", "</details>", ""]
    return out


def _md_near_miss(m: NearMissView, diff_shown_at: str | None) -> list[str]:
    hn = " (hard negative)" if m.kind == "hard_negative" else ""
    ranks = ", ".join(f"{md(s)} #{r}" for s, r in m.ranks.items())
    out = [f"- **{m.doc_id}** {md(m.title)}{hn}: {ranks}; imitates gold {m.imitates} ({md(m.imitates_title)}), word overlap {m.similarity:.2f}",
           f"  - near miss has: {md(', '.join(m.distractor_has)) or MISSING}; gold has: {md(', '.join(m.gold_has)) or MISSING}"]
    if diff_shown_at is not None:
        return out + [f"  - word diff: as at `{md(diff_shown_at)}` above"]
    return out + [f"  - near miss: {_md_spans(m.distractor_spans) or MISSING}", f"  - gold: {_md_spans(m.gold_spans) or MISSING}"]


def _answer_name(a) -> str:
    return f"{ARM_NAMES.get(a.arm, a.arm)} ({a.system})"


def query_markdown(page: QueryPage) -> str:
    r, p = page.report, page.report.provenance
    out = [f"# Query `{md(page.query_id)}`: {md(page.query)}", "",
           f"Project {md(p.project)}, queries version `{md(p.queries_version)}`; verdicts of **{md(r.primary or MISSING)}**.", "",
           f"- expected answer: **{md(page.answer)}**",
           f"- {'multi' if page.multi_source else 'single'}-source; domain `{md(page.domain or MISSING)}`; kind `{md(page.kind or MISSING)}`",
           "- gold: " + ", ".join(f"{g} ({md(t)})" for g, t in page.gold.items())]
    if page.hard_negatives:
        out.append("- hard negatives: " + ", ".join(f"{d} ({md(t)})" for d, t in page.hard_negatives.items()))
    out += ["- over the ladder: " + (" · ".join(f"{md(t.tier)} **{t.shown or MISSING}**" for t in page.tiers) or MISSING), ""]
    diffs: dict[tuple[int, int], str] = {}  # (near miss, gold) → the tier where its word diff is written out
    for t in page.tiers:
        out += [f"## Tier `{md(t.tier)}` (level {md(t.level)}, K={t.k})" + (f" — **{t.shown}**" if t.shown else ""), ""]
        if t.verdict is not None:
            out += [f"Because ({md(t.verdict.rule)}): {md(t.verdict.because)}" + (PROVISIONAL_NOTE if t.shown != t.verdict.verdict else ""), ""]
            if t.verdict.command:
                out += [f"Next: `{md(t.verdict.command)}`" + (f" (inspector key {md(t.verdict.key)})" if t.verdict.key else ""), ""]
        if t.others:
            out += ["Other systems: " + ", ".join(f"{md(s)} {v}" for s, v in t.others.items()), ""]
        out += _md_rankings(t, page.gold)
        if t.near_misses:
            out += ["Near misses (ranked above a gold document; **changed words** against the gold they imitate):", ""]
            for m in t.near_misses:
                out += _md_near_miss(m, diffs.get((m.doc_id, m.imitates)))
                diffs.setdefault((m.doc_id, m.imitates), t.tier)
            out.append("")
        out += ["Answers:", ""] + ([answer_line(_answer_name(a), a) + (" — **cut by the length cap**" if a.system in t.capped else "")
                                     for a in t.answers] or ["- _no model answer stored for this tier_"]) + [""]
    out += [f"Correct: {md(r.answer_rule)}.", "",
            f"Reproduce: corpus sha256 `{p.corpus_hash[:16]}`, seeds " + ", ".join(f"{k} {v}" for k, v in p.seeds.items()) + ".", ""]
    return "\n".join(out)


def _html_rankings(t: TierView, gold: dict[int, str], access: str) -> str:
    if not t.systems:
        return "<p class=muted>No stored ranking of this query on this tier.</p>"
    out = ["<table><tr><th class=l>system</th>" + "".join(f"<th>gold {g}</th>" for g in gold) + "</tr>"]
    out += [f"<tr><td class=l>{h(s.system)}</td>" + "".join(f"<td>{h(_rank(s.gold_ranks.get(g), s.depth))}</td>" for g in gold) + "</tr>"
            for s in t.systems]
    out.append("</table>")
    out += [f"<details{' open' if s.system == access else ''}><summary>top {t.k} of {h(s.system)}</summary>{_html_top(s)}</details>" for s in t.systems]
    return "".join(out)


def _html_top(s: SystemRanking) -> str:
    rows = "".join(f"<tr class={r.kind}><td>{r.rank}</td><td>{r.doc_id}</td><td class=l>{h(r.title)}"
                   + (f" <span class=muted>({KIND_MARK[r.kind]})</span>" if r.kind in KIND_MARK else "") + f"</td><td>{r.score:.4f}</td></tr>"
                   for r in s.rows)
    return f"<table><tr><th colspan=4 class=l>{h(s.system)}</th></tr>{rows}</table>"


def _html_near_miss(m: NearMissView) -> str:
    hn = " <span class=muted>(hard negative)</span>" if m.kind == "hard_negative" else ""
    ranks = ", ".join(f"{h(s)} #{r}" for s, r in m.ranks.items())
    return (f"<li><b>{m.doc_id}</b> {h(m.title)}{hn}: {ranks}; imitates gold {m.imitates} ({h(m.imitates_title)}), word overlap {m.similarity:.2f}"
            f"<br>near miss has <mark>{h(', '.join(m.distractor_has)) or MISSING}</mark>; gold has <mark>{h(', '.join(m.gold_has)) or MISSING}</mark>"
            f"<div class=diff>{spans_html(m.distractor_spans)}</div><div class=diff>{spans_html(m.gold_spans)}</div></li>")


def query_html(page: QueryPage) -> str:
    r, p = page.report, page.report.provenance
    body = [f"<h1>Query {h(page.query_id)}: {h(page.query)}</h1>",
            f"<p class=muted>project {h(p.project)} · queries {h(p.queries_version)} · verdicts of {h(r.primary or MISSING)} · corpus {h(p.corpus_hash[:16])}</p>",
            f"<p class=headline>expected <b>{h(page.answer)}</b> · {'multi' if page.multi_source else 'single'}-source · domain {h(page.domain or MISSING)}"
            f"<br>gold: {h(', '.join(f'{g} ({t})' for g, t in page.gold.items()))}"
            + (f"<br>hard negatives: {h(', '.join(f'{d} ({t})' for d, t in page.hard_negatives.items()))}" if page.hard_negatives else "")
            + "<br>over the ladder: " + " · ".join(f"{h(t.tier)} {badge(t.shown) if t.shown else MISSING}" for t in page.tiers) + "</p>"]
    for t in page.tiers:
        body.append(f'<h2 id="tier-{h(t.tier)}">{h(t.tier)} {badge(t.shown) if t.shown else ""} <span class=muted>level {h(t.level)}, K={t.k}</span></h2>')
        if t.verdict is not None:
            body.append(f"<p><b>Because</b> ({h(t.verdict.rule)}): {h(t.verdict.because)}{h(PROVISIONAL_NOTE) if t.shown != t.verdict.verdict else ''}</p>")
            if t.verdict.command:
                body.append(f"<p class=muted>Next: <code>{h(t.verdict.command)}</code>" + (f" (inspector key {h(t.verdict.key)})" if t.verdict.key else "") + "</p>")
        if t.others:
            body.append("<p class=muted>Other systems: " + ", ".join(f"{h(s)} {badge(v)}" for s, v in t.others.items()) + "</p>")
        body.append(_html_rankings(t, page.gold, t.verdict_access))
        if t.near_misses:
            body.append("<h3>Near misses ranked above a gold document</h3><ul>" + "".join(_html_near_miss(m) for m in t.near_misses) + "</ul>")
        body.append("<h3>Answers</h3>")
        if t.answers:
            body.append("<table><tr><th class=l>arm</th><th class=l>answer</th><th>decided</th><th>judge</th><th>exact</th><th>contains</th><th>F1</th></tr>"
                        + "".join(answer_row(_answer_name(a), a) + ("<tr><td></td><td class=l colspan=6><b>cut by the length cap</b></td></tr>" if a.system in t.capped else "")
                                  for a in t.answers) + "</table>")
        else:
            body.append("<p class=muted>no model answer stored for this tier</p>")
    body.append(f"<p class=muted>Correct: {h(r.answer_rule)}. Seeds: {h(', '.join(f'{k} {v}' for k, v in p.seeds.items()))}.</p>")
    style = STYLE + "tr.gold td{background:#e8f5e9}tr.hard_negative td{background:#fff3e0}summary{cursor:pointer;margin:4px 0}"
    return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>Query {h(page.query_id)}: {h(p.project)}</title><style>{style}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")
