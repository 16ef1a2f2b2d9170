"""The report document (document.py) made ONCE from the Report's figures: which sections, in which
order, under which title, with which words. The renderers (render_markdown.py, html_page.py, the
JSON) only lay it out; a section added here appears in every format."""

from __future__ import annotations

from typing import Literal


from workbench.diagnosis.funnel import STAGE_LABELS, STAGES, bar, bar_legend, counts_line
from workbench.diagnosis.nearmiss import Distractor
from workbench.diagnosis.verdicts import QueryVerdict
from workbench.display import MISSING, fmt
from workbench.insight.overview import headline_sizes
from workbench.report.build import QueryReport, Report
from workbench.report.document import (Block, CurveChart, Details, Document, FunnelChart, FunnelRow, Headline, Inline, Item, ListBlock,
                                       Metadata, NextStep, Paragraph, Point, Section, Series, Span, StripCell, Sweep, Table, VerdictStrip,
                                       WordDiff, cells, para, text)
from workbench.report.funnel import rows as funnel_rows
from workbench.report.headline import (COLUMNS, access_sentence, lead_stealers, recommended, shown_readings, small_curves, use_cell,
                                       use_sentence, verdict_sentence)
from workbench.report.lead import stealer_lines
from workbench.report.partial import PROVISIONAL_ACCESS, LostGold, shown_verdict
from workbench.stats import Estimate

MAX_LISTED = 60  # queries listed one by one per section (the HTML listed 60, the Markdown 25); the JSON has them all
MORE = "see the JSON report"
_RIGHT: list[Literal["l", "r"]] = ["r"]  # right-aligned columns (figures)


def _plain(x: object) -> str:
    return str(x)


def est(e: Estimate, digits: int = 3) -> Inline:
    """A mean and its interval (the interval secondary)."""
    if e.mean is None:
        return [Span(MISSING)]
    if e.n < 2:
        return [Span(fmt(e.mean, digits)), Span(f" (n={e.n})", "muted")]
    return [Span(fmt(e.mean, digits)), Span(f" [{fmt(e.low, 2)}, {fmt(e.high, 2)}]", "muted")]


def judge_mark(trusted: bool | None) -> str:
    return "" if trusted else ("*" if trusted is False else "†")


def decided_word(a) -> str:
    """right / wrong, or undecided where the correctness rule abstains (AnswerCheck.decided, when stored)."""
    return "undecided" if not getattr(a, "decided", True) else ("right" if a.correct else "wrong")


def ranks(v: QueryVerdict) -> str:
    """Gold ranks in the access source's ranking: "#3", "#1, #12", "not retrieved", "" (no ranking)."""
    if v.gold_ranks is None:
        return ""
    return ", ".join(f"#{r}" if r is not None else "not retrieved" for r in v.gold_ranks.values())


def _queries(n: int) -> str:
    return f"quer{'y' if n == 1 else 'ies'}"


# ---------------------------------------------------------------- the lead


def _metadata(r: Report) -> Metadata:
    p = r.provenance
    line = [Span("Queries: version "), Span(p.queries_version, "code"), Span(f" ({len(r.queries)} queries) · corpus "),
            Span(p.corpus_hash[:16], "code"), Span(f" · K={r.k} · levels {', '.join(r.levels)}")]
    return Metadata(title=f"Diagnosis: {p.project}", project=p.project, queries_version=p.queries_version, queries=len(r.queries),
                    corpus_hash=p.corpus_hash, k=r.k, levels=r.levels, line=line)


def _headline(r: Report) -> Section:
    line, overall = verdict_sentence(r)
    lines: list[Inline] = [[Span(access_sentence(r), "strong")], [Span(use_sentence(r))], [Span(line)]]
    if overall:
        lines.append([Span(f"Rule: {overall.rule}", "muted")])
    return Section("headline", "", len(r.queries), [Headline(lines)])


