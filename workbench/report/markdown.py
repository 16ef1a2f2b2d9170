"""The report as Markdown for a pull request. Data text is escaped (control characters made
visible; Markdown and HTML specials backslash-escaped or entity-encoded), never interpreted."""

from __future__ import annotations

from workbench.diagnosis.collect import QueryVerdict
from workbench.stats import Estimate
from workbench.display import MISSING, fmt
from workbench.report.build import QueryReport, Report
from workbench.safe_text import visible
from workbench.report.sweeps import markdown_section

MAX_FAILING = 25
_MD_SPECIAL = {c: "\\" + c for c in "\\`*_[]|#"} | {"<": "&lt;", ">": "&gt;", "&": "&amp;"}
VERDICT_COLUMNS = ("PASS", "ACCESS", "USE", "USE-UNDER-DISTRACTORS", "BOTH", "NOT-YET")


def md(text: object) -> str:
    """Data text, safe inside a Markdown paragraph or table cell."""
    return "".join(_MD_SPECIAL.get(c, c) for c in visible(str(text), one_line=True))


def est(e: Estimate, digits: int = 3) -> str:
    if e.mean is None:
        return MISSING
    if e.n < 2:
        return f"{fmt(e.mean, digits)} (n={e.n})"
    return f"{fmt(e.mean, digits)} [{fmt(e.low, 2)}, {fmt(e.high, 2)}]"


def judge_mark(trusted: bool | None) -> str:
    return "" if trusted else ("*" if trusted is False else "†")


def answer_line(name: str, a) -> str:
    if a is None:
        return f"- {name}: _not run_"
    judge = MISSING if a.judge_score is None else f"{a.judge_score:g}/5{judge_mark(a.judge_trusted)}"
    reason = f" — judge: “{md(a.judge_reason)}”" if a.judge_reason else ""
    src = f"; {a.source}, {a.run_queries} quer{'y' if a.run_queries == 1 else 'ies'}" if a.source != "tier run" else ""
    return (f"- {name}: “{md(a.answer)}” → **{'right' if a.correct else 'wrong'}** (judge {judge}; exact "
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
    if q.distractors:
        out += ["", "| rank | distractor | imitates gold | distractor has | gold has |", "|---:|---|---|---|---|"]
        for d in q.distractors:
            hn = " (hard negative)" if d.kind == "hard_negative" else ""
            out.append(f"| #{d.rank} | {d.doc_id} {md(d.title)}{hn} | {d.imitates} {md(d.imitates_title)} | "
                       f"{md(', '.join(d.distractor_has)) or MISSING} | {md(', '.join(d.gold_has)) or MISSING} |")
    out.append("")
    return out


def report_markdown(r: Report) -> str:
    p = r.provenance
    primary = r.primary or ""
    out = [f"# Diagnosis: {md(p.project)}", "", f"Queries: version `{md(p.queries_version)}` ({len(r.queries)} queries).", ""]
    overall = next((x for x in r.overview.readings if x.system == primary and x.level == "overall"), None)
    if overall:
        out += [f"**{md(primary)}** is **{overall.reading}** over {', '.join(md(lv) for lv in r.levels)} "
                f"({overall.decided} decided verdicts of {sum(overall.counts.values())}).", "",
                f"Rule: {md(overall.rule)}", ""]
        if overall.recommendations:
            out += ["Recommendations, in order:", ""] + [f"{i}. {md(x)}" for i, x in enumerate(overall.recommendations, 1)] + [""]
    if r.empty_tiers:
        out += [f"Nothing stored yet for {len(r.empty_tiers)} tier(s): {md(', '.join(r.empty_tiers))} "
                f"(`workbench eval {md(p.root)} --tiers …`, `workbench run …`).", ""]
    out += ["## Verdicts per tier", "", "| level | system | " + " | ".join(VERDICT_COLUMNS) + " | reading |",
            "|---|---|" + "---:|" * len(VERDICT_COLUMNS) + "---|"]
    for x in r.overview.readings:
        out.append(f"| {md(x.level)} | {md(x.system)} | " + " | ".join(str(x.counts.get(c, 0)) for c in VERDICT_COLUMNS)
                   + f" | {x.reading} |")
    out += ["", "Reading rules: " + "; ".join(f"{k} — {md(v)}" for k, v in r.reading_rules.items()), ""]

    out += [f"## Access (K={r.k}): mean [95% bootstrap interval]", "",
            "| level | system | n (single/multi) | R@1 | SR@K | FR@K | SR−FR |", "|---|---|---:|---:|---:|---:|---:|"]
    for a in r.overview.access:
        out.append(f"| {md(a.level)} | {md(a.system)} | {a.n} ({a.n_single}/{a.n_multi}) | {est(a.r_at_1)} | {est(a.sr)} | {est(a.fr)} | {est(a.gap)} |")
    out += ["", "## Use: share of answers correct [95% interval]", "",
            "| level | model · arm | n | correct | judge mean | exact | contains | F1 | from TUI |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for u in r.overview.use:
        out.append(f"| {md(u.level)} | {md(u.label)} | {u.accuracy.n} | {est(u.accuracy)} | "
                   f"{fmt(u.judge_mean, 2)}{judge_mark(u.judge_trusted) if u.judge_mean is not None else ''} | "
                   f"{fmt(u.exact, 2)} | {fmt(u.contains, 2)} | {fmt(u.f1, 2)} | {u.from_tui} |")
    out += ["", f"Correct: {md(r.answer_rule)}. * judge failed calibration (its mean is not evidence); † judge not calibrated.", ""]
    out += (["## Tried fixes", ""] + [f"- {md(f.line)}" for f in r.fixes] + [""]) if r.fixes else []
    out += [f"## Where the curves turn (drop > {r.overview.threshold:.2f}, interval excludes no drop)", ""]
    for t in r.overview.turns:
        out.append(f"- {md(t.curve)}: " + (f"turns at **{md(t.turn.level)}** — {md(t.turn.rule)}" if t.turn else "no turn"))
    out.append("")

    failing = [q for q in r.queries if q.first_failing.get(primary)]
    out += [f"## Failing queries ({len(failing)}, system {md(primary)})", ""]
    for q in failing[:MAX_FAILING]:
        out += failing_query(q, primary)
    if len(failing) > MAX_FAILING:
        out += [f"_… and {len(failing) - MAX_FAILING} more: see the HTML or JSON report._", ""]
    pending = [v for q in r.queries for v in q.verdicts.get(primary, []) if v.verdict == "NOT-YET"]
    if pending:
        out += [f"## Not decided yet ({len(pending)})", ""]
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
