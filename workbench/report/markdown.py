"""The report as Markdown for a pull request. Data text is escaped (control characters made
visible; Markdown and HTML specials backslash-escaped or entity-encoded), never interpreted."""

from __future__ import annotations

from workbench.diagnosis.verdicts import QueryVerdict
from workbench.stats import Estimate
from workbench.display import MISSING, fmt

from workbench.diagnosis.nearmiss import Distractor
from workbench.report.build import QueryReport, Report
from workbench.report.headline import (COLUMNS, access_sentence, lead_stealers, recommended, shown_readings, small_curves, use_cell, use_sentence,
                                       verdict_sentence)
from workbench.report.partial import PROVISIONAL_ACCESS, LostGold
from workbench.report.text import no_autolinks, shown
from workbench.report.insight import markdown_headline, markdown_section as insight_markdown
from workbench.report.sweeps import markdown_section
from workbench.report.funnel import markdown_section as funnel_markdown
from workbench.report.lead import stealer_lines

MAX_FAILING = 25
_MD_SPECIAL = {c: "\\" + c for c in "\\`*_[]|#"} | {"<": "&lt;", ">": "&gt;", "&": "&amp;"}


def md(text: object) -> str:
    """Data text, safe inside a Markdown paragraph or table cell."""
    return no_autolinks("".join(_MD_SPECIAL.get(c, c) for c in shown(text, one_line=True)))


def est(e: Estimate, digits: int = 3) -> str:
    if e.mean is None:
        return MISSING
    if e.n < 2:
        return f"{fmt(e.mean, digits)} (n={e.n})"
    return f"{fmt(e.mean, digits)} [{fmt(e.low, 2)}, {fmt(e.high, 2)}]"


def judge_mark(trusted: bool | None) -> str:
    return "" if trusted else ("*" if trusted is False else "†")


def decided_word(a) -> str:
    """right / wrong, or undecided where the correctness rule abstains (AnswerCheck.decided, when stored)."""
    return "undecided" if not getattr(a, "decided", True) else ("right" if a.correct else "wrong")


def answer_line(name: str, a) -> str:
    if a is None:
        return f"- {name}: _not run_"
    judge = MISSING if a.judge_score is None else f"{a.judge_score:g}/5{judge_mark(a.judge_trusted)}"
    reason = f" — judge: “{md(a.judge_reason)}”" if a.judge_reason else ""
    if a.source == "tier run":
        src = ""
    elif a.run_queries:
        src = f"; {a.source}, {a.run_queries} quer{'y' if a.run_queries == 1 else 'ies'}"
    else:  # in no stored run (production's answer to a query without a reference answer): why
        src = f"; {a.source}: {md(a.basis)}"
    return (f"- {name}: “{md(a.answer)}” → **{decided_word(a)}** (judge {judge}; exact "
            f"{fmt(a.exact)}, contains {fmt(a.contains)}, F1 {a.f1:.2f}{src}){reason}")


def ranks(v: QueryVerdict) -> str:
    """Gold ranks in the access source's ranking: "#3", "#1, #12", "not retrieved", "" (no ranking)."""
    if v.gold_ranks is None:
        return ""
    return ", ".join(f"#{r}" if r is not None else "not retrieved" for r in v.gold_ranks.values())


def ladder_line(verdicts: list[QueryVerdict]) -> str:
    return " · ".join(f"{v.level}: {v.verdict}" + (f" (gold {ranks(v)})" if ranks(v) else "") for v in verdicts)


def _verdict_head(v: QueryVerdict) -> str:
    return f"**{v.verdict}** at `{md(v.level)}` (tier `{md(v.tier)}`, rule {v.rule})"


def failing_query(q: QueryReport, primary: str) -> list[str]:
    v = next((x for x in q.verdicts.get(primary, []) if x.level == q.first_failing.get(primary)), None)
    if v is None:
        return []
    out = [f"### `{md(q.query_id)}` — {_verdict_head(v)}", "",
           f"{md(q.query)} — expected **{md(q.answer)}**; gold " + ", ".join(f"{g} ({md(t)})" for g, t in q.gold.items()), "",
           f"Because: {md(v.because)}", ""]
    out += [answer_line("end-to-end", v.answer), answer_line("oracle", v.oracle)]
    if v.in_context is not None and v.in_context is not v.answer and v.in_context != v.answer:
        out.append(answer_line("QA in context", v.in_context))
    out += ["", f"Over the ladder: {md(ladder_line(q.verdicts.get(primary, [])))}"]
    out.append("")
    return out + distractor_table(q.distractors)