def _funnel(r: Report) -> Section | None:
    fs = funnel_rows(r)
    if not fs:
        return None
    rows = [FunnelRow(f.system, f.level, f.n, f.funnel.as_dict(), counts_line(f.funnel), bar(f.funnel)) for f in fs]
    return Section("funnel", "Where the gold is lost", max(f.n for f in fs),
                   [FunnelChart(legend=f"One bar per level: {bar_legend()}.", stages={s: STAGE_LABELS[s] for s in STAGES}, rows=rows)])


def _recommendations(r: Report) -> tuple[list[Block], bool]:
    """The recommendations' blocks, and whether they lead (an overall reading) or follow the access section."""
    _, overall = verdict_sentence(r)
    title, recs = recommended(r, overall)
    if not recs:
        return [], bool(overall)
    return [para(title), ListBlock([Item([Span(x.text)], [[Span(line)] for line in x.lines], sub_code=True) for x in recs], ordered=True)], bool(overall)


def _next(r: Report, recs: list[Block], lead: bool) -> Section | None:
    out: list[Block] = []
    if r.next_action is not None:
        out.append(NextStep(r.next_action.text, r.next_action.command))
    stealers = stealer_lines(lead_stealers(r), _plain)
    if stealers:
        out += [para(Span("Top stealers", "strong"), " (documents ranked above an outranked gold):"), ListBlock([Item([Span(x)]) for x in stealers])]
    if lead:
        out += recs
    sizes = headline_sizes(r.insight.effective) if r.insight else []
    if sizes:
        out += [para("Effective corpus size:"), ListBlock([Item([Span(e.sentence)]) for e in sizes])]
    if r.empty_tiers:
        out.append(para(f"Nothing stored yet for {len(r.empty_tiers)} tier(s): {', '.join(r.empty_tiers)} (",
                        Span(f"workbench eval {r.provenance.root} --tiers …", "code"), ", ", Span("workbench run …", "code"), ")."))
    return Section("next", "", r.next_action.queries if r.next_action else None, out) if out else None


# ---------------------------------------------------------------- queries


def distractor_blocks(found: list[Distractor]) -> list[Block]:
    """The near misses ranked above the gold, and the word-level differences of the first one."""
    if not found:
        return []
    rows = []
    for d in found:
        name: Inline = [Span(f"{d.doc_id} {d.title}")] + ([Span(" (hard negative)", "muted")] if d.kind == "hard_negative" else [])
        rows.append(cells(f"#{d.rank}", name, f"{d.imitates} {d.imitates_title}", [Span(", ".join(d.distractor_has) or MISSING, "mark")],
                          [Span(", ".join(d.gold_has) or MISSING, "mark")]))
    top = found[0]
    return [Table(["rank", "distractor ranked above the gold", "imitates gold", "distractor has", "gold has"], rows, ["r", "l", "l", "l", "l"]),
            WordDiff(f"word-level differences: distractor {top.doc_id} vs gold {top.imitates}",
                     [Span(t, "mark" if changed else "plain") for t, changed in top.distractor_spans],
                     [Span(t, "mark" if changed else "plain") for t, changed in top.gold_spans])]


def _lost(x: LostGold, k: int) -> Details:
    gold = ", ".join(f"gold {g} " + (f"at #{rank}" if rank is not None else "not retrieved") for g, rank in x.gold_ranks.items())
    summary = [Span(x.query_id, "code"), Span(" — loses gold at "), Span(x.level, "code"), Span(" (tier "), Span(x.tier, "code"), Span(")")]
    if x.verdict:
        summary += [Span(" — "), Span(x.verdict, "verdict_strong")]
    blocks: list[Block] = [para(f"{x.query} — {gold} (top {k}); lost on: {', '.join(x.levels_lost)}")]
    if x.verdict == PROVISIONAL_ACCESS and x.command:
        blocks.append(para("Confirm: ", Span(x.command, "code"), f" (inspector key {x.key})" if x.key else "", tone="muted"))
    return Details(f"lost-{x.query_id}", summary, blocks + distractor_blocks(x.distractors))


