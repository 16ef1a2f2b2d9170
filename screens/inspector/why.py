"""The Why pane: the verdict's facts whole (wrapped, never cut), the funnel stage where the gold was
lost, the near misses of the LOST gold first, and the explain of the selected one (BM25 terms, the
dense chunk, the fusion's parts and what separates it from the gold it imitates)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.reactive import var
from textual.widgets import Static

from workbench import session as core
from workbench.safe_text import visible
from workbench.session import Explanation, QueryInspection, system_label

MAX_LISTED = 12  # near misses listed; the stepper (n/p) reaches every one


@dataclass(frozen=True)
class WhyFacts:
    """What the pane shows of the verdict (None fields: not known yet)."""

    verdict: str
    line: str  # the verdict's whole line: head, rule's facts, what is missing
    stage: str  # the loss funnel's stage (workbench/diagnosis/funnel.py)


class ExplanationReady(Message):
    """The explain worker's result for (query, tier, near miss)."""

    def __init__(self, query_id: str, tier: str, doc_id: int, explanation: Explanation | None, error: str = "") -> None:
        super().__init__()
        self.query_id, self.tier, self.doc_id, self.explanation, self.error = query_id, tier, doc_id, explanation, error


class WhyPane(VerticalScroll):
    DEFAULT_CSS = """
    WhyPane { height: 1fr; padding: 0 1; }
    WhyPane > Static { height: auto; width: 1fr; }
    """

    facts: var[WhyFacts | None] = var(None)
    inspection: var[QueryInspection | None] = var(None)
    selected: var[int] = var(0)
    explanation: var[Explanation | None] = var(None)
    note: var[str] = var("")  # why no explanation shows (computing, failed)

    def compose(self) -> ComposeResult:
        yield Static(id="why-body")

    def _redraw(self) -> None:
        if self.is_mounted:
            self.query_one("#why-body", Static).update(Group(*why_parts(self.facts, self.inspection, self.selected,
                                                                        self.explanation, self.note)))

    watch_facts = watch_inspection = watch_selected = watch_explanation = watch_note = _redraw

    def on_mount(self) -> None:
        self._redraw()


def facts_text(f: WhyFacts | None) -> Text:
    if f is None:
        return Text("verdict: waiting for the diagnosis…", "dim")
    stage = core.STAGE_LABELS.get(f.stage, f.stage)
    lost = f.stage in ("not_retrieved", "ranked_out", "not_delivered", "not_used")  # else right, or it waits: nothing lost yet
    return Text.assemble(("Verdict ", "bold"), (f.verdict, "bold yellow"), ("   lost at: " if lost else "   funnel: ", "dim"),
                         (stage, "bold"), "\n",
                         visible(f.line))  # whole: a Static wraps it to the pane's width


def misses_text(ins: QueryInspection | None, selected: int) -> Text:
    if ins is None:
        return Text("Near misses: inspecting…", "dim")
    if not ins.near_misses:
        return Text("No near misses on this tier.", "dim")
    lost = core.lost_gold(ins.systems, ins.k)
    out = Text.assemble(("Near misses", "bold"), f" ({len(ins.near_misses)}; those imitating a lost gold first; n/p step)\n")
    for i, m in enumerate(ins.near_misses[:MAX_LISTED]):
        mark = "▶ " if i == selected else "  "
        ranks = " ".join(f"{system_label(s)} #{r}" for s, r in m.ranks.items())
        out.append(f"{mark}{i + 1}. ", "bold" if i == selected else "")
        out.append(visible(f"{m.doc_id} {m.title}", one_line=True), "red" if m.kind == "hard_negative" else "")
        out.append(f"  {ranks}  imitates ", "dim")
        out.append(f"{m.imitates}{' (lost)' if m.imitates in lost else ''}", "green" if m.imitates in lost else "dim")
        out.append("\n")
    if len(ins.near_misses) > MAX_LISTED:
        out.append(f"  … {len(ins.near_misses) - MAX_LISTED} more (n/p)\n", "dim")
    return out


def explanation_text(e: Explanation | None, note: str) -> Text:
    if e is None:
        return Text(note or "Explain: select a near miss (n/p).", "dim")
    heading = e.contrasts[-1].heading if e.contrasts else "Why it ranks where it does"  # the core words it from the ranks
    out = Text.assemble((heading, "bold"),
                        f" (near miss {e.docs[-1].doc_id} vs gold {e.docs[0].doc_id} on {e.tier}; query terms {', '.join(e.terms)})\n")
    for d in e.docs:
        who = {"gold": "gold", "hard_negative": "near miss (hard negative)"}.get(d.role, "near miss")
        out.append(f"{who} {d.doc_id}: ", "green" if d.role == "gold" else "red")
        if d.bm25 is not None:
            terms = ", ".join(f"{t.term} {t.score:.2f}" for t in d.bm25.terms) or "no query term"
            out.append(f"BM25 {d.bm25.score:.2f} = {terms}; ")
        if d.dense is not None:
            out.append(f"dense chunk {d.dense.best_chunk + 1}/{d.dense.chunks} cosine {d.dense.score:.3f}; ")
        if d.fusion is not None:
            parts = " + ".join(f"{p.retriever} #{p.rank} {p.share:.4f}" if p.rank else f"{p.retriever} – 0" for p in d.fusion.parts)
            out.append(f"{d.fusion.system} {parts} = {d.fusion.score:.4f}")
        out.append("\n")
    for c in e.contrasts:
        out.append(visible(c.line) + "\n", "italic")
    return out


def why_parts(facts: WhyFacts | None, ins: QueryInspection | None, selected: int, e: Explanation | None, note: str) -> list[Text]:
    # the selected near miss's explain before the list: at 80×24 it is in view without scrolling
    return [facts_text(facts), Text(""), explanation_text(e, note), Text(""), misses_text(ins, selected)]
