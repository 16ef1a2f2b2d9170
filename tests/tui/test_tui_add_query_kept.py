"""Issue 42: nothing typed is lost. An Add-query form whose add is refused (a gold document the corpus
no longer holds: the form's own check, test_tui_gold_validated.py, saw the corpus before) comes back
with every field as typed and the error beside the gold IDs; fixing the gold adds the query."""

from __future__ import annotations

import shutil

from textual.widgets import Input, Static

from screens.app import make_app
from screens.inspector import QueryScreen
from screens.triage_forms import AddQueryModal
from support.tui import SIZE, settle, text_of, until
from workbench.project.load import load_project
from workbench.session import DocIdResolver


async def open_form(pilot) -> AddQueryModal:
    """``a`` on the query list: the form, once the corpus' IDs reached it."""
    app = pilot.app
    await settle(pilot, rounds=6)
    await pilot.press("a")
    await until(pilot, lambda: isinstance(app.screen, AddQueryModal), "the form opens")
    await until(pilot, lambda: app.screen.resolver is not None, "the corpus' IDs reach the form")
    return app.screen


async def test_a_bad_gold_keeps_every_field_and_marks_the_gold(evaluated, tmp_path):
    root = tmp_path / "proj"
    shutil.copytree(evaluated, root)
    before = (root / "queries.jsonl").read_bytes()
    app = make_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await open_form(pilot)
        # the corpus as the form saw it held "Lilu mythology"; the add finds it gone
        known = app.screen.resolver.ids
        app.screen.resolver = DocIdResolver({**known, "Lilu mythology": next(iter(known.values()))})
        domain = app.session.project.domains[0]
        typed = {"new-query": "Which magazine was started first?", "new-answer": "Arthur's Magazine",
                 "new-gold": "Lilu mythology", "new-domain": domain}
        for field, value in typed.items():
            app.screen.query_one(f"#{field}", Input).value = value
        app.screen.query_one("#new-domain", Input).focus()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, AddQueryModal) and bool(app.screen.errors),
                    "the form comes back with the error")
        form = app.screen
        assert {f: form.query_one(f"#{f}", Input).value for f in typed} == typed  # every field as typed
        gold_error = form.query_one("#new-gold-error", Static)
        assert gold_error.display and "Lilu mythology" in text_of(gold_error) and "not in the corpus" in text_of(gold_error)
        assert form.query_one("#new-gold", Input).has_class("-invalid")
        assert not form.query_one("#new-query-error", Static).display  # only the field at fault is marked
        assert (root / "queries.jsonl").read_bytes() == before  # nothing written

        # the gold fixed (a real DocID): the query is added and opened
        doc = next(iter(app.session.project.documents))
        form.query_one("#new-gold", Input).value = str(doc)
        await pilot.pause()
        assert not form.query_one("#new-gold-error", Static).display  # editing the field clears its error
        form.query_one("#new-domain", Input).focus()
        await pilot.press("enter")
        await settle(pilot, rounds=8)
        assert isinstance(app.screen, QueryScreen) and app.screen.query_id == "added-1"
        assert load_project(root).query("added-1").gold_doc_ids == [doc]
