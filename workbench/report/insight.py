"""The report's sharper-diagnosis section (workbench/insight/): effective corpus size (also in the
headline), the near-miss split of USE-UNDER-DISTRACTORS per level, the most frequent stealers with
their diff, unjudged and answer-bearing documents, and long-context position effects.

Rendered by markdown.py and html_page.py, which pass their own escaping function (`md`, `h`):
this module imports neither, so the report's modules import no cycle."""

from __future__ import annotations

import re
from collections import Counter
from typing import Callable

import msgspec

from workbench.diagnosis.verdicts import VerdictReader, QueryVerdicts
from workbench.display import MISSING, fmt
from workbench.insight.effective_size import EffectiveSize, effective_sizes
from workbench.insight.overview import headline_sizes
from workbench.insight.position import PositionTable, position_tables
from workbench.insight.stealers import Stealer, steals, top_stealers
from workbench.insight.unjudged import UnjudgedDoc, UnjudgedRow, unjudged
from workbench.project.files import Project
from workbench.records import Tier

MAX_ANSWER_BEARING = 30
_BOLD, _CODE = re.compile(r"\*\*(.+?)\*\*"), re.compile(r"`(.+?)`")
Escape = Callable[[object], str]


class DistractorSplit(msgspec.Struct, frozen=True):
    level: str
    system: str
    interference: int  # D2
    volume: int  # D3
    unsplit: int  # D1: no near-miss answer yet


class UnjudgedFigure(msgspec.Struct, frozen=True):
    system: str
    tier: str
    queries: int
    slots: int
    unjudged: int
    share: float | None
    answer_bearing: int


class Insight(msgspec.Struct, frozen=True):
    keep: float
    effective: list[EffectiveSize]
    split: list[DistractorSplit]
    steals: int
    stealers: list[Stealer]
    unjudged: list[UnjudgedFigure]
    answer_bearing: list[UnjudgedDoc]  # the first MAX_ANSWER_BEARING, over every system and tier
    positions: list[PositionTable]


def _split(qv: QueryVerdicts) -> list[DistractorSplit]:
    counts = Counter((v.level, v.system, v.rule) for v in qv.verdicts if v.verdict == "USE-UNDER-DISTRACTORS")
    keys = dict.fromkeys((lv, s) for lv, s, _ in counts)
    return [DistractorSplit(lv, s, counts[(lv, s, "D2")], counts[(lv, s, "D3")], counts[(lv, s, "D1")]) for lv, s in keys]


def _figures(rows: list[UnjudgedRow]) -> list[UnjudgedFigure]:
    return [UnjudgedFigure(r.system, r.tier, r.queries, r.slots, r.unjudged, r.share, r.answer_bearing) for r in rows]


def insight_section(project: Project, tiers: list[Tier], collector: VerdictReader, qv: QueryVerdicts,
                    query_ids: set[str] | None, seed: int) -> Insight:
    rows = unjudged(project, tiers, qv.k, query_ids)
    bearing = list({(d.query_id, d.doc_id): d for r in rows for d in r.docs if d.answer_bearing}.values())
    found = steals(project, tiers, qv.k, query_ids)
    return Insight(
        keep=project.config.insight.keep, effective=effective_sizes(project, tiers, collector, seed=seed, query_ids=query_ids),
        split=_split(qv), steals=len(found), stealers=top_stealers(project, found), unjudged=_figures(rows),
        answer_bearing=bearing[:MAX_ANSWER_BEARING], positions=position_tables(project, tiers, collector, query_ids),
    )


def markdown_headline(ins: Insight | None, md: Escape) -> list[str]:
    sizes = headline_sizes(ins.effective) if ins else []
    return (["Effective corpus size:", ""] + [f"- {md(e.sentence)}" for e in sizes] + [""]) if sizes else []


