"""The report's loss funnel: one stacked bar per level of the ladder for the shown system (and each
production system), the stages of workbench/diagnosis/funnel.py. The JSON carries every
(system, tier) funnel; these are what a reader looks at first."""

from __future__ import annotations

from collections.abc import Callable

from workbench.diagnosis.funnel import STAGE_LABELS, STAGES, Funnel, bar, bar_legend, counts_line, level_funnels
from workbench.report.build import Report

# Losses in pipeline order, then the outcomes; one colour each (the HTML bars and their legend).
ORDER = STAGES
COLORS = {"not_retrieved": "#b71c1c", "ranked_out": "#ef6c00", "not_delivered": "#f9a825", "not_used": "#6a1b9a",
          "right": "#2e7d32", "undecided": "#8d6e63", "unknown": "#9e9e9e", "no_answer": "#e0e0e0"}


def shown_systems(r: Report) -> list[str]:
    """The primary system, then every production system (its stages come from its own spans)."""
    out = [r.primary] if r.primary else []
    out += [s.name for s in r.systems if s.reader == "production" and s.name not in out]
    return out


def rows(r: Report) -> list[Funnel]:
    return [f for s in shown_systems(r) for f in level_funnels(r.funnels, s)]


def markdown_section(r: Report, md: Callable[[object], str]) -> list[str]:
    fs = rows(r)
    if not fs:
        return []
    out = ["## Where the gold is lost (the loss funnel)", "",
           f"One bar per level: {bar_legend()}.", "", "```"]
    width = max(len(f"{f.system} @ {f.level}") for f in fs)
    out += [f"{f'{f.system} @ {f.level}':<{width}}  {bar(f.funnel):<40}  n={f.n}: {counts_line(f.funnel)}" for f in fs]
    return out + ["```", ""]


def _bar_html(f: Funnel, h: Callable[[object], str]) -> str:
    counts = f.funnel.as_dict()
    cells = "".join(f'<span title="{h(STAGE_LABELS[s])}: {counts[s]}" style="width:{100 * counts[s] / f.n:.2f}%;background:{COLORS[s]}"></span>'
                    for s in ORDER if counts[s] and f.n)
    return f"<div class=fbar>{cells}</div>"


def html_section(r: Report, h: Callable[[object], str]) -> str:
    fs = rows(r)
    if not fs:
        return ""
    legend = " ".join(f'<span class=fkey style="background:{COLORS[s]}"></span>{h(STAGE_LABELS[s])}' for s in ORDER)
    body = "".join(f"<tr><td class=l>{h(f.system)}</td><td class=l>{h(f.level)}</td><td class=l style='width:55%'>{_bar_html(f, h)}</td>"
                   f"<td class='l muted'>n={f.n}: {h(counts_line(f.funnel))}</td></tr>" for f in fs)
    return (f"<h2>Where the gold is lost</h2><p class=muted>{legend}</p>"
            f"<table class=funnel><tr><th class=l>system</th><th class=l>level</th><th class=l>stages</th><th class=l>counts</th></tr>{body}</table>")


STYLE = (".fbar{display:flex;height:14px;width:100%;background:#eee}.fbar span{display:block;height:100%}"
         ".fkey{display:inline-block;width:10px;height:10px;margin:0 3px 0 10px}")
