"""Small forms of production triage: a query pasted from a log, a reference answer edited."""

from __future__ import annotations

import msgspec
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.validation import Function, ValidationResult, Validator
from textual.widgets import Input, Static

from workbench.safe_text import visible
from workbench.session import DocIdResolver, resolve_doc_ids


class NewQuery(msgspec.Struct, frozen=True):
    """What the add-query form returns: text, reference answer ("" = unknown), gold IDs (may be none)."""

    text: str
    answer: str
    gold: list[str]
    domain: str | None = None  # None: the gold documents' domain


class GoldKnown(Validator):
    """The gold field names documents of the corpus (each unknown ID named). Until the form has its
    resolver (built in a worker as the form opens) every value passes: the add checks again."""

    def __init__(self, form: AddQueryModal) -> None:
        super().__init__()
        self.form = form

    def validate(self, value: str) -> ValidationResult:
        resolver = self.form.resolver
        if resolver is None:
            return self.success()
        _, unknown = resolve_doc_ids(resolver, value)
        if not unknown:
            return self.success()
        shown = ", ".join(repr(visible(u, one_line=True)) for u in unknown[:3]) + (", …" if len(unknown) > 3 else "")
        return self.failure(f"not in the corpus (neither a source id nor a DocID): {shown}")


FIELDS = {"--query": "new-query", "--answer": "new-answer", "--gold": "new-gold", "--domain": "new-domain"}


class AddQueryModal(ModalScreen["NewQuery | None"]):
    """Enter moves to the next field and submits from the last; Esc cancels. Opened again after a
    failed add with what was typed (``initial``) and the error beside the field at fault (``errors``:
    field id → message): nothing typed is lost."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="add_query.cancel")]
    DEFAULT_CSS = """
    AddQueryModal .field-error { color: $error; height: auto; }
    """

    def __init__(self, initial: NewQuery | None = None, errors: dict[str, str] | None = None,
                 resolver: DocIdResolver | None = None) -> None:
        super().__init__()
        self.initial, self.errors = initial, errors or {}
        self.resolver = resolver  # the corpus' IDs (None until built): the gold field is checked as typed

    def resolver_ready(self, resolver: DocIdResolver) -> None:
        """The corpus' IDs arrived: what the gold field holds already is checked now."""
        self.resolver = resolver
        gold = self.query_one("#new-gold", Input)
        if gold.value.strip() and "new-gold" not in self.errors:
            self.show_validation(gold, gold.validate(gold.value))

    def compose(self) -> ComposeResult:
        v = self.initial or NewQuery("", "", [])
        required = Function(lambda text: bool(text.strip()), "the query text is required")
        with Vertical(classes="dialog"):
            yield Static("Add a query from a log", classes="dialog-title")
            yield Input(v.text, placeholder="query text (required)", id="new-query", validators=[required])
            yield Static(self.errors.get("new-query", ""), id="new-query-error", classes="field-error", markup=False)
            yield Input(v.answer, placeholder="reference answer (optional)", id="new-answer")
            yield Static(self.errors.get("new-answer", ""), id="new-answer-error", classes="field-error", markup=False)
            yield Input(", ".join(v.gold), placeholder="gold document IDs, comma-separated: source ids or DocIDs (optional)",
                        id="new-gold", validators=[GoldKnown(self)])
            yield Static(self.errors.get("new-gold", ""), id="new-gold-error", classes="field-error", markup=False)
            yield Input(v.domain or "", placeholder="domain (optional: the gold documents' domain; it decides the query's tiers)",
                        id="new-domain")
            yield Static(self.errors.get("new-domain", ""), id="new-domain-error", classes="field-error", markup=False)
            yield Static("[dim]Enter: next field / add · Esc: cancel · no gold = unlabelled (mark gold in the inspector)[/]")

    def on_mount(self) -> None:
        for field in FIELDS.values():
            self.query_one(f"#{field}-error", Static).display = field in self.errors
            self.query_one(f"#{field}", Input).set_class(field in self.errors, "-invalid")
        if self.errors:  # the cursor on the field at fault
            self.query_one(f"#{next(iter(self.errors))}", Input).focus()

    @on(Input.Changed)
    def _validated(self, event: Input.Changed) -> None:
        """The error beside the field follows what is typed (a validator's, or the failed add's until edited)."""
        v = self.initial or NewQuery("", "", [])
        as_given = {"new-query": v.text, "new-answer": v.answer, "new-gold": ", ".join(v.gold), "new-domain": v.domain or ""}
        if event.input.id in self.errors and event.value == as_given.get(event.input.id or ""):
            return  # the value given back on mount: the failed add's error stays until it is edited
        self.show_validation(event.input, event.validation_result)

    def show_validation(self, field: Input, result: ValidationResult | None) -> bool:
        """The field's error beside it and the field marked (or both cleared); True when it passed."""
        error = self.query_one(f"#{field.id}-error", Static)
        failure = result is not None and not result.is_valid
        if failure and result is not None:
            error.update(" · ".join(result.failure_descriptions))
        error.display = failure
        field.set_class(failure, "-invalid")
        return not failure

    @on(Input.Submitted)
    def _next(self, event: Input.Submitted) -> None:
        """Enter: the next field, or (from the last) the add. A field that fails its check keeps the
        cursor, and the form never closes on one: nothing typed is lost."""
        order = list(FIELDS.values())
        i = order.index(event.input.id or "new-query")
        if not self.show_validation(event.input, event.validation_result):
            return
        if i < len(order) - 1:
            self.set_focus(self.query_one(f"#{order[i + 1]}", Input))  # now: what is typed next goes there
            return
        for field_id in order:  # every field checked again: the resolver may have come since it was typed
            field = self.query_one(f"#{field_id}", Input)
            if not self.show_validation(field, field.validate(field.value)):
                field.focus()
                return
        text = self.query_one("#new-query", Input).value.strip()
        gold = [g.strip() for g in self.query_one("#new-gold", Input).value.split(",") if g.strip()]
        domain = self.query_one("#new-domain", Input).value.strip() or None
        self.dismiss(NewQuery(text, self.query_one("#new-answer", Input).value.strip(), gold, domain))

    def action_cancel(self) -> None:
        self.dismiss(None)


def field_errors(error: BaseException) -> dict[str, str]:
    """A failed add's problems by the form's field ("--gold: …" beside the gold IDs); the rest beside the text."""
    out: dict[str, str] = {}
    for p in getattr(error, "problems", None) or []:
        field = FIELDS.get(str(getattr(p, "file", "")), "new-query")
        out[field] = "; ".join(x for x in (out.get(field), visible(str(getattr(p, "message", p)), one_line=True)) if x)
    return out or {"new-query": visible(str(error), one_line=True)}


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
