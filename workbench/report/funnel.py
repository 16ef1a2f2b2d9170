"""The report's loss funnel: one stacked bar per level of the ladder for the shown system (and each
production system), the stages of workbench/diagnosis/funnel.py. The JSON carries every
(system, tier) funnel; these are what a reader looks at first."""

from __future__ import annotations

from workbench.diagnosis.funnel import STAGES, Funnel, level_funnels
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


STYLE = (".fbar{display:flex;height:14px;width:100%;background:#eee}.fbar span{display:block;height:100%}"
         ".fkey{display:inline-block;width:10px;height:10px;margin:0 3px 0 10px}")
