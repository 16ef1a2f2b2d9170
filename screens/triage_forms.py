"""Small forms of production triage: a query pasted from a log, a reference answer edited."""

from __future__ import annotations

import msgspec
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class NewQuery(msgspec.Struct, frozen=True):
    """What the add-query form returns: text, reference answer ("" = unknown), gold IDs (may be none)."""

    text: str
    answer: str
    gold: list[str]
    domain: str | None = None  # None: the gold documents' domain


class AddQueryModal(ModalScreen["NewQuery | None"]):
    """Enter moves to the next field and submits from the last; Esc cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="add_query.cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Add a query from a log", classes="dialog-title")
            yield Input(placeholder="query text (required)", id="new-query")
            yield Input(placeholder="reference answer (optional)", id="new-answer")
            yield Input(placeholder="gold document IDs, comma-separated: source ids or DocIDs (optional)", id="new-gold")
            yield Input(placeholder="domain (optional: the gold documents' domain; it decides the query's tiers)",
                        id="new-domain")
            yield Static("[dim]Enter: next field / add · Esc: cancel · no gold = unlabelled (mark gold in the inspector)[/]")

    @on(Input.Submitted)
    def _next(self, event: Input.Submitted) -> None:
        order = ["new-query", "new-answer", "new-gold", "new-domain"]
        i = order.index(event.input.id or "new-query")
        if i < len(order) - 1:
            self.query_one(f"#{order[i + 1]}", Input).focus()
            return
        text = self.query_one("#new-query", Input).value.strip()
        if not text:
            self.notify("the query text is required", severity="warning")
            self.query_one("#new-query", Input).focus()
            return
        gold = [g.strip() for g in self.query_one("#new-gold", Input).value.split(",") if g.strip()]
        domain = self.query_one("#new-domain", Input).value.strip() or None
        self.dismiss(NewQuery(text, self.query_one("#new-answer", Input).value.strip(), gold, domain))

    def action_cancel(self) -> None:
        self.dismiss(None)


class AnswerModal(ModalScreen["str | None"]):
    """Edit a query's reference answer: Enter saves, Esc cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="answer.cancel")]

    def __init__(self, query_id: str, answer: str) -> None:
        super().__init__()
        self.query_id, self.answer = query_id, answer

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(f"Reference answer of {self.query_id}", classes="dialog-title", markup=False)
            yield Input(value=self.answer, id="answer-input")
            yield Static("[dim]Enter: save (a change of queries.jsonl, logged with who and when) · Esc: cancel[/]")

    @on(Input.Submitted)
    def _save(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)
