"""Issue 42: every action is in the command palette, generated from the bindings (each with its key),
and the words a user types find an entry."""

from __future__ import annotations

from textual.binding import Binding
from textual.command import CommandPalette
from textual.widgets import TabbedContent, TabPane

from screens.app import make_app
from screens.commands import WorkbenchCommands, palette_entries
from screens.inspector import QueryScreen
from screens.main import MainScreen
from support.tui import open_inspector, settle, until


async def found(screen, text: str) -> list[str]:
    """The titles the palette's provider finds for ``text`` typed on ``screen`` (its real matcher)."""
    provider = WorkbenchCommands(screen)
    return [hit.text or "" async for hit in provider.search(text)]


def bindings_of(*owners) -> list[Binding]:
    return [b for owner in owners for b in owner.BINDINGS if isinstance(b, Binding)]


def check_every_binding(app, screen) -> None:
    entries = palette_entries(app, screen)
    covered = {i for e in entries for i in e.binding_ids}
    missing = [b.id for b in bindings_of(app, screen) if b.id not in covered]
    assert not missing, f"bindings with no palette entry on {type(screen).__name__}: {missing}"
    for e in entries:
        if e.binding_ids:
            assert e.keys, f"{e.title}: its key is not shown"
    titles = " | ".join(e.title for e in entries)
    for pane in screen.query(TabPane):  # each tab, by its label
        label = screen.query_one(TabbedContent).get_tab(pane).label.plain
        assert label in titles, f"tab {label} has no palette entry"


async def test_every_binding_and_tab_is_in_the_palette_and_the_words_find_entries(evaluated, tmp_path):
    app = make_app(evaluated, export_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        check_every_binding(app, main)
        for word in ("export", "report", "add query", "system", "label", "filter", "help"):
            assert await found(main, word), f"{word!r} finds nothing on the main screen"
        assert any(t.startswith("Filter: v:access?") for t in await found(main, "access?"))
        # a version is listed with when it last changed (the original's `created` is empty)
        version = next(e for e in palette_entries(app, main) if e.title.startswith("Queries: version original"))
        assert "changed 20" in version.help, version.help

        q = app.session.project.queries[0]
        await open_inspector(pilot, q.query_id, app.session.tiers_for(q.query_id)[-1].name)
        inspector = app.screen
        assert isinstance(inspector, QueryScreen)
        check_every_binding(app, inspector)
        for word in ("export", "label", "help", "system", "oracle"):
            assert await found(inspector, word), f"{word!r} finds nothing in the inspector"

        # an entry found by typing runs its action: "export" then Enter writes the evidence
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette opens")
        await pilot.press(*"export")
        await until(pilot, lambda: app.screen.query_one("CommandList").option_count > 0, "the palette lists a hit")
        await pilot.pause(0.3)  # the search gathers in the background; the first hit is highlighted once it shows
        await pilot.press("enter")
        await until(pilot, lambda: any(tmp_path.rglob("*.md")), "the evidence is exported from the palette")
        await settle(pilot)
        assert isinstance(app.screen, QueryScreen)
