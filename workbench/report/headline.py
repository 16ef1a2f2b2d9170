"""What both renderers say first, in plain words: access as the rankings show it, the system whose
verdicts follow and how far they are decided, use as far as answers are stored. Also the verdict
tally per level × system with provisional access failures counted apart (partial.py)."""

from __future__ import annotations

from collections import Counter

from workbench.diagnosis.overview import Reading
from workbench.diagnosis.recommend import Recommendation
from workbench.report.build import Report
from workbench.report.partial import PROVISIONAL_ACCESS, count, shown_verdict
from workbench.project.settings import reading_given
from workbench.project.suggest import command

COLUMNS = ("PASS", "ACCESS", PROVISIONAL_ACCESS, "USE", "USE-UNDER-DISTRACTORS", "BOTH", "UNDECIDED", "NOT-YET")
DECIDED = ("PASS", "ACCESS", "USE", "USE-UNDER-DISTRACTORS", "BOTH")


def tally(r: Report) -> dict[tuple[str, str], Counter]:
    """(level or "overall", system) → shown verdict → queries."""
    out: dict[tuple[str, str], Counter] = {}
    for q in r.queries:
        for system, verdicts in q.verdicts.items():
            for v in verdicts:
                word = shown_verdict(v)
                out.setdefault((v.level, system), Counter())[word] += 1
                out.setdefault(("overall", system), Counter())[word] += 1
    return out


def shown_readings(r: Report) -> tuple[list[tuple[Reading, Counter, str]], int, str]:
    """The reading rows a report shows, each with its verdict counts and its reading (or "N decided:
    too few"), how many rows were left out because every verdict there is NOT-YET, and one line for
    the rows with nothing decided yet (provisional or pending only: a row each said the same)."""
    words = tally(r)
    rows, left_out = [], 0
    pending: Counter = Counter()
    where: dict[str, list[str]] = {}
    for x in r.overview.readings:
        c = words.get((x.level, x.system), Counter())
        if not any(c[w] for w in COLUMNS if w != "NOT-YET"):
            left_out += 1
            continue
        if not any(c[w] for w in DECIDED):
            pending.update({w: c[w] for w in COLUMNS if w not in DECIDED and c[w]})
            where.setdefault(x.system, []).append(x.level)
            continue
        rows.append((x, c, f"{x.reading} ({x.certainty}, n={x.n})" if reading_given(x.decided) else f"{x.decided} decided: too few"))
    line = ""
    if where:
        n = sum(len(v) for v in where.values())
        line = (f"Nothing decided yet on {n} level × system row(s) ("
                + ", ".join(f"{w} {pending[w]}" for w in COLUMNS if pending[w]) + "): "
                + "; ".join(f"{', '.join(ss)} at {'every level' if len(lv) == len(r.levels) else ', '.join(lv)}"
                            for lv, ss in _grouped(where).items()) + ".")
    return rows, left_out, line


def _grouped(where: dict[str, list[str]]) -> dict[tuple[str, ...], list[str]]:
    """Systems with the same levels said once: level list → systems."""
    out: dict[tuple[str, ...], list[str]] = {}
    for system, levels in where.items():
        out.setdefault(tuple(levels), []).append(system)
    return out


def overall_reading(r: Report) -> Reading | None:
    return next((x for x in r.overview.readings if x.system == r.primary and x.level == "overall"), None)


def access_sentence(r: Report) -> str:
    """Plain text (the renderers escape it)."""
    af = r.access_first
    if r.focus == "production":
        return production_sentence(r)
    if af is None:
        return f"No ranking stored yet: {command('eval', r.provenance.root)} ranks every query (access needs no model)."
    firsts = Counter(x.level for x in af.lost)
    where = ", ".join(f"{lv} {firsts[lv]}" for lv in r.levels if firsts[lv])
    lost = len(af.lost)
    return (f"Access ({af.system}, K={af.k}): {lost} of {af.queries} quer{'y' if af.queries == 1 else 'ies'} "
            f"lose gold from the top {af.k}" + (f" on at least one level (first lost at: {where})." if lost else " on no level."))


