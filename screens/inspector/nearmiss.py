"""The Near misses pane: the stepper's head (which document, where it ranks, what it imitates,
the words that tell it apart) and the word diff of distractor against gold."""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text

from screens.render import diff_text
from workbench.safe_text import visible
from workbench.session import Document, QueryInspection, salient_changes, system_label

NO_MISSES = "No near misses on this tier: no non-gold document outranks a gold one in any system's top K."


def miss_head(ins: QueryInspection, index: int, documents: Mapping[int, Document]) -> Text:
    """Near miss ``index`` of the inspection (it has one): the stepper's head."""
    m = ins.near_misses[index]
    gold = documents[m.imitates]
    ranks = "  ".join(f"{system_label(s)} #{r}" for s, r in m.ranks.items())
    kind = Text(" hard negative ", "bold white on red") if m.kind == "hard_negative" else Text(" distractor ", "reverse")
    d = ins.diffs.get(m.doc_id)
    t = Text.assemble(
        (f"Near miss {index + 1}/{len(ins.near_misses)} ", "bold"), kind, " ",
        (visible(f"{m.doc_id} {m.title}", one_line=True), "red"), "  ", (visible(ranks), "yellow"), "\n",
        ("imitates gold ", "dim"), (visible(f"{gold.doc_id} {gold.title}", one_line=True), "green"),
        (f"  word overlap {m.similarity:.2f}", "dim"),
        ("  outranks gold " + ", ".join(str(g) for g in m.above_gold), "dim"),
    )
    if d is not None:
        sl, sr = salient_changes(d)
        t.append("\nonly in distractor: ", "dim")
        t.append(visible(", ".join((sl or d.left_only)[:8]), one_line=True) or "–", "red")
        t.append("   only in gold: ", "dim")
        t.append(visible(", ".join((sr or d.right_only)[:8]), one_line=True) or "–", "green")
    return t


def miss_diff(ins: QueryInspection, index: int, documents: Mapping[int, Document]) -> tuple[Text, Text] | None:
    """The word diff of near miss ``index`` (left: the distractor, right: the gold document it
    imitates); None where the inspection has no diff for it. One Text each, not a Group: Textual
    keeps a Text's wrapped height per width, so a layout pass (the task bar coming or going) does
    not wrap two whole documents again."""
    m = ins.near_misses[index]
    d = ins.diffs.get(m.doc_id)
    if d is None:
        return None
    gold = documents[m.imitates]
    return (Text.assemble((f"DISTRACTOR {m.doc_id}", "bold red"), "\n", diff_text(d.left)),
            Text.assemble((f"GOLD {gold.doc_id}", "bold green"), "\n", diff_text(d.right)))