def lost_gold(x: LostGold, k: int) -> list[str]:
    """One query of the access-first list: where it loses gold, to which near misses, what confirms it."""
    gold = ", ".join(f"gold {g} " + (f"at #{rank}" if rank is not None else "not retrieved") for g, rank in x.gold_ranks.items())
    out = [f"### `{md(x.query_id)}` — loses gold at `{md(x.level)}` (tier `{md(x.tier)}`)" + (f" — **{md(x.verdict)}**" if x.verdict else ""), "",
           f"{md(x.query)} — {gold} (top {k}); lost on: {md(', '.join(x.levels_lost))}", ""]
    if x.verdict == PROVISIONAL_ACCESS and x.command:
        out += [f"Confirm: `{md(x.command)}`" + (f" (inspector key {md(x.key)})" if x.key else ""), ""]
    out += distractor_table(x.distractors)
    return out


def distractor_table(found: list[Distractor]) -> list[str]:
    if not found:
        return []
    out = ["| rank | distractor | imitates gold | distractor has | gold has |", "|---:|---|---|---|---|"]
    for d in found:
        hn = " (hard negative)" if d.kind == "hard_negative" else ""
        out.append(f"| #{d.rank} | {d.doc_id} {md(d.title)}{hn} | {d.imitates} {md(d.imitates_title)} | "
                   f"{md(', '.join(d.distractor_has)) or MISSING} | {md(', '.join(d.gold_has)) or MISSING} |")
    return out + [""]


def access_section(r: Report) -> list[str]:
    af = r.access_first
    if af is None or not af.lost:
        return []
    out = [f"## Where access loses gold ({md(af.system)}, K={af.k}; no model needed)", "",
           "| level | queries losing gold | ranked |", "|---|---:|---:|"]
    out += [f"| {md(x.level)} | {x.lost} | {x.of} |" for x in af.levels] + [""]
    for x in af.lost[:MAX_FAILING]:
        out += lost_gold(x, af.k)
    if len(af.lost) > MAX_FAILING:
        out += [f"_… and {len(af.lost) - MAX_FAILING} more: see the HTML or JSON report._", ""]
    return out


def verdict_table(r: Report) -> list[str]:
    rows, left_out, undecided = shown_readings(r)
    out = ["## Verdicts per tier", ""]
    if rows:
        out += ["| level | system | " + " | ".join(COLUMNS) + " | reading |", "|---|---|" + "---:|" * len(COLUMNS) + "---|"]
    for x, c, reading in rows:
        out.append(f"| {md(x.level)} | {md(x.system)} | " + " | ".join(str(c[w]) for w in COLUMNS) + f" | {reading} |")
    if undecided:
        out += ["", md(undecided)]
    if left_out:
        out += ["", f"{left_out} level × system row(s) with every verdict NOT-YET left out."]
    return out


def capped_lines(r: Report) -> list[str]:
    cut = r.provenance.capped
    if not cut:
        return []
    some = ", ".join(f"{md(c.query_id)} ({md(c.system)} on {md(c.tier)})" for c in cut[:10])
    return [f"**{len(cut)} stored completion(s) were cut by the length cap** (their answers are the cut text): {some}"
            + (" …" if len(cut) > 10 else ""), ""]