def production_sentence(r: Report) -> str:
    """The lead of a production window's report: how many queries production served, then its own
    ranking's losses (never another system's), or that no ranking of its own is stored."""
    served = len({q.query_id for q in r.queries if r.primary in q.verdicts})
    elsewhere = len(r.queries) - served  # in the window, not served by this name: "not served", never a failure
    head = (f"Production ({r.primary}): {served} quer{'y' if served == 1 else 'ies'} served in this window"
            + (f" ({elsewhere} more of the window not served by it)" if elsewhere else ""))
    af = r.access_first
    if af is None:
        return head + "; no ranking of its own is stored (its traces carry no retriever's list): the funnel reads what it read."
    lost = len(af.lost)
    return head + f"; its ranking ({af.system}, K={af.k}) loses gold from the top {af.k} on {lost} of {af.queries}."


def lead_stealers(r: Report):
    """The stealers the lead names: the shown system's own (a production window's), else the insight section's."""
    if r.lead_stealers is not None:
        return r.lead_stealers
    return r.insight.stealers if r.insight else []


def use_sentence(r: Report) -> str:
    n = r.overview.answers  # one per (model, arm, query): an oracle answer serving three tiers is one answer
    if n == 0:
        return ("Use: no model answer stored yet; verdicts wait for answers (the oracle answer, model handed only the gold, "
                "confirms an access failure).")
    small = sum(u.accuracy.n < r.min_answers for u in r.overview.use)
    per_level = (f" (counted on {r.overview.answer_figures} query × level figures: an answer counts on every level holding its query)"
                 if r.overview.answer_figures != n else "")
    return (f"Use: {n} model answer{'' if n == 1 else 's'} stored{per_level}"
            + (f"; {small} figure{'' if small == 1 else 's'} from fewer than {r.min_answers} answers shown as counts, not rates." if small else "."))


def verdict_sentence(r: Report) -> tuple[str, Reading | None]:
    """The verdict system's line, and its overall reading when enough verdicts are decided for one."""
    if r.primary is None:
        return "No verdict yet: nothing is stored for these tiers.", None
    spec = next(s for s in r.systems if s.name == r.primary)
    words = tally(r).get(("overall", r.primary), Counter())
    decided = sum(words[w] for w in DECIDED)
    total = sum(words.values())
    provisional = words[PROVISIONAL_ACCESS]
    line = f"Verdicts of {spec.label}: {decided} decided of {total} (query × level)"
    if provisional:
        line += f", {provisional} provisional {PROVISIONAL_ACCESS} (gold not reached; the oracle answer confirms)"
    reading = overall_reading(r)
    if reading is None or not reading_given(decided):
        return line + f"; too few decided for a reading (at least {r.min_decided}).", None
    return line + f"; reading: {reading.said}.", reading


def use_cell(n: int, mean: float | None, minimum: int) -> str | None:
    """A use figure from too few answers as a count ("1 of 1 right"), else None (show the rate)."""
    if n >= minimum or mean is None:
        return None
    return count(round(mean * n), n)


def small_curves(r: Report) -> set[str]:
    """Curves (as overview.turns names them) with a point from fewer than min_answers answers or queries."""
    out = {f"{u.label} accuracy" for u in r.overview.use if u.accuracy.n < r.min_answers}
    for a in r.overview.access:
        if a.n < r.min_answers:
            out.add(f"{a.system} SR@{r.k}")
        if a.n_multi < r.min_answers:
            out.add(f"{a.system} FR@{r.k}")
    return out


def recommended(r: Report, overall: Reading | None) -> tuple[str, list[Recommendation]]:
    """The heading and the recommendations, each access fix with its command, judge and effect: the
    overall reading's; with too few decided verdicts for one, the primary's (the access fixes while
    the gold does not reach the reader)."""
    if overall is None:
        return "Recommendations while too few verdicts are decided for a reading:", r.recommended
    head = ("Recommendations, in order:" if overall.certainty != "tentative"
            else f"Recommendations, in order (the reading is tentative: {overall.certainty_line}):")
    if [x.text for x in r.recommended] == overall.recommendations:
        return head, r.recommended
    return head, [Recommendation(x) for x in overall.recommendations]
