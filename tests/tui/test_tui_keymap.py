"""Keys are data: a user keymap file (binding id = keys) remaps them; bad files are reported."""

from __future__ import annotations

import pytest
from textual.widgets import TabbedContent

from screens.app import make_app
from screens.keymap import KeymapError, load_keymap
from screens.modals import HelpScreen
from support.tui import settle


async def test_keymap_file_remaps_a_binding(project_copy, tmp_path, monkeypatch):
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('"main.overview" = "w"\n"main.queries" = "e"\n')
    monkeypatch.setenv("NEARMISS_KEYMAP", str(keymap))
    app = make_app(project_copy)  # opening evaluates: it writes runs, so not into the shared fixture
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        tabs = app.screen.query_one("#tabs", TabbedContent)
        await pilot.press("w")
        assert tabs.active == "overview"
        await pilot.press("e")
        assert tabs.active == "queries"
        await pilot.press("1")  # the old key no longer switches
        assert tabs.active == "queries"
        app.action_help()
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert ("w", "Overview  [dim]main.overview[/]") in app.screen.sections[1][1]


def test_bad_keymap_names_file_and_entry(tmp_path):
    path = tmp_path / "keymap.toml"
    path.write_text('"main.filter" = 3\n')
    with pytest.raises(KeymapError, match=r"keymap.toml: main.filter: expected keys as a string"):
        load_keymap(path)
    path.write_text("not = = toml")
    with pytest.raises(KeymapError, match="not valid TOML"):
        load_keymap(path)
    assert load_keymap(tmp_path / "absent.toml") == {}