def _more(n: int) -> list[Block]:
    return [para(f"… and {n - MAX_LISTED} more: {MORE}.", tone="note")] if n > MAX_LISTED else []


def _access_first(r: Report) -> Section | None:
    af = r.access_first
    if af is None or not af.lost:
        return None
    table = Table(["level", "queries losing gold", "ranked"], [cells(x.level, x.lost, x.of) for x in af.levels], ["l", "r", "r"])
    return Section("access_first", f"Where access loses gold ({af.system}, K={af.k}; no model needed)", af.queries,
                   [table, *(_lost(x, af.k) for x in af.lost[:MAX_LISTED]), *_more(len(af.lost))])


def _answer_row(name: str, a) -> list[Inline]:
    if a is None:
        return cells(name, [Span("not run", "muted")], MISSING, MISSING, MISSING, MISSING, MISSING, "")
    judge = MISSING if a.judge_score is None else f"{a.judge_score:g}/5{judge_mark(a.judge_trusted)}"
    answer: Inline = [Span(a.answer)]
    if a.judge_reason:
        answer.append(Span(f" — judge: “{a.judge_reason}”", "muted"))
    if a.source != "tier run":
        answer.append(Span(f" ({a.source}, {a.run_queries} {_queries(a.run_queries)})" if a.run_queries else f" ({a.source})", "muted"))
    word = decided_word(a)
    return cells(name, answer, Span(word, "strong" if word == "wrong" else "plain"), judge, fmt(a.exact), fmt(a.contains), f"{a.f1:.2f}",
                 [Span(a.basis, "muted")])


def _failing(q: QueryReport, primary: str) -> Details | None:
    v = next((x for x in q.verdicts.get(primary, []) if x.level == q.first_failing.get(primary)), None)
    if v is None:
        return None
    summary = [Span(q.query_id, "code"), Span(" — "), Span(v.verdict, "verdict_strong"), Span(" at "), Span(v.level, "code"),
               Span(" (tier "), Span(v.tier, "code"), Span(f", rule {v.rule})")]
    ladder: Inline = [Span("Over the ladder: ")]
    for i, x in enumerate(q.verdicts.get(primary, [])):
        ladder += ([Span(" · ")] if i else []) + [Span(f"{x.level}: "), Span(x.verdict, "verdict")]
        ladder += [Span(f" (gold {ranks(x)})", "muted")] if ranks(x) else []
    rows = [_answer_row("end-to-end", v.answer), _answer_row("oracle", v.oracle)]
    if v.in_context is not None and v.in_context != v.answer:
        rows.append(_answer_row("QA in context", v.in_context))
    blocks: list[Block] = [
        para(f"{q.query} — expected ", Span(q.answer, "strong"), "; gold " + ", ".join(f"{g} ({t})" for g, t in q.gold.items())),
        para(Span("Because:", "strong"), f" {v.because}"),
        Paragraph(ladder),
        Table(["arm", "answer", "decided", "judge", "exact", "contains", "F1", "basis"], rows, ["l", "l", "r", "r", "r", "r", "r", "l"]),
    ]
    return Details(f"q-{q.query_id}", summary, blocks + distractor_blocks(q.distractors))


def _failing_section(r: Report) -> Section:
    primary = r.primary or ""
    failing = [q for q in r.queries if q.first_failing.get(primary)]
    blocks: list[Block] = []
    if not failing:
        provisional = any(x.verdict == PROVISIONAL_ACCESS for x in r.access_first.lost) if r.access_first else False
        blocks.append(para("No decided failure" + ("; the ACCESS? queries above are the provisional ones." if provisional else "."), tone="muted"))
    blocks += [d for q in failing[:MAX_LISTED] if (d := _failing(q, primary)) is not None]
    return Section("failing", f"Failing queries ({len(failing)} decided, system {primary})", len(failing), blocks + _more(len(failing)))


