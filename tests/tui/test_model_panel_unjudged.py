"""The model panel draws an answer nothing can be matched against: production's answer to a query
a trace added (no reference answer) is shown undecided with why, never a crash on its missing F1."""

from __future__ import annotations

from rich.console import Console

from screens.inspector.model_panel import model_results
from workbench.session import ModelEvidence


def test_an_answer_without_a_reference_is_drawn_undecided_with_why():
    ev = ModelEvidence(system="run:prod:answers", tier="full", task="rag", answer="a spirit", decision="undecided",
                       basis="no reference answer for this query: not judged (label its answer to decide)")
    console = Console(width=100, record=True)
    console.print(model_results({"run:prod:answers": ev}, set()))
    text = console.export_text()
    assert "a spirit" in text and "undecided" in text and "no reference answer" in text
    assert "token F1" not in text  # nothing was matched
