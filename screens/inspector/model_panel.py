"""The Model pane: each task's key and prompt size for the chosen model, the task in flight with
its elapsed time, and the model results for this query on this tier."""

from __future__ import annotations

import time
from collections.abc import Mapping

from rich.console import Group
from rich.text import Text

from workbench.safe_text import visible
from workbench.session import TASKS, ModelEvidence, PromptEstimate, system_label

NO_RESULTS = "No model results for this query on this tier yet."


def model_head(model: str, tier: str, estimates: Mapping[str, PromptEstimate], keymap: Mapping[str, str],
               running: str | None, run_started: float) -> Text:
    """The model and tier, one line per task (its key as the user's keymap has it, whether its
    prompt fits), and the running task with its elapsed time."""
    head = Text.assemble(("model ", "dim"), (visible(model), "bold"), (" (m: next)", "dim"), ("  tier ", "dim"),
                         (visible(tier), "bold"), "\n")
    for spec in TASKS.values():
        est = estimates.get(spec.name)
        head.append(f" {keymap.get(f'inspector.{spec.name}', spec.key)} ", "reverse")
        head.append(f" {spec.label:<28}")
        if est is None:
            head.append("counting tokens…", "dim")
        elif est.tokens is None:
            head.append(f"unavailable: {visible(est.reason[:60], one_line=True)}", "yellow")
        else:
            head.append(f"{est.tokens:>7,} / {est.budget:,} tokens ", "")
            head.append("fits" if est.fits else "does not fit", "green" if est.fits else "red")
        head.append("\n")
    if running:
        head.append(f"running {running}… {time.monotonic() - run_started:.0f} s (x to cancel)\n", "yellow")
    return head


def model_results(results: Mapping[str, ModelEvidence], gold: set[int]) -> Group:
    """One block per system that answered (``results`` is not empty): the DocIDs it named against
    the gold ones, or its answer with the judge's score and the string checks."""
    parts = []
    for system, ev in sorted(results.items()):
        t = Text()
        t.append(visible(system_label(system)), "bold")
        t.append(f"  ({ev.task}{', cached' if ev.cached else ''})\n", "dim")
        if not ev.fits:
            t.append(f"does not fit: {visible(ev.note)}\n", "red")
            parts.append(t)
            continue
        if TASKS[ev.task].localizes:
            t.append("DocIDs: ")
            for i in ev.doc_ids:
                t.append(f"{i} ", "bold green" if i in gold else "")
            if not ev.doc_ids:
                t.append("none extracted (recall 0)", "red")
            found = len(gold & set(ev.doc_ids))
            t.append(f"  → {found}/{len(gold)} gold\n", "green" if found == len(gold) else "yellow")
            t.append(f"raw: {visible(ev.answer.strip()[:200])}\n", "dim")
        else:
            t.append("answer: ")
            t.append(f"{visible(ev.answer.strip()[:400])}\n", "bold")
            if ev.judge_score is not None:
                score_style = "green" if ev.judge_score >= 4 else "yellow" if ev.judge_score >= 2 else "red"
                t.append("judge: ")
                t.append(f"{ev.judge_score:g}/5", f"bold {score_style}")
                if ev.judge_trusted is False:
                    t.append("*  (this judge failed its calibration: its score is not evidence)", "yellow")
                elif ev.judge_trusted is None:
                    t.append("†  (judge not calibrated yet)", "dim")
                t.append("\n")
                if ev.judge_reason:
                    t.append(f"  {visible(ev.judge_reason[:300], one_line=True)}\n", "dim")
            if ev.correct is not None or ev.decision == "undecided":
                if ev.f1 is not None:  # None: nothing to match against (no reference answer)
                    t.append(f"exact {'yes' if ev.exact else 'no'} · contains {'yes' if ev.contains else 'no'} · "
                             f"token F1 {ev.f1:.2f}  →  ")
                word = "undecided" if ev.correct is None else "right" if ev.correct else "wrong"
                t.append(word, {"right": "bold green", "wrong": "bold red"}.get(word, "bold yellow"))
                t.append(f"  ({visible(ev.basis, one_line=True)})\n", "dim")
        if ev.note:
            t.append(f"{visible(ev.note)}\n", "yellow")
        parts.append(t)
    return Group(*parts)


def replies_text(results: Mapping[str, ModelEvidence]) -> str:
    """d on the model tab: per system, the exact prompt sent (where it was stored) and the raw reply."""
    parts = []
    for name, ev in sorted(results.items()):
        head = f"── {name} ({ev.task}, {ev.prompt_tokens:,} prompt tokens) ──"
        if ev.prompt:
            cut = ", cut to max_stored_chars: its start and end" if ev.prompt_cut else ""
            prompt = f"prompt as sent ({len(ev.prompt):,} characters{cut}):\n{ev.prompt}"
        else:
            prompt = "prompt: not stored (a full-tier run, or one from before prompts were kept: run it here to keep it)"
        parts.append(f"{head}\n{prompt}\n\nraw reply:\n{ev.answer}")
    return "\n\n\n".join(parts)
