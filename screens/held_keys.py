"""Keys typed before the project has loaded (`/` and a filter, sent with `open`) are held and
replayed in order once it has, one per turn of the message loop: a key that moves the focus (`/`)
moves it before the next key is handled, as when typed at human speed. The app says when it is
loading (`loading`) and when to replay (`replay_held_keys`)."""

from __future__ import annotations

from textual import events
from textual.app import App


class HeldKeysApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.user_keymap: dict[str, str] = {}  # binding id -> keys (the user's keymap file)
        self._held_keys: list[events.Key] = []  # typed while the project loads: replayed in order once it has
        self._replaying = False
        self._replay_now: events.Key | None = None  # the held key being replayed (let through)

    def loading(self) -> bool:
        """Whether keys are to be held now (the app's project is still loading)."""
        return False

    async def on_event(self, event: events.Event) -> None:
        """Keys typed before the project has loaded (`/` and a filter, sent with `open`) are held and
        replayed in order once it has, one per turn of the message loop: a key that moves the focus
        (`/`) moves it before the next key is handled, as when typed at human speed."""
        if isinstance(event, events.Key) and not event.is_forwarded and event is not self._replay_now and self._hold(event):
            self._held_keys.append(event)
            return
        await super().on_event(event)

    def _hold(self, event: events.Key) -> bool:
        if event.key in self._quit_keys():
            return False  # leaving is never held
        return self.loading() or self._replaying or bool(self._held_keys)

    def _quit_keys(self) -> set[str]:
        keys = self.user_keymap.get("app.quit") or "q"
        return {k.strip() for k in keys.split(",")} | {"ctrl+c", "ctrl+q"}

    def replay_held_keys(self) -> None:
        if self._held_keys and not self._replaying:
            self._replaying = True
            self.run_worker(self._replay_held(), group="keys", exclusive=True, exit_on_error=False)

    async def _replay_held(self) -> None:
        """Each held key once everything the previous one set off (its binding's action, a focus
        change, which go through other widgets' queues) has been handled."""
        from textual._wait import wait_for_idle  # Textual's own "no message pump busy" (what its Pilot waits on)

        try:
            while self._held_keys:
                await wait_for_idle(0)
                self._replay_now = self._held_keys.pop(0)
                self.post_message(self._replay_now)
            await wait_for_idle(0)
        finally:
            self._replaying, self._replay_now = False, None

