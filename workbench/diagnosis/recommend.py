"""A reading's recommendations, each with what tries it on this project: the access fixes carry
their command, the `compare` that judges it and, once tried, its measured effect
(workbench/diagnosis/fix_commands.py); the use fixes are prompt and pipeline changes the
workbench does not run, so they carry nothing."""

from __future__ import annotations

import msgspec

from workbench.diagnosis.verdicts import VerdictReader, QueryVerdicts
from workbench.diagnosis.fix_commands import RunnableFix, fix_lines, runnable_fixes
from workbench.diagnosis.overview import ACCESS_FIXES, Reading, system_readings
from workbench.project.files import Project
from workbench.records import Tier


class Recommendation(msgspec.Struct, frozen=True):
    text: str
    fix: RunnableFix | None = None  # an access fix: its command, judge and effect
    status: str = ""  # an access fix with nothing to run here, and why

    @property
    def lines(self) -> list[str]:
        return fix_lines(self.fix) if self.fix else [self.status] if self.status else []


def recommendations(project: Project, reading: Reading, access: str | None, tiers: list[Tier],
                    collector: VerdictReader | None = None) -> list[Recommendation]:
    """``reading``'s recommendations in order; ``access`` is the ranking system its verdicts read."""
    fixes = {f.fix: f for f in runnable_fixes(project, access, tiers, collector)} if access else {}
    done = {ACCESS_FIXES[0]: f"done: {access} is hybrid already"} if access == "hybrid" else {}
    recs = [Recommendation(x, fixes.get(x), done.get(x, "")) for x in reading.recommendations]
    return [_say_what_runs_next(r, recs[i + 1:], i + 2) for i, r in enumerate(recs)]


def _say_what_runs_next(rec: Recommendation, later: list[Recommendation], number: int) -> Recommendation:
    """A fix the key skips for its cost names the one the key runs instead (the method's order kept)."""
    if rec.fix is None or not rec.fix.skipped:
        return rec
    nxt = next(((number + j, r.fix) for j, r in enumerate(later) if r.fix is not None and r.fix.runnable), None)
    then = f"; the key runs {nxt[0]} ({nxt[1].system}) next" if nxt else ""
    return msgspec.structs.replace(rec, fix=msgspec.structs.replace(rec.fix, skipped=rec.fix.skipped + then))


def primary_recommendations(project: Project, qv: QueryVerdicts, tiers: list[Tier], collector: VerdictReader,
                            system: str | None = None) -> list[Recommendation]:
    """The overall reading's recommendations of ``system`` (default: the diagnosis' primary)."""
    spec = next((s for s in qv.systems if s.name == (system or qv.primary)), None)
    if spec is None:
        return []
    return recommendations(project, system_readings(qv, spec)[-1], spec.access, tiers, collector)


def first_runnable(recs: list[Recommendation]) -> RunnableFix | None:
    """The first fix the key can run here, in the method's order (a rerank, then fine-tuning; one
    skipped for its cost on this machine says so), one not yet measured before one that is."""
    fixes = [r.fix for r in recs if r.fix is not None and r.fix.runnable]
    return next((f for f in fixes if f.effect is None), fixes[0] if fixes else None)