def _not_yet(r: Report) -> Section | None:
    pending = [v for q in r.queries for v in q.verdicts.get(r.primary or "", []) if v.verdict == "NOT-YET"]
    if not pending:
        return None
    items = []
    for missing in sorted({v.missing for v in pending}):
        some = [v for v in pending if v.missing == missing]
        items.append(Item([Span(f"{len(some)} missing {missing}; e.g. "), Span(some[0].command, "code")]
                          + ([Span(f" (inspector key {some[0].key})")] if some[0].key else [])))
    return Section("not_yet", f"NOT-YET: waiting for what is missing ({len(pending)})", len(pending), [ListBlock(items)])


# ---------------------------------------------------------------- figures


def _strip(r: Report) -> Section:
    primary = r.primary or ""
    strip = [StripCell(q.query_id, v.level, shown_verdict(v), v.rule) for q in r.queries for v in q.verdicts.get(primary, [])]
    return Section("verdict_strip", f"Verdict per query and tier ({primary})", len(r.queries),
                   [VerdictStrip(r.levels, [q.query_id for q in r.queries], strip, list(COLUMNS))])


def _points(pts: list[tuple[str, Estimate]]) -> list[Point]:
    return [Point(lv, e.mean, e.low, e.high, e.n) for lv, e in pts if e.mean is not None]


def _curves(r: Report) -> list[Section]:
    access: list[Series] = []  # one colour per system: SR solid, FR dashed
    for hue, system in enumerate(dict.fromkeys(a.system for a in r.overview.access)):
        rows = [a for a in r.overview.access if a.system == system]
        access.append(Series(f"{system} SR@{r.k}", _points([(a.level, a.sr) for a in rows if a.n >= r.min_answers]), False, hue))
        if any(a.fr.mean is not None for a in rows):
            access.append(Series(f"{system} FR@{r.k}", _points([(a.level, a.fr) for a in rows if a.n_multi >= r.min_answers]), True, hue))
    labels = dict.fromkeys(u.label for u in r.overview.use if u.accuracy.n >= r.min_answers)
    use = [Series(label, _points([(u.level, u.accuracy) for u in r.overview.use if u.label == label and u.accuracy.n >= r.min_answers]), False, hue)
           for hue, label in enumerate(labels)]
    drawn = [x for x in access if x.points]
    if drawn:
        blocks: list[Block] = [CurveChart("access", r.levels, drawn, f"access @K={r.k}")]
    else:
        blocks = [para("no rankings stored" if not access else f"no access curve yet: every level has fewer than {r.min_answers} queries", tone="note")]
    if use:
        blocks.append(CurveChart("use", r.levels, use, "share correct"))
    else:
        why = "no model answer stored" if not r.overview.use else f"every level has fewer than {r.min_answers} answers"
        blocks.append(para(f"no use curve yet: {why}", tone="note"))
    small = [u for u in r.overview.use if u.accuracy.n < r.min_answers]
    if small:
        blocks += [para(f"From fewer than {r.min_answers} answers (counts, not drawn):", tone="muted"),
                   ListBlock([Item([Span(f"{u.label} at {u.level}: {use_cell(u.accuracy.n, u.accuracy.mean, r.min_answers) or MISSING}")]) for u in small])]
    out = [Section("curves", "Access and use over the ladder (95% bootstrap intervals)", r.access_first.queries if r.access_first else None, blocks)]
    gap = [Series(f"{s} SR−FR", _points([(a.level, a.gap) for a in r.overview.access if a.system == s]), False, hue)
           for hue, s in enumerate(dict.fromkeys(a.system for a in r.overview.access if a.gap.mean is not None))]
    if gap:
        out.append(Section("gap", "Multi-source gap SR@K − FR@K", max((a.n_multi for a in r.overview.access), default=0),
                           [CurveChart("gap", r.levels, gap, "SR − FR", signed=True)]))
    return out