def report_markdown(r: Report) -> str:
    p = r.provenance
    primary = r.primary or ""
    out = [f"# Diagnosis: {md(p.project)}", "", f"Queries: version `{md(p.queries_version)}` ({len(r.queries)} queries).", ""]
    out += [f"**{md(access_sentence(r))}**", "", md(use_sentence(r)), ""]
    line, overall = verdict_sentence(r)
    out += [md(line), ""]
    if overall:
        out += [f"Rule: {md(overall.rule)}", ""]
    out += funnel_markdown(r, md)
    if r.next_action is not None:
        out += [f"**Next:** {md(r.next_action.text)}", "", f"    {r.next_action.command}", ""]
    stealers = stealer_lines(lead_stealers(r), md)
    if stealers:
        out += ["Top stealers (documents ranked above an outranked gold):", ""] + [f"- {x}" for x in stealers] + [""]
    title, recs = recommended(r, overall)
    recs_md = [title, ""] + [x for i, rec in enumerate(recs, 1) for x in [f"{i}. {md(rec.text)}"] + [f"   - {md(line)}" for line in rec.lines]] + [""]
    if overall and recs:
        out += recs_md
    out += markdown_headline(r.insight, md)
    if r.empty_tiers:
        out += [f"Nothing stored yet for {len(r.empty_tiers)} tier(s): {md(', '.join(r.empty_tiers))} "
                f"(`workbench eval {md(p.root)} --tiers …`, `workbench run …`).", ""]
    out += access_section(r)
    if recs and not overall:  # no reading yet: where access loses gold leads, the fixes to try follow
        out += recs_md
    out += verdict_table(r)
    out += ["", "Reading rules: " + "; ".join(f"{k} — {md(v)}" for k, v in r.reading_rules.items())
            + f"; a reading needs at least {r.min_decided} decided verdicts.", ""]

    out += [f"## Access (K={r.k}): mean [95% bootstrap interval]", "",
            "| level | system | n (single/multi) | R@1 | SR@K | FR@K | SR−FR |", "|---|---|---:|---:|---:|---:|---:|"]
    for a in r.overview.access:
        out.append(f"| {md(a.level)} | {md(a.system)} | {a.n} ({a.n_single}/{a.n_multi}) | {est(a.r_at_1)} | {est(a.sr)} | {est(a.fr)} | {est(a.gap)} |")
    out += ["", "## Use: share of answers correct [95% interval]", ""]
    if not r.overview.use:
        out += ["_No model answer stored yet._"]
    else:
        out += ["| level | model · arm | n | correct | judge mean | exact | contains | F1 | from TUI |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
        for u in r.overview.use:
            out.append(f"| {md(u.level)} | {md(u.label)} | {u.accuracy.n} | {use_cell(u.accuracy.n, u.accuracy.mean, r.min_answers) or est(u.accuracy)} | "
                       f"{fmt(u.judge_mean, 2)}{judge_mark(u.judge_trusted) if u.judge_mean is not None else ''} | "
                       f"{fmt(u.exact, 2)} | {fmt(u.contains, 2)} | {fmt(u.f1, 2)} | {u.from_tui} |")
    out += ["", f"Correct: {md(r.answer_rule)}. * judge failed calibration (its mean is not evidence); † judge not calibrated. "
            f"Fewer than {r.min_answers} answers: a count, not a rate.", ""]
    out += capped_lines(r)
    out += (["## Tried fixes", ""] + [f"- {md(f.line)}" for f in r.fixes] + [""]) if r.fixes else []
    out += [f"## Where the curves turn (drop > {r.overview.threshold:.2f}, interval excludes no drop)", ""]
    small = small_curves(r)
    if all(t.curve in small for t in r.overview.turns):
        out.append(f"_No curve from at least {r.min_answers} answers (or queries) per level yet._")
    for t in r.overview.turns:
        if t.curve in small:
            continue
        out.append(f"- {md(t.curve)}: " + (f"turns at **{md(t.turn.level)}** — {md(t.turn.rule)}" if t.turn else "no turn"))
    out.append("")

    out += insight_markdown(r.insight, md)
    failing = [q for q in r.queries if q.first_failing.get(primary)]
    out += [f"## Failing queries ({len(failing)} decided, system {md(primary)})", ""]
    if not failing:
        provisional = any(x.verdict == PROVISIONAL_ACCESS for x in r.access_first.lost) if r.access_first else False
        out += ["No decided failure" + ("; the ACCESS? queries above are the provisional ones." if provisional else "."), ""]
    for q in failing[:MAX_FAILING]:
        out += failing_query(q, primary)
    if len(failing) > MAX_FAILING:
        out += [f"_… and {len(failing) - MAX_FAILING} more: see the HTML or JSON report._", ""]
    pending = [v for q in r.queries for v in q.verdicts.get(primary, []) if v.verdict == "NOT-YET"]
    if pending:
        out += [f"## NOT-YET: waiting for what is missing ({len(pending)})", ""]
        for missing in sorted({v.missing for v in pending}):
            some = [v for v in pending if v.missing == missing]
            out.append(f"- {len(some)} missing {md(missing)}; e.g. `{md(some[0].command)}`" + (f" (inspector key {some[0].key})" if some[0].key else ""))
        out.append("")

    if r.sweeps:
        out += [markdown_section(r.sweeps), ""]
    out += ["## Verdict rules (first matching row wins)", "", "| row | verdict | when |", "|---|---|---|"]
    out += [f"| {k} | {v} | {md(w)} |" for k, (v, w) in r.rules.items()]
    out += ["", "## Reproduce", "",
            f"- project `{md(p.project)}` at `{md(p.root)}`, corpus sha256 `{p.corpus_hash[:16]}`",
            "- tiers: " + ", ".join(f"{md(t.name)} ({t.docs} docs, {t.tokens:,} tokens, {t.queries} queries, {t.tier_hash})" for t in p.tiers),
            f"- index manifests: {len(p.manifests)} (" + ", ".join(sorted({f'{m.kind}' + (f' {m.embedder} {m.dims}d' if m.embedder else '') for m in p.manifests})) + ")",
            f"- embedder: {md(p.embedder)}",
            "- models: " + (", ".join(f"{md(n)} ({md(c.model)}, window {c.context_window}, temperature {c.temperature:g})" for n, c in p.models.items()) or MISSING)]
    for j in p.judges:
        out.append(f"- {md(j.verdict)}")
    out += ["- seeds: " + ", ".join(f"{k} {v}" for k, v in p.seeds.items()),
            f"- model answers behind this report: {p.model_calls}, of which {p.cache_hits} from the response cache", ""]
    return "\n".join(out)
