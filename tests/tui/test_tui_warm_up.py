"""What the app loads ahead: once the first figures are on screen, a worker loads the project's
embedder (the Why pane's first use then embeds at once instead of importing torch under the user's
keys), and what the app now keeps is frozen out of the cyclic collector's walks."""

from __future__ import annotations

import gc
import threading

from screens.app import make_app
from support.tui import settle
from workbench import session as core


async def test_the_embedder_is_loaded_by_a_worker_after_the_first_figures(evaluated, monkeypatch):
    loaded_on: list[str] = []
    warm = core.warm_up

    def recording(session):
        loaded_on.append(threading.current_thread().name)
        return warm(session)

    monkeypatch.setattr(core, "warm_up", recording)
    gc.unfreeze()
    app = make_app(evaluated)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot, rounds=6)
            assert app.session is not None and app.session.diagnosis is not None
            assert len(loaded_on) == 1 and loaded_on[0] != threading.main_thread().name
            assert gc.get_freeze_count() > 0
            from index.embedders import _ST_MODELS

            assert _ST_MODELS, "the project's sentence-transformers model is loaded"
            app.request_evaluation()  # figures again: loaded once per app
            await settle(pilot)
            assert len(loaded_on) == 1
    finally:
        gc.unfreeze()


def test_an_endpoint_embedder_has_nothing_to_load(evaluated_copy):
    import msgspec

    session, _ = core.open_session(evaluated_copy)
    config = session.project.config
    endpoint = msgspec.structs.replace(config.embedding, backend="openai", base_url="http://127.0.0.1:9/v1")
    session.project.config = msgspec.structs.replace(config, embedding=endpoint)
    assert core.warm_up(session) == ""  # no request made: nothing listens on port 9
