"""The inspector's keys only put prepared data on screen: the ranking rows, the near-miss heads
and word diffs, the gold titles and a document's text are made or read in workers, never on the
UI thread (a key that read the corpus would wait on the disk)."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping

from textual.widgets import DataTable, TabbedContent

from screens.app import make_app
from screens.modals import TextModal
from support.tui import first_near_miss_case, settle, text_of
from workbench.session import Document


class ReadsByThread(Mapping[int, Document]):
    """The corpus, recording which thread asked for each document."""

    def __init__(self, documents: Mapping[int, Document]) -> None:
        self.documents, self.on_ui, self.off_ui = documents, [], []

    def __getitem__(self, doc_id: int) -> Document:
        (self.on_ui if threading.current_thread() is threading.main_thread() else self.off_ui).append(doc_id)
        return self.documents[doc_id]

    def __iter__(self) -> Iterator[int]:
        return iter(self.documents)

    def __len__(self) -> int:
        return len(self.documents)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self.documents


async def test_the_inspector_keys_read_no_document_on_the_ui_thread(evaluated):
    _, q, tier, ins = first_near_miss_case(evaluated)
    app = make_app(evaluated)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        reads = ReadsByThread(app.session.project.documents)
        app.session.project.documents = reads
        app.open_query(q.query_id, tier.name)
        await settle(pilot)
        qs = app.screen
        for key in ("n", "p", "n", "right_square_bracket", "left_square_bracket", "1", "y", "2", "n", "1"):
            await pilot.press(key)
            await settle(pilot)
        assert qs.inspection is not None and qs.inspection.tier == tier.name
        # what the panes show came from the worker: the gold titles in the head, the rows in the tables
        head = text_of(qs.query_one("#q-head"))
        assert all(f"{g} {reads.documents[g].title}" in head for g in q.gold_doc_ids)
        table = qs.query("#ranking-tables DataTable").results(DataTable).__next__()
        assert table.row_count >= len(ins.systems[0].rows)
        await pilot.press("2")
        await settle(pilot)
        miss = ins.near_misses[qs.miss_index]
        assert f"{miss.doc_id}" in text_of(qs.query_one("#miss-head"))
        assert f"DISTRACTOR {miss.doc_id}" in text_of(qs.query_one("#diff-left-text"))
        await pilot.press("d")  # the near miss whole: its text read in a worker
        await settle(pilot)
        assert isinstance(app.screen, TextModal)
        assert reads.off_ui and miss.doc_id in reads.off_ui
        assert reads.on_ui == [], f"documents read on the UI thread: {reads.on_ui}"
        assert qs.query_one("#inspector-tabs", TabbedContent).active == "nearmiss"