def _turns(r: Report) -> Section:
    small = small_curves(r)
    items = [Item([Span(f"{t.curve}: ")] + ([Span("turns at "), Span(t.turn.level, "strong"), Span(f" — {t.turn.rule}")] if t.turn else [Span("no turn")]))
             for t in r.overview.turns if t.curve not in small]
    blocks: list[Block] = [ListBlock(items)] if items else [para(f"No curve from at least {r.min_answers} answers (or queries) per level yet.", tone="note")]
    return Section("turns", f"Where the curves turn (drop > {r.overview.threshold:.2f}, interval excludes no drop)", None, blocks)


def _verdicts(r: Report) -> Section:
    rows, left_out, undecided = shown_readings(r)
    blocks: list[Block] = []
    if rows:
        blocks.append(Table(["level", "system", *COLUMNS, "reading", "rule"],
                            [cells(x.level, x.system, *(c[w] for w in COLUMNS), Span(reading, "strong"), Span(x.rule, "muted")) for x, c, reading in rows],
                            ["l", "l", *(_RIGHT * len(COLUMNS)), "l", "l"]))
    if undecided:
        blocks.append(para(undecided, tone="muted"))
    if left_out:
        blocks.append(para(f"{left_out} level × system row(s) with every verdict NOT-YET left out.", tone="muted"))
    blocks.append(para("Reading rules: " + "; ".join(f"{k} — {v}" for k, v in r.reading_rules.items())
                       + f"; a reading needs at least {r.min_decided} decided verdicts.", tone="muted"))
    return Section("verdicts", "Verdicts per tier", len(r.queries), blocks)


def _access(r: Report) -> Section:
    rows = [cells(a.level, a.system, f"{a.n} ({a.n_single}/{a.n_multi})", est(a.r_at_1), est(a.sr), est(a.fr), est(a.gap)) for a in r.overview.access]
    return Section("access", f"Access (K={r.k}): mean [95% bootstrap interval]", max((a.n for a in r.overview.access), default=0),
                   [Table(["level", "system", "n (single/multi)", "R@1", "SR@K", "FR@K", "SR−FR"], rows, ["l", "l", "r", "r", "r", "r", "r"])])


def _use(r: Report) -> Section:
    blocks: list[Block] = []
    if not r.overview.use:
        blocks.append(para("No model answer stored yet.", tone="note"))
    else:
        rows = []
        for u in r.overview.use:
            small = use_cell(u.accuracy.n, u.accuracy.mean, r.min_answers)
            rows.append(cells(u.level, u.label, u.accuracy.n, [Span(small)] if small else est(u.accuracy),
                              fmt(u.judge_mean, 2) + (judge_mark(u.judge_trusted) if u.judge_mean is not None else ""),
                              fmt(u.exact, 2), fmt(u.contains, 2), fmt(u.f1, 2), u.from_tui))
        blocks.append(Table(["level", "model · arm", "n", "correct", "judge mean", "exact", "contains", "F1", "from TUI"], rows,
                            ["l", "l", "r", "r", "r", "r", "r", "r", "r"]))
    blocks.append(para(f"Correct: {r.answer_rule}. * judge failed calibration (its mean is not evidence); † judge not calibrated. "
                       f"Fewer than {r.min_answers} answers: a count, not a rate.", tone="muted"))
    cut = r.provenance.capped
    if cut:
        some = ", ".join(f"{c.query_id} ({c.system} on {c.tier})" for c in cut[:10])
        blocks.append(para(Span(f"{len(cut)} stored completion(s) were cut by the length cap", "strong"),
                           f" (their answers are the cut text): {some}" + (" …" if len(cut) > 10 else "")))
    return Section("use", "Use: share of answers correct [95% interval]", r.overview.answers, blocks)


