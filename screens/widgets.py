"""Small shared widgets: the task bar, the footer that fits its width, the header that keeps what changes."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Header, ProgressBar, Static
from textual.widgets._footer import FooterKey

from workbench.display import progress_words
from workbench.safe_text import markup_escaped

PALETTE_KEY_CELLS = 11  # "▏^p palette", docked at the footer's right end
HEADER_CHROME = 18  # the header's icon (8 cells) and the clock's space (10) beside its title


class TaskBar(Horizontal):
    """The one long background task: label + progress; hidden when idle. Watches app.task_state."""

    DEFAULT_CSS = """
    TaskBar { height: 1; display: none; background: $boost; }  /* in the flow above the docked footer: never under it */
    TaskBar #task-label { width: 1fr; }
    TaskBar #task-progress { width: 30; }
    """

    def compose(self) -> ComposeResult:
        yield Static("", id="task-label")
        yield ProgressBar(total=None, show_eta=False, id="task-progress")

    def on_mount(self) -> None:
        self._stage: tuple[str, int, float] | None = None  # (label, total, when it started): the rate's origin
        self.watch(self.app, "task_state", self._update, init=True)

    def _update(self, state: tuple[str, int, int]) -> None:
        import time

        label, done, total = state
        self.display = bool(label)
        if not label:
            self._stage = None
            return
        now = time.monotonic()
        if self._stage is None or self._stage[:2] != (label, total) or done < 1:
            self._stage = (label, total, now)  # a new stage (or its first count): the rate starts again
        counted = progress_words(done, total, now - self._stage[2]) if total > 1 else ""
        # the label names tiers (data): escaped, never parsed as markup
        self.query_one("#task-label", Static).update(
            f"{markup_escaped(label, one_line=True)}" + (f" [b]{markup_escaped(counted)}[/]" if counted else "")
            + " [dim](x: cancel)[/]")
        bar = self.query_one("#task-progress", ProgressBar)
        bar.update(total=total or None, progress=done)


FooterEntry = tuple[str, str, str, str, bool, str]  # key, key shown, description, action, enabled, tooltip


class KeyFooter(Footer):
    """A compact footer showing, in their order, the bindings that fit its width (the first ones,
    f1 among them, always in view; the rest are in f1 and the palette), never one drawn under the
    palette key. It is rebuilt only when what it shows changes: Textual's footer recomposes every
    key widget on each focus or binding change, tens of milliseconds a time on the UI thread."""

    def __init__(self) -> None:
        super().__init__(compact=True)
        self._shown: tuple[FooterEntry, ...] | None = None
        # composed with its screen (the bindings are known by then), not in a second pass after it
        self.set_reactive(Footer._bindings_ready, True)

    def entries(self) -> tuple[FooterEntry, ...]:
        """The bindings to show at the app's width now (the footer spans it)."""
        by_action: dict[str, FooterEntry] = {}
        for _, binding, enabled, tooltip in self.screen.active_bindings.values():
            if binding.show and binding.action not in by_action:  # one key per action, as Textual's footer
                by_action[binding.action] = (binding.key, self.app.get_key_display(binding), binding.description,
                                             binding.action, enabled, tooltip)
        room = self.app.size.width - (PALETTE_KEY_CELLS if self._palette() else 0)
        fitted: list[FooterEntry] = []
        used = 0
        for entry in by_action.values():
            cells = len(entry[1]) + (1 + len(entry[2]) if entry[2] else 0) + 1  # key, description, margin
            if used + cells > room:
                break  # in order: a later short key does not jump ahead of the one that did not fit
            fitted.append(entry)
            used += cells
        return tuple(fitted)

    def _palette(self) -> Binding | None:
        if not (self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE):
            return None
        active = self.screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
        return active.binding if active is not None else None

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        self._shown = self.entries()
        for key, display, description, action, enabled, tooltip in self._shown:
            yield FooterKey(key, display, description, action, disabled=not enabled,
                            tooltip=tooltip).data_bind(compact=Footer.compact)
        palette = self._palette()
        if palette is not None:
            active = self.screen.active_bindings[self.app.COMMAND_PALETTE_BINDING]
            yield FooterKey(palette.key, self.app.get_key_display(palette), palette.description, palette.action,
                            classes="-command-palette", disabled=not active.enabled,
                            tooltip=palette.tooltip or palette.description)

    def bindings_changed(self, screen: Screen[object]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._recompose_if_changed)

    def on_resize(self) -> None:
        if self._bindings_ready:
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        # several changes in one refresh (a focus and its binding refresh) make one rebuild at most
        if self.is_attached and self.entries() != self._shown:
            await self.recompose()


class WorkbenchHeader(Header):
    """The header; where the app's title and the sub-title do not both fit (80 columns), the
    sub-title alone: it names what changes (verdict system, query-set version and whether a
    labelling visit holds it "(open)"), the title does not."""

    def format_title(self) -> Content:
        title, sub = self.screen_title, self.screen_sub_title
        if sub and len(title) + 3 + len(sub) > self.size.width - HEADER_CHROME:
            return Content(sub)
        return super().format_title()

    def on_resize(self) -> None:
        self.query_one("HeaderTitle", Static).update(self.format_title())

