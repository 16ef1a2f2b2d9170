"""The inspector's Unjudged pane (U) on a project whose rankings are fixed by construction
(tests/support/insight.py, indexed): on `full`, q1's unjudged documents in the systems' top 2 are 7 (bm25 #1,
"Paris museums": states q1's answer "Paris") and 2 (hybrid and dense #2); 3 is q1's hard negative, 1 its
gold. A label takes the document out of the list; the query list's v:unjudged finds q1 only."""

from __future__ import annotations

import shutil

import pytest
from textual.widgets import DataTable, Input, Static, TabbedContent

from screens.app import make_app
from screens.inspector import QueryScreen
from screens.inspector.unjudged import UnjudgedPane
from support.insight import make_indexed_insight_project
from support.tui import open_inspector, settle
from test_tui_triage_loop import text_of
from workbench.project.versions import read_labels


@pytest.fixture(scope="module")
def insight_project(tmp_path_factory):
    return make_indexed_insight_project(tmp_path_factory.mktemp("tui-unjudged") / "p")


@pytest.fixture
def insight_copy(insight_project, tmp_path):
    return shutil.copytree(insight_project, tmp_path / "p")


def listed(pane: UnjudgedPane) -> list[int]:
    return [int(str(k.value)) for k in pane.query_one(DataTable).rows]


async def open_pane(pilot, app) -> UnjudgedPane:
    await open_inspector(pilot, "q1", "full")
    assert isinstance(app.screen, QueryScreen)
    await pilot.press("U")
    await settle(pilot)
    assert app.screen.query_one("#inspector-tabs", TabbedContent).active == "unjudged"
    return app.screen.query_one(UnjudgedPane)


async def test_the_stepper_lists_answer_bearing_first_and_a_label_takes_the_document_out(insight_copy, monkeypatch):
    monkeypatch.setenv("WORKBENCH_USER", "pilot")
    app = make_app(insight_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        pane = await open_pane(pilot, app)
        assert listed(pane) == [7, 2]  # the answer-bearing one first, though hybrid's 2 is not below it in rank
        head = text_of(pane.query_one("#unjudged-head", Static))
        assert "Unjudged 1/2 on full" in head and "ANSWER-BEARING" in head and "bm25 #1" in head
        assert "states the answer “Paris”" in head
        passage = pane.query_one("#unjudged-passage", Static).content
        answer = [passage.plain[s.start:s.end] for s in passage.spans if "on yellow" in str(s.style)]
        assert answer == ["Paris"] and passage.plain.startswith("Paris museums")  # highlighted, in its title

        await pilot.press("n")
        await settle(pilot)
        assert "Unjudged 2/2" in text_of(pane.query_one("#unjudged-head", Static))
        assert "does not state the answer" in text_of(pane.query_one("#unjudged-head", Static))
        await pilot.press("p")
        await settle(pilot)

        await pilot.press("G")  # 7 is gold now: out of the list, the cursor on the next (2)
        await settle(pilot)
        assert 7 in app.session.project.query("q1").gold_doc_ids
        assert listed(pane) == [2] and "Unjudged 1/1" in text_of(pane.query_one("#unjudged-head", Static))

        await pilot.press("N")  # not relevant changes no list: recorded as a judgement all the same
        await settle(pilot)
        assert listed(pane) == []
        assert "No unjudged document on full" in text_of(pane.query_one("#unjudged-head", Static))
        version = app.session.project.queries_version
        assert version == "labels-1"  # both marks in the visit's one version
        assert [(r.action, r.doc_id, r.label) for r in read_labels(insight_copy, version)] == [
            ("add_gold", 7, "gold"), ("none", 2, "not_relevant")]

        await pilot.press("u")  # the newest mark undone: 2 unjudged again
        await settle(pilot)
        assert listed(pane) == [2]

        qs = app.screen
        await pilot.press("1", "right_square_bracket")  # another tier from the rankings, then the tab itself
        await settle(pilot)
        assert qs.tier != "full"
        qs.query_one("#inspector-tabs", TabbedContent).active = "unjudged"
        await settle(pilot)
        assert pane.shown_for == ("q1", qs.tier) and f"on {qs.tier}" in text_of(pane.query_one("#unjudged-head", Static))


async def test_the_filter_word_finds_the_query_with_an_answer_bearing_unjudged_document(insight_project):
    app = make_app(insight_project)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        ms = app.main_screen()
        await pilot.press("2")
        ms.query_one("#filter", Input).value = "v:unjudged"
        await settle(pilot)
        assert [str(k.value) for k in ms.query_one("#query-table", DataTable).rows] == ["q1"]


async def test_help_names_the_key(insight_project):
    app = make_app(insight_project)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_inspector(pilot, "q2", "full")
        await pilot.press("f1")
        await pilot.pause()
        text = " ".join(text_of(s) for s in app.screen.query(Static))
        assert "inspector.unjudged" in text and "v:unjudged" in text


async def test_the_pane_reads_its_documents_in_a_worker(insight_copy):
    """U, n, p, a tier and d put on screen what a worker read: no document is read on the UI thread,
    and a list read for a tier left since is never drawn over the newer one."""
    from test_tui_inspector_prepared import ReadsByThread

    from screens.modals import TextModal

    app = make_app(insight_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        reads = ReadsByThread(app.session.project.documents)
        app.session.project.documents = reads
        pane = await open_pane(pilot, app)
        assert listed(pane) == [7, 2]
        for key in ("n", "p", "right_square_bracket", "left_square_bracket"):
            await pilot.press(key)
            await settle(pilot)
        assert pane.shown_for == ("q1", "full") and listed(pane) == [7, 2]
        assert pane.query_one("#unjudged-passage", Static).content.plain.startswith("Paris museums")
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, TextModal)
        assert 7 in reads.off_ui
        assert reads.on_ui == [], f"documents read on the UI thread: {reads.on_ui}"

        app.pop_screen()
        await settle(pilot)
        from screens.inspector.unjudged import UnjudgedReady, UnjudgedView

        empty = UnjudgedView("q1", "full", (), {})
        pane.wanted = ("q1", "another-tier")  # a newer read asked for: a view of the older one is not drawn
        pane.post_message(UnjudgedReady(empty))
        await pilot.pause()
        assert pane.view is not empty and listed(pane) == [7, 2]
        pane.wanted = ("q1", "full")
        pane.post_message(UnjudgedReady(empty))
        await pilot.pause()
        assert pane.view is empty and listed(pane) == []