def _fixes(r: Report) -> Section | None:
    if not r.fixes:
        return None
    return Section("fixes", "Tried fixes", len(r.fixes), [ListBlock([Item([Span(f.line)]) for f in r.fixes])])


def _insight(r: Report) -> list[Section]:
    ins = r.insight
    if ins is None:
        return []
    out = []
    if ins.effective:
        rows = []
        for e in ins.effective:
            fell = next((x for x in e.levels if x.level == e.falls_at), None)
            rows.append(cells(e.system, e.metric, f"{fmt(e.base_value)} at {e.base_level} (n={e.base_n})",
                              f"{e.effective_level} ({e.effective_tokens:,} tokens)" if e.effective_level else MISSING,
                              f"{fell.level}: {fmt(fell.ratio.mean, 2)} [{fmt(fell.ratio.low, 2)}, {fmt(fell.ratio.high, 2)}], n={fell.ratio.n}"
                              if fell else ("never" if e.levels else "one level only")))
        effective: list[Block] = [Table(["system", "metric", "smallest level", "keeps it up to", "falls below at (ratio [95% interval], n)"], rows,
                                        ["l"] * 5)]
    else:
        effective = [para("no stored figures yet", tone="note")]
    out.append(Section("effective_size", f"Effective corpus size (keeps ≥ {ins.keep:.0%} of the smallest level's figure)",
                       max((e.base_n for e in ins.effective), default=0), effective))
    if ins.split:
        split: list[Block] = [
            Table(["level", "system", "interference (D2)", "volume (D3)", "not split yet (D1)"],
                  [cells(s.level, s.system, s.interference, s.volume, s.unsplit) for s in ins.split], ["l", "l", "r", "r", "r"]),
            para("D2: wrong with the gold and its near misses only; D3: right there, wrong on the tier or the retrieved context; "
                 "D1: no near-miss answer (", Span("workbench run … --task nearmiss", "code"), ").", tone="muted")]
    else:
        split = [para("no USE-UNDER-DISTRACTORS verdict", tone="note")]
    out.append(Section("distractor_split", "USE-UNDER-DISTRACTORS: interference or volume (the near-miss arm)",
                       sum(s.interference + s.volume + s.unsplit for s in ins.split), split))
    stealers = []
    for s in ins.stealers:
        hn = f"; a hard negative of {', '.join(s.hard_negative_for)}" if s.hard_negative_for else ""
        stealers.append(Item([Span(f"{s.doc_id} {s.title}", "strong"), Span(
            f" outranks {s.displaced} gold in {len(s.queries)} queries ({', '.join(s.queries[:10])}{' …' if len(s.queries) > 10 else ''}), "
            f"by {', '.join(s.systems)} on {s.tiers} tier(s){hn}; word overlap {fmt(s.mean_overlap, 2)}, embedding similarity "
            f"{fmt(s.mean_embedding_similarity, 2)}. Against gold {s.gold} {s.gold_title}: it has {', '.join(s.stealer_has) or MISSING}; "
            f"the gold has {', '.join(s.gold_has) or MISSING}.")]))
    out.append(Section("stealers", f"Stealers: the documents that take the gold's place most often ({ins.steals} steals)", ins.steals,
                       [ListBlock(stealers, ordered=True)] if stealers else []))
    unjudged: list[Block] = [Table(["tier", "system", "queries", "top-K slots", "unjudged", "share", "answer-bearing"],
                                   [cells(u.tier, u.system, u.queries, u.slots, u.unjudged, fmt(u.share, 2), u.answer_bearing) for u in ins.unjudged],
                                   ["l", "l", "r", "r", "r", "r", "r"])]
    if ins.answer_bearing:
        unjudged += [para("Answer-bearing (they contain the reference answer: likely missing gold, label them first):"),
                     ListBlock([Item([Span(d.query_id, "code"), Span(f": {d.doc_id} {d.title} (#{d.rank}) contains “{d.alias}”")]) for d in ins.answer_bearing])]
    out.append(Section("unjudged", "Unjudged documents in the top K (neither gold, hard negative nor otherwise labelled)",
                       max((u.queries for u in ins.unjudged), default=0), unjudged))
    if ins.positions:
        rows = []
        for t in ins.positions:
            rows.append(cells(t.model, t.scope, "recall", *(f"{c.loc_found}/{c.loc_n}" if c.loc_n else MISSING for c in t.cells)))
            rows.append(cells("", "", "correct", *(f"{c.qa_correct}/{c.qa_n}" if c.qa_n else MISSING for c in t.cells)))
        out.append(Section("long_context", "Long context: by the gold's depth in the input (deciles; found/golds, right/answers)",
                           sum(c.qa_n for t in ins.positions for c in t.cells),
                           [Table(["model", "scope", "", *(f"{d * 10}–{d * 10 + 10}%" for d in range(10))], rows, ["l", "l", "l", *(_RIGHT * 10)])]))
    return out


