"""The app's own commands in the command palette (Ctrl+P).

Every key binding of the app and of the screen the palette opened on is an entry, generated from
the bindings themselves (description, tooltip, keys as the user's keymap has them): a binding added
to a screen is in the palette without a second list. After them come what the screen offers beyond
its keys (WorkbenchScreen.palette_commands: filter words, batches, tiers), the query-set versions
and the queries."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING, Callable, NamedTuple, cast

import textual.system_commands  # noqa: F401  (the palette's system entries: loaded with the app, not on the first ctrl+p)
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.widget import Widget

from screens.base import WorkbenchScreen
from workbench import session as core

if TYPE_CHECKING:
    from screens.app import WorkbenchApp


class PaletteEntry(NamedTuple):
    title: str  # what the palette matches and shows (plain text: names from data are never markup)
    callback: Callable[[], object]
    help: str
    keys: str = ""  # the keys that do the same, shown beside the title ("" for palette-only entries)
    binding_ids: tuple[str, ...] = ()  # the bindings it stands for (the palette test's check)


def binding_title(b: Binding) -> str:
    """"Report: export the diagnosis report (…)": the footer's word, then the tooltip that says more."""
    return f"{b.description}: {b.tooltip}" if b.tooltip else b.description


def binding_entries(app: WorkbenchApp, screen: object) -> list[PaletteEntry]:
    """One entry per action bound app-wide or on ``screen``; bindings of one action share it (their keys listed)."""
    owners: list[tuple[WorkbenchApp | Widget, list[Binding]]] = [(app, [b for b in app.BINDINGS if isinstance(b, Binding)])]
    if isinstance(screen, WorkbenchScreen):
        owners.append((screen, [b for b in screen.BINDINGS if isinstance(b, Binding)]))
    merged: dict[tuple[int, str], tuple[WorkbenchApp | Widget, str, Binding, list[Binding]]] = {}
    for owner, bindings in owners:
        for b in bindings:
            target, action = (app, b.action[4:]) if b.action.startswith("app.") else (owner, b.action)
            key = (id(target), action)
            if key in merged:
                merged[key][3].append(b)
            else:
                merged[key] = (target, action, b, [b])
    entries = []
    for target, action, first, same in merged.values():
        keys = ", ".join(dict.fromkeys(app.keys_shown(b) for b in same))
        ids = tuple(b.id for b in same if b.id)
        entries.append(PaletteEntry(binding_title(first), partial(target.run_action, action), f"key {keys} · {ids[0]}"
                                    if ids else f"key {keys}", keys, ids))
    return entries


def palette_entries(app: WorkbenchApp, screen: object, versions: list[core.VersionInfo] | None = None) -> list[PaletteEntry]:
    """Everything the palette offers on ``screen`` (the screen it was opened on), in the order it lists them;
    ``versions``: the query-set versions as a worker read them (None: read them here)."""
    entries = binding_entries(app, screen)
    if isinstance(screen, WorkbenchScreen):
        entries.extend(PaletteEntry(title, cb, help_) for title, cb, help_ in screen.palette_commands())
    entries.append(PaletteEntry("Calibrate the judge", app.action_calibrate,
                                "right vs wrong reference answers: a judge that fails never counts"))
    if app.session is not None:
        shown = app.session.project.queries_version
        for v in versions if versions is not None else core.list_versions(app.project_path):
            mark = " (shown)" if v.name == shown else ""
            changed = core.last_changed(v)
            entries.append(PaletteEntry(f"Queries: version {v.name}{mark}", partial(app.switch_queries_version, v.name),
                                        f"{v.n_queries} queries, {len(v.excluded)} excluded; {v.made_by}"
                                        + (f", changed {changed}" if changed else "")))
        for q in app.session.project.queries:
            entries.append(PaletteEntry(f"Open query {q.query_id}: {q.query[:60]}", partial(app.open_query, q.query_id), ""))
    return [e for i, e in enumerate(entries) if e.title not in {x.title for x in entries[:i]}]


def shown(entry: PaletteEntry, title: Content) -> Content:
    """The title with its keys beside it, dimmed."""
    return title + Content.styled(f"  {entry.keys}", "dim") if entry.keys else title


class WorkbenchCommands(Provider):
    _versions: list[core.VersionInfo] | None = None

    @property
    def wb(self) -> WorkbenchApp:
        return cast("WorkbenchApp", self.app)

    async def startup(self) -> None:
        """The query-set versions, read once per opening off the UI thread (a file per version)."""
        if self.wb.session is not None:
            self._versions = await asyncio.to_thread(core.list_versions, self.wb.project_path)

    def _entries(self) -> list[PaletteEntry]:
        # the screen the palette was opened on (app.screen is the palette itself)
        return palette_entries(self.wb, self.screen, self._versions if self._versions is not None else [])

    async def discover(self) -> Hits:
        for e in self._entries():
            if e.callback.__class__ is partial and getattr(e.callback, "func", None) == self.wb.open_query:
                continue  # the queries are found by typing (the list holds them all)
            yield DiscoveryHit(shown(e, Content(e.title)), e.callback, text=e.title, help=e.help or None)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for e in self._entries():
            score = matcher.match(e.title)
            if score > 0:
                yield Hit(score, shown(e, matcher.highlight(e.title)), e.callback, text=e.title, help=e.help or None)
