"""Issue 19, the inspector's leftovers: labelling in one visit makes one query-set version (undo
inside it, the header naming it), and an answer's exact prompt is viewable beside its raw reply."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable

from screens.app import make_app
from screens.inspector import QueryScreen
from screens.modals import TextModal
from support.tui import open_inspector, settle
from test_tui_triage_loop import text_of
from workbench.project.versions import list_versions, read_labels


def doc_of(key) -> int:
    return int(str(key.value).rsplit(":", 1)[1])


async def mark_row(pilot, qs: QueryScreen, doc: int, key: str) -> None:
    table = qs.query("#ranking-tables DataTable").first(DataTable)
    table.focus()
    await pilot.pause()
    table.move_cursor(row=[doc_of(k) for k in table.rows].index(doc))
    await pilot.pause()
    assert qs.highlighted_doc() == doc
    await pilot.press(key)
    await settle(pilot)


async def test_three_marks_in_one_visit_make_one_version_and_undo_stays_inside_it(evaluated_copy, monkeypatch):
    monkeypatch.setenv("WORKBENCH_USER", "pilot")
    root = evaluated_copy
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        q = next(q for q in app.session.project.queries if q.is_labelled)
        await open_inspector(pilot, q.query_id, app.session.tiers_for(q.query_id)[-1].name)
        qs = app.screen
        assert isinstance(qs, QueryScreen)
        table = qs.query("#ranking-tables DataTable").first(DataTable)
        free = [d for d in (doc_of(k) for k in table.rows) if d in q.hard_negative_ids][:3]  # hard negatives, ranked
        assert len(free) == 3
        for doc, key in zip(free, ("N", "G", "N")):
            await mark_row(pilot, qs, doc, key)
            assert app.session.project.queries_version == "labels-1"
        assert [v.name for v in list_versions(root)] == ["original", "labels-1"]  # three marks, one version
        assert "queries labels-1 (open)" in app.sub_title
        assert "(queries labels-1 (open))" in text_of(qs.query_one("#q-head"))  # in view at 80 columns too
        labelled = app.session.project.query(q.query_id)
        assert not set(free) & set(labelled.hard_negative_ids) and free[1] in labelled.gold_doc_ids
        assert [(r.doc_id, r.by) for r in read_labels(root, "labels-1") if r.action == "remove_hard_negative"] == [
            (d, "user:pilot") for d in free]

        await pilot.press("u")  # the newest mark out of the open version
        await settle(pilot)
        assert app.session.project.queries_version == "labels-1"
        assert free[2] in app.session.project.query(q.query_id).hard_negative_ids
        kept = read_labels(root, "labels-1")
        assert [r.doc_id for r in kept if r.action == "remove_hard_negative"] == free[:2]
        assert [v.name for v in list_versions(root)] == ["original", "labels-1"]

        await pilot.press("j")  # another query: the visit closes
        await settle(pilot)
        assert qs.query_id != q.query_id and "(open)" not in app.sub_title
        assert "(queries labels-1)" in text_of(qs.query_one("#q-head"))
        other = app.session.project.query(qs.query_id)
        table = qs.query("#ranking-tables DataTable").first(DataTable)
        doc = next(d for d in (doc_of(k) for k in table.rows) if d in other.hard_negative_ids)
        await mark_row(pilot, qs, doc, "N")
        assert [v.name for v in list_versions(root)] == ["original", "labels-1", "labels-2"]  # the next version
        assert "queries labels-2 (open)" in app.sub_title
        await pilot.press("u")  # its only change undone: the version goes, labels-1 is worked on again
        await settle(pilot)
        assert [v.name for v in list_versions(root)] == ["original", "labels-1"]
        assert app.session.project.queries_version == "labels-1"
        assert read_labels(root, "labels-1") == kept  # the closed version untouched


@pytest.mark.llm
@pytest.mark.slow
async def test_d_on_the_model_tab_shows_the_exact_prompt_and_the_raw_reply(evaluated_copy):
    from workbench import session as core

    app = make_app(evaluated_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        q = next(q for q in app.session.project.queries if q.is_labelled)
        tier = app.session.tiers_for(q.query_id)[0].name
        await open_inspector(pilot, q.query_id, tier)
        await pilot.press("o")  # oracle QA on the local server
        await settle(pilot)
        ev = app.session.model_results[(q.query_id, tier)]["model:local:oracle"]
        assert ev.answer and q.query in ev.prompt and "[user]" in ev.prompt
        gold = app.session.project.documents[q.gold_doc_ids[0]]
        assert gold.title in ev.prompt  # the oracle's context: the gold documents
        await pilot.press("3", "d")
        await pilot.pause()
        assert isinstance(app.screen, TextModal)
        body = text_of(app.screen.query_one("#text-body"))
        assert "prompt as sent" in body and q.query in body and "raw reply:" in body
        assert ev.answer.split()[0] in body
    s, _ = core.open_session(evaluated_copy)  # stored with the run: there after a restart
    stored = core.known_results(s, s.tier(tier), q.query_id)["model:local:oracle"]
    assert stored.prompt == ev.prompt