def _sweeps(r: Report) -> Section | None:
    if not r.sweeps:
        return None
    return Section("sweeps", "Sweeps", None, [Sweep(kind, summary) for kind, summary in r.sweeps.items()])


def _rules(r: Report) -> Section:
    return Section("rules", "Verdict rules (first matching row wins)", None,
                   [Table(["row", "verdict", "when"], [cells(k, Span(v, "verdict"), w) for k, (v, w) in r.rules.items()], ["l", "l", "l"])])


def _reproduce(r: Report) -> Section:
    p = r.provenance
    kinds = ", ".join(sorted({m.kind + (f" {m.embedder} {m.dims}d" if m.embedder else "") for m in p.manifests}))
    items = [
        Item([Span("project "), Span(p.project, "code"), Span(" at "), Span(p.root, "code"), Span(", corpus sha256 "), Span(p.corpus_hash, "code")]),
        Item([Span("tiers: ")] + [s for i, t in enumerate(p.tiers) for s in ([Span(", ")] if i else []) + [
            Span(f"{t.name} ({t.docs} docs, {t.tokens:,} tokens, {t.queries} queries, "), Span(t.tier_hash, "code"), Span(")")]]),
        Item([Span(f"index manifests: {len(p.manifests)}" + (f" ({kinds})" if kinds else ""))]),
        Item([Span(f"embedder: {p.embedder}")]),
        Item([Span("models: " + (", ".join(f"{n} ({c.model}, window {c.context_window}, temperature {c.temperature:g})" for n, c in p.models.items()) or MISSING))]),
        *(Item([Span(j.verdict)]) for j in p.judges),
        Item([Span("seeds: " + ", ".join(f"{k} {v}" for k, v in p.seeds.items()))]),
        Item([Span(f"model answers behind this report: {p.model_calls}, of which {p.cache_hits} from the response cache")]),
    ]
    return Section("reproduce", "Reproduce", None, [ListBlock(items)])


def build_document(r: Report) -> Document:
    """Every section of the report, in the order a reader needs them: what to do first, then the figures, then the evidence."""
    recs, lead = _recommendations(r)
    sections = [_headline(r), _funnel(r), _next(r, recs, lead), _access_first(r),
                None if lead or not recs else Section("recommendations", "", None, recs),
                _strip(r), *_curves(r), _turns(r), _verdicts(r), _access(r), _use(r), _fixes(r), *_insight(r),
                _failing_section(r), _not_yet(r), _sweeps(r), _rules(r), _reproduce(r)]
    return Document(_metadata(r), [s for s in sections if s is not None])


def text_of(spans: Inline) -> str:
    """The words of a run of spans, without any markup (tests and the JSON readers compare these)."""
    return "".join(s.text for s in spans)


__all__ = ["build_document", "text", "text_of"]
