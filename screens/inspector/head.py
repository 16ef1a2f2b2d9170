"""The inspector's head: the query, its answer and gold documents, the tier strip, how the
question reaches its evidence on this tier, and the diagnosis' verdict."""

from __future__ import annotations

from rich.text import Text

from screens.render import VERDICT_STYLE, figure_glyph
from workbench import session as core
from workbench.safe_text import visible
from workbench.session import Session


def query_head(s: Session, query_id: str, tiers: list[str], tier: str) -> Text:
    """The query (kind, text, answer, gold), the tiers with the best retriever's figure on each
    (``tier`` shown), and the access line of this tier."""
    q = s.project.query(query_id)
    gold = ", ".join(f"{g} {s.project.documents[g].title}" for g in sorted(q.gold_doc_ids))
    head = Text.assemble(
        (f"{visible(q.query_id)} ", "bold"), ("multi" if q.is_multi_source else "single" if q.is_labelled else "unlabelled", "magenta"), "  ",
        visible(q.query, one_line=True), "\n",
        ("answer ", "dim"), (visible(q.answer, one_line=True), "bold"), ("   gold ", "dim"),
        (visible(gold, one_line=True), "green"), "\n",
    )
    head.append("tier ", "dim")
    for name in tiers:
        style = "reverse bold" if name == tier else ""
        head.append(f" {visible(name)} ", style)
        head.append_text(figure_glyph(s.figure(core.figures_system(s), name, q) if s.per_query else None))
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
