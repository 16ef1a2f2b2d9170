"""The inspector's head: the query, its answer and gold documents, the tier strip, how the
question reaches its evidence on this tier, and the diagnosis' verdict."""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text

from screens.render import VERDICT_STYLE, figure_glyph
from workbench import session as core
from workbench.safe_text import visible
from workbench.session import Session


def tier_strip(segments: list[Text], selected: int, room: int | None) -> Text:
    """The tiers with their figures; where they do not fit ``room`` cells, a window around the
    selected one ("…" on the cut sides): the selected tier is always in view."""
    if room is None or sum(x.cell_len for x in segments) <= room:
        return Text().join(segments)
    lo = hi = selected
    used = segments[selected].cell_len + 2  # the "…" marks
    while True:
        grown = False
        for i in (hi + 1, lo - 1):
            if 0 <= i < len(segments) and not lo <= i <= hi and used + segments[i].cell_len <= room:
                used += segments[i].cell_len
                lo, hi, grown = min(lo, i), max(hi, i), True
        if not grown:
            break
    strip = Text("…" if lo > 0 else "", "dim")
    strip.append_text(Text().join(segments[lo:hi + 1]))
    strip.append("…" if hi < len(segments) - 1 else "", "dim")
    return strip


def query_head(s: Session, query_id: str, tiers: list[str], tier: str, gold_titles: Mapping[int, str],
               width: int | None = None) -> Text:
    """The query (kind, text, answer, gold), the tiers with the best retriever's figure on each
    (``tier`` shown), and the access line of this tier. The gold documents' titles are the ones a
    worker read (the UI thread reads no document): a gold DocID alone until they come."""
    q = s.project.query(query_id)
    gold = ", ".join(f"{g} {gold_titles[g]}" if g in gold_titles else str(g) for g in sorted(q.gold_doc_ids))
    head = Text.assemble(
        (f"{visible(q.query_id)} ", "bold"), ("multi" if q.is_multi_source else "single" if q.is_labelled else "unlabelled", "magenta"), "  ",
        visible(q.query, one_line=True), "\n",
        ("answer ", "dim"), (visible(q.answer, one_line=True), "bold"), ("   gold ", "dim"),
        (visible(gold, one_line=True), "green"), "\n",
    )
    segments = []
    for name in tiers:
        seg = Text(f" {visible(name, one_line=True)} ", "reverse bold" if name == tier else "")
        seg.append_text(figure_glyph(s.figure(core.figures_system(s), name, q) if s.per_query else None))
        segments.append(seg)
    head.append("tier ", "dim")
    head.append_text(tier_strip(segments, tiers.index(tier) if tier in tiers else 0, width - 5 - 16 if width else None))
    head.append("   [ ] to switch", "dim")
    if tier:
        head.append("\n" + visible(core.access_line(s, query_id, tier)), "cyan" if q.is_labelled else "yellow")
    return head


def verdict_line(s: Session, query_id: str, tier: str) -> Text:
    """One line: the diagnosis' verdict for this query on this tier, with the rule and its facts."""
    d = s.diagnosis
    if d is None:
        return Text("verdict: waiting for the diagnosis…", "dim")
    system = core.verdict_system(s)
    v = d.at(query_id, tier, system)
    style = VERDICT_STYLE.get(v.verdict, "") if v else "dim"
    # The command that would fill a NOT-YET is shown as made (absolute, quoted path): pasted, it runs.
    line = d.line(query_id, tier, system)
    return Text.assemble(("verdict ", "dim"), (v.verdict if v else "–", style), "  ",
                         (visible(line, one_line=True), "italic"))


WHOLE_HINT = "  w: whole"  # where a cut line is shown whole (the Why tab)


def one_line(line: Text, room: int, hint: str) -> Text:
    """``line`` on one line of ``room`` cells; where it is cut, ``hint`` (dim) ends it."""
    if line.cell_len <= room:
        line.no_wrap = True
        return line
    cut = line.copy()
    cut.truncate(max(1, room - len(hint)), overflow="ellipsis")
    cut.append(hint, "dim")
    cut.no_wrap = True
    return cut
