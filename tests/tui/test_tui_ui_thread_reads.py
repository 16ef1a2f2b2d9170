"""The UI thread reads no file (issue 42): every key of a triage session — the list's filter, sorts
and systems, the tabs, the inspector's tiers, near misses, tabs, rankings, unjudged documents and
whole documents, the next query, a reload, the palette, the add-query form, the help — is answered from what workers read and posted. Watched
with Python's audit hook on `open` and directory listings (a module imported late counts too)."""

from __future__ import annotations

import sys
import threading

from textual.widgets import Static

from screens.app import make_app
from screens.panes.overview import OverviewPane
from support.tui import open_inspector, settle, text_of, until

_WATCH: dict[str, list[str] | None] = {"reads": None}  # the reads seen while a test watches (None: not watching)


def _audit(event: str, args: tuple) -> None:
    reads = _WATCH["reads"]
    if reads is None or event not in ("open", "os.listdir", "os.scandir", "glob.glob"):
        return
    if threading.current_thread() is threading.main_thread():
        reads.append(f"{event} {args[0] if args else ''}")


_hooked = False


def _watch_reads() -> list[str]:
    global _hooked
    if not _hooked:  # an audit hook cannot be removed: one per process, inert while nobody watches
        sys.addaudithook(_audit)
        _hooked = True
    reads: list[str] = []
    _WATCH["reads"] = reads
    return reads


async def test_no_key_of_a_triage_session_reads_a_file_on_the_ui_thread(sample_project):
    app = make_app(sample_project)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot, rounds=8)
            reads = _watch_reads()
            for keys in (["slash", *"multi"], ["enter"], ["s"], ["s"], ["y"], ["1"], ["3"], ["4"], ["2"]):
                await pilot.press(*keys)
                await settle(pilot)
            assert app.screen.queries.shown, "the filter keeps some queries"
            await open_inspector(pilot, app.screen.queries.shown[0], app.session.tiers[-1].name)
            for key in ("n", "p", "]", "[", "1", "2", "3", "y", "j", "k", "U", "n", "d", "escape", "2", "n", "d",
                        "escape", "escape", "ctrl+r", "1"):
                await pilot.press(key)
                await settle(pilot)
            await pilot.press("ctrl+p", *"version")  # the query-set versions: read by the palette's provider in a thread
            await until(pilot, lambda: any("Queries: version original" in str(o.prompt)
                                           for o in app.screen.query_one("CommandList").options), "the versions offered")
            for keys in (["escape"], ["a"], ["escape"], ["f1"], ["escape"]):  # the add-query form, the help
                await pilot.press(*keys)
                await settle(pilot)
            _WATCH["reads"] = None
            assert reads == [], f"read on the UI thread: {reads[:5]}"
            # what the Overview shows (the index manifests among it) was read in a worker and is there
            pane = app.screen.query_one(OverviewPane)
            assert pane.view is not None and [t.name for t in pane.view.tiers] == [t.name for t in app.session.tiers]
            assert {t.sparse for t in pane.view.tiers} == {"ok"}
            assert f"query set {app.session.project.corpus_hash()[:12]}" in text_of(pane.query_one("#overview-body", Static))
    finally:
        _WATCH["reads"] = None
