"""Issue 42: nothing typed is lost, marked. The Add-query form checks its gold IDs against the corpus
(a Textual validator fed by the session's DocIdResolver, built off the UI thread) before it closes:
a bad gold keeps the form open with every field as typed, the gold field marked and its error
beside it; a good one (a source id or a DocID) adds the query."""

from __future__ import annotations

from textual.widgets import Input, Static

from screens.app import make_app
from screens.inspector import QueryScreen
from support.tui import SIZE, settle, text_of
from test_tui_add_query_kept import open_form
from workbench.project.load import load_project
from workbench.session import doc_id_resolver, resolve_doc_ids


def test_the_resolver_takes_source_ids_and_docids_and_names_the_rest(evaluated):
    project = load_project(evaluated)
    doc = next(iter(project.documents.values()))
    resolver = doc_id_resolver(project)
    text = f"{doc.source_id or doc.doc_id}, Lilu mythology , {doc.doc_id},"
    assert resolve_doc_ids(resolver, text) == ([doc.doc_id], ["Lilu mythology"])


async def test_a_bad_gold_never_closes_the_form_and_marks_the_gold_field(evaluated_copy):
    root = evaluated_copy
    before = (root / "queries.jsonl").read_bytes()
    app = make_app(root)
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(pilot)
        typed = {"new-query": "Which magazine was started first?", "new-answer": "Arthur's Magazine",
                 "new-gold": "Lilu mythology", "new-domain": app.session.project.domains[0]}
        for field, value in typed.items():
            form.query_one(f"#{field}", Input).value = value
        await pilot.pause()
        gold, gold_error = form.query_one("#new-gold", Input), form.query_one("#new-gold-error", Static)
        assert gold.has_class("-invalid") and gold_error.display  # marked as typed, before any Enter
        assert "Lilu mythology" in text_of(gold_error) and "not in the corpus" in text_of(gold_error)

        form.query_one("#new-domain", Input).focus()
        await pilot.press("enter")  # the add, from the last field
        await settle(pilot)
        assert app.screen is form  # never closed: no add ran, nothing was lost
        assert {f: form.query_one(f"#{f}", Input).value for f in typed} == typed
        assert gold.has_focus and gold.has_class("-invalid")  # the cursor on the field at fault
        assert not form.query_one("#new-query-error", Static).display  # only that field is marked
        assert (root / "queries.jsonl").read_bytes() == before

        doc = next(iter(app.session.project.documents))
        gold.value = f"{doc}"
        await pilot.pause()
        assert not gold_error.display and not gold.has_class("-invalid")
        form.query_one("#new-domain", Input).focus()
        await pilot.press("enter")
        await settle(pilot, rounds=8)
        assert isinstance(app.screen, QueryScreen) and app.screen.query_id == "added-1"
        assert load_project(root).query("added-1").gold_doc_ids == [doc]
