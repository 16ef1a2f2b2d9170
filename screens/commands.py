"""The app's own commands in the command palette (Ctrl+P)."""

from __future__ import annotations

from functools import partial

from typing import TYPE_CHECKING, Callable

from textual.command import DiscoveryHit, Hit, Hits, Provider

from workbench.session import TASKS

if TYPE_CHECKING:
    from screens.app import WorkbenchApp


class WorkbenchCommands(Provider):
    @property
    def wb(self) -> "WorkbenchApp":
        from screens.app import WorkbenchApp

        assert isinstance(self.app, WorkbenchApp)
        return self.app

    def _commands(self) -> list[tuple[str, Callable[[], object], str]]:
        app = self.wb
        cmds: list[tuple[str, Callable[[], object], str]] = [
            ("Build tiers and indexes", app.action_build, "build what is missing or stale, in the background"),
            ("Re-evaluate access", app.action_reevaluate, "rerun retrievers on every tier (stored runs are reused)"),
            ("Cancel the running task", app.action_cancel, "index build, evaluation or model run"),
            ("Help: keys", app.action_help, "every key binding"),
        ]
        screen = app.screen
        from screens.inspector import QueryScreen
        from screens.main import MainScreen

        if isinstance(screen, MainScreen):
            for tab in ("overview", "queries", "diagnosis"):
                cmds.append((f"Show {tab}", partial(screen.action_tab, tab), f"switch to the {tab} tab"))
            cmds.append(("Sort queries by where they break", screen.action_cycle_sort, "toggle ladder order / breaks"))
            cmds.append(("Filter: failing multi-source queries", partial(self._filter, "multi fail"), "set the filter"))
        if isinstance(screen, QueryScreen):
            for spec in TASKS.values():
                cmds.append((f"Run {spec.label} on this tier", partial(screen.action_run, spec.name), f"model {screen.model}"))
            cmds.append(("Export evidence (Markdown + JSON)", screen.action_export, "for a bug report"))
            for name in screen.tiers:
                cmds.append((f"Tier {name}", partial(screen.switch_tier, name), "switch the inspector's tier"))
        if app.session is not None:
            for q in app.session.project.queries:
                cmds.append((f"Open query {q.query_id}: {q.query[:60]}", partial(app.open_query, q.query_id), ""))
        return cmds

    def _filter(self, text: str) -> None:
        from textual.widgets import Input

        from screens.main import MainScreen

        screen = self.app.screen
        if isinstance(screen, MainScreen):
            screen.action_tab("queries")
            screen.query_one("#filter", Input).value = text

    async def discover(self) -> Hits:
        for name, cb, help_ in self._commands()[:12]:
            yield DiscoveryHit(name, cb, help=help_ or None)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, cb, help_ in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), cb, help=help_ or None)