def markdown_section(ins: Insight | None, md: Escape) -> list[str]:
    if ins is None:
        return []
    out = [f"## Effective corpus size (keeps ≥ {ins.keep:.0%} of the smallest level's figure)", ""]
    if ins.effective:
        out += ["| system | metric | smallest level | keeps it up to | falls below at (ratio [95% interval], n) |", "|---|---|---|---|---|"]
        for e in ins.effective:
            fell = next((x for x in e.levels if x.level == e.falls_at), None)
            out.append(f"| {md(e.system)} | {e.metric} | {fmt(e.base_value)} at {md(e.base_level)} (n={e.base_n}) | "
                       + (f"{md(e.effective_level)} ({e.effective_tokens:,} tokens)" if e.effective_level else MISSING) + " | "
                       + (f"{md(fell.level)}: {fmt(fell.ratio.mean, 2)} [{fmt(fell.ratio.low, 2)}, {fmt(fell.ratio.high, 2)}], n={fell.ratio.n}"
                          if fell else ("never" if e.levels else "one level only")) + " |")
    else:
        out.append("_no stored figures yet_")
    out += ["", "## USE-UNDER-DISTRACTORS: interference or volume (the near-miss arm)", ""]
    if ins.split:
        out += ["| level | system | interference (D2) | volume (D3) | not split yet (D1) |", "|---|---|---:|---:|---:|"]
        out += [f"| {md(s.level)} | {md(s.system)} | {s.interference} | {s.volume} | {s.unsplit} |" for s in ins.split]
        out += ["", "D2: wrong with the gold and its near misses only; D3: right there, wrong on the tier or the retrieved "
                "context; D1: no near-miss answer (`workbench run … --task nearmiss`)."]
    else:
        out.append("_no USE-UNDER-DISTRACTORS verdict_")
    out += ["", f"## Stealers: the documents that take the gold's place most often ({ins.steals} steals)", ""]
    for n, s in enumerate(ins.stealers, 1):
        hn = f"; a hard negative of {md(', '.join(s.hard_negative_for))}" if s.hard_negative_for else ""
        out += [f"{n}. **{s.doc_id} {md(s.title)}** outranks {s.displaced} gold in {len(s.queries)} queries "
                f"({md(', '.join(s.queries[:10]))}{' …' if len(s.queries) > 10 else ''}), by {md(', '.join(s.systems))} on "
                f"{s.tiers} tier(s){hn}; word overlap {fmt(s.mean_overlap, 2)}, embedding similarity {fmt(s.mean_embedding_similarity, 2)}. "
                f"Against gold {s.gold} {md(s.gold_title)}: it has {md(', '.join(s.stealer_has)) or MISSING}; the gold has "
                f"{md(', '.join(s.gold_has)) or MISSING}."]
    out += ["", "## Unjudged documents in the top K (neither gold, hard negative nor otherwise labelled)", "",
            "| tier | system | queries | top-K slots | unjudged | share | answer-bearing |", "|---|---|---:|---:|---:|---:|---:|"]
    out += [f"| {md(u.tier)} | {md(u.system)} | {u.queries} | {u.slots} | {u.unjudged} | {fmt(u.share, 2)} | {u.answer_bearing} |"
            for u in ins.unjudged]
    if ins.answer_bearing:
        out += ["", "Answer-bearing (they contain the reference answer: likely missing gold, label them first):", ""]
        out += [f"- `{md(d.query_id)}`: {d.doc_id} {md(d.title)} (#{d.rank}) contains “{md(d.alias)}”" for d in ins.answer_bearing]
    if ins.positions:
        out += ["", "## Long context: by the gold's depth in the input (deciles; found/golds, right/answers)", "",
                "| model | scope | | " + " | ".join(f"{d * 10}–{d * 10 + 10}%" for d in range(10)) + " |", "|---|---|---|" + "---:|" * 10]
        for t in ins.positions:
            out.append(f"| {md(t.model)} | {md(t.scope)} | recall | " + " | ".join(f"{c.loc_found}/{c.loc_n}" if c.loc_n else MISSING for c in t.cells) + " |")
            out.append("| | | correct | " + " | ".join(f"{c.qa_correct}/{c.qa_n}" if c.qa_n else MISSING for c in t.cells) + " |")
    out.append("")
    return out


def html_headline(ins: Insight | None, h: Escape) -> str:
    sizes = headline_sizes(ins.effective) if ins else []
    return ("<ul class=headline>" + "".join(f"<li>{h(e.sentence)}</li>" for e in sizes) + "</ul>") if sizes else ""


def html_section(ins: Insight | None, h: Escape) -> str:
    """The Markdown section's content as HTML tables (the same figures)."""
    if ins is None:
        return ""
    parts = []
    for line in markdown_section(ins, lambda t: h(t).replace("|", "&#124;")):  # data never splits a row
        line = _CODE.sub(r"<code>\1</code>", _BOLD.sub(r"<b>\1</b>", line))
        if line.startswith("## "):
            parts.append(f"<h2>{line[3:]}</h2>")
        elif line.startswith("|---"):
            continue
        elif line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            parts.append("<tr>" + "".join(f"<td class=l>{c}</td>" for c in cells) + "</tr>")
        elif line:
            parts.append(f"<p>{line}</p>")
    html, table = [], False
    for p in parts:  # consecutive rows into one table
        if p.startswith("<tr>") and not table:
            html.append("<table>")
            table = True
        elif not p.startswith("<tr>") and table:
            html.append("</table>")
            table = False
        html.append(p)
    return "\n".join(html + (["</table>"] if table else []))
