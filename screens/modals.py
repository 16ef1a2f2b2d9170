"""Modal screens: confirm, error, help, a long text."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from workbench.safe_text import visible


class ConfirmModal(ModalScreen[bool]):
    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, title: str, body: str, yes: str = "Yes") -> None:
        super().__init__()
        self.title_text, self.body, self.yes = title, body, yes

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.title_text, classes="dialog-title")
            yield Static(visible(self.body), markup=False, classes="dialog-body")  # names tiers: data
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.yes} [y]", variant="primary", id="yes")
                yield Button("Not now [n]", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)


class ErrorModal(ModalScreen[None]):
    BINDINGS = [Binding("escape,enter,q", "dismiss", "Close", id="error.close")]

    def __init__(self, title: str, message: str, hint: str = "") -> None:
        super().__init__()
        self.title_text, self.message, self.hint = title, message, hint

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog error"):
            yield Static(self.title_text, markup=False, classes="dialog-title")
            with VerticalScroll(classes="dialog-scroll"):
                yield Static(self.message, markup=False, classes="dialog-body")
            if self.hint:
                yield Static(self.hint, markup=False, classes="dialog-hint")
            yield Static("[dim]Esc / Enter to close[/]")


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,f1,question_mark", "dismiss", "Close", id="help.close")]

    def __init__(self, sections: list[tuple[str, list[tuple[str, str]]]]) -> None:
        super().__init__()
        self.sections = sections

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog help"):
            yield Static("Nearmiss Workbench — keys", classes="dialog-title")
            with VerticalScroll(classes="dialog-scroll"):
                for title, rows in self.sections:
                    t = Table(title=title, title_justify="left", show_header=False, box=None, expand=True)
                    t.add_column("key", style="bold cyan", no_wrap=True, width=14)
                    t.add_column("action")
                    for key, desc in rows:
                        t.add_row(key, desc)
                    yield Static(t)
                yield Static(
                    "\nHow to read it: a near miss is a non-gold document ranked in the top K above a gold "
                    "document. [green]green[/] = gold, [red]red[/] = verified hard negative. In diffs, "
                    "[black on yellow]years/numbers[/], [white on dark_magenta]names[/] and [black on cyan]words[/] "
                    "that differ between the distractor and the gold document are highlighted."
                )
            yield Static("[dim]Esc to close · Ctrl+P for the command palette[/]")


class TextModal(ModalScreen[None]):
    """A long text shown whole, scrollable (a document, a model's raw reply): data, never markup."""

    BINDINGS = [Binding("escape,q,d", "dismiss", "Close", id="text.close")]

    def __init__(self, title: str, body: str) -> None:
        super().__init__()
        self.title_text, self.body = title, body

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog help text"):
            yield Static(self.title_text, markup=False, classes="dialog-title")
            with VerticalScroll(classes="dialog-scroll", id="text-scroll"):
                yield Static(visible(self.body), markup=False, id="text-body")
            yield Static("[dim]Esc to close · arrows / PgUp / PgDn scroll[/]")
