"""The app's own commands in the command palette (Ctrl+P): the app-wide ones, and those the
current screen offers (WorkbenchScreen.palette_commands) between them."""

from __future__ import annotations

from functools import partial

from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from screens.base import PaletteCommand, WorkbenchScreen
from workbench.session import list_versions

if TYPE_CHECKING:
    from screens.app import WorkbenchApp


class WorkbenchCommands(Provider):
    @property
    def wb(self) -> WorkbenchApp:
        return cast("WorkbenchApp", self.app)

    def _commands(self) -> list[PaletteCommand]:
        app = self.wb
        cmds: list[PaletteCommand] = [
            ("Build tiers and indexes", app.action_build, "build what is missing or stale, in the background"),
            ("Re-evaluate access", app.action_reevaluate, "rerun retrievers on every tier (stored runs are reused)"),
            ("Cancel the running task", app.action_cancel, "index build, evaluation, model or batch run"),
            ("Calibrate the judge", app.action_calibrate, "right vs wrong reference answers: a judge that fails never counts"),
            ("Help: keys", app.action_help, "every key binding"),
        ]
        screen = self.screen  # the screen the palette was opened on (app.screen is the palette itself)
        if isinstance(screen, WorkbenchScreen):
            cmds.extend(screen.palette_commands())
        if app.session is not None:
            shown = app.session.project.queries_version
            for v in list_versions(app.project_path):
                mark = " (shown)" if v.name == shown else ""
                cmds.append((f"Queries: version {v.name}{mark}", partial(app.switch_queries_version, v.name),
                             f"{v.n_queries} queries, {len(v.excluded)} excluded; {v.made_by}, {v.created}"))
            for q in app.session.project.queries:
                cmds.append((f"Open query {q.query_id}: {q.query[:60]}", partial(app.open_query, q.query_id), ""))
        return cmds

    async def discover(self) -> Hits:
        for name, cb, help_ in self._commands()[:12]:
            yield DiscoveryHit(name, cb, help=help_ or None)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, cb, help_ in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), cb, help=help_ or None)
