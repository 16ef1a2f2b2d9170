"""The Diagnosis tab's key `t` runs its first runnable recommendation (a configured rerank, or
fine-tuning where the rerank is too costly for a key press) as a worker, and the tab then shows
the fix's measured effect: interval and p-value. On the tiny project with K = 1 (its multi-source
query fails access, so the access fixes are recommended)."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from screens.app import make_app
from support.recommend import failing_project
from support.tui import settle, until

SIZE = (120, 40)


def text_of(widget: Static) -> str:
    from rich.console import Console

    console = Console(width=200, record=True, file=open("/dev/null", "w"))
    console.print(widget.content)
    return console.export_text()


def _effect(session, system: str) -> str | None:
    recs = session.recommended[1] if session.recommended else []
    return next((r.fix.effect for r in recs if r.fix is not None and r.fix.system == system), None)


async def _try_the_first_fix(root, system: str, number: int = 2) -> str:
    app = make_app(root, auto_build=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=8)
        await pilot.press("3")
        before = text_of(app.screen.query_one("#diagnosis-body"))
        assert f"t: try {system} on full" in before, before
        assert f"measured: not tried yet ({system} is not stored)" in before
        assert "done: hybrid is hybrid already" in before
        await pilot.press("t")
        await until(pilot, lambda: _effect(app.session, system) is not None, "the fix ran and its effect was read")
        await settle(pilot)
        after = text_of(app.screen.query_one("#diagnosis-body"))
        block = after.split(f"{number}. ", 1)[1].split(f"{number + 1}. ", 1)[0]
        assert "measured: " in block and " at full: " in block and "p = " in block and "not tried yet" not in block, after
        assert "[" in block.split("measured: ", 1)[1], "the interval is shown"
        assert app.task_state == ("", 0, 0), "the task bar is cleared once the fix ran"
        return after


async def test_t_runs_the_rerank_and_the_tab_shows_its_effect(tmp_path, monkeypatch):
    import threading

    from support.rerank import make_cross_encoder
    from workbench.session.state import Session

    kept_on: set[str] = set()  # the fix's worker measures and reads; only the UI thread keeps what the tab shows
    plain = Session.__setattr__

    def recording(self, name, value):
        if name == "recommended" and value is not None:
            kept_on.add(threading.current_thread().name)
        plain(self, name, value)

    monkeypatch.setattr(Session, "__setattr__", recording)
    ce = make_cross_encoder(tmp_path / "ce")
    root = failing_project(tmp_path / "tiny", ce={"backend": "cross-encoder", "model": str(ce), "batch_size": 2})
    await _try_the_first_fix(root, "hybrid>rerank:ce@100")
    assert kept_on == {threading.main_thread().name}


@pytest.mark.llm
async def test_t_runs_the_embedded_models_rerank_offline(tmp_path, local_server):
    """The demo's choice: the `llm` reranker over the embedded model (depth 2·K: few calls)."""
    root = failing_project(tmp_path / "tiny", local={"backend": "llm", "model": "local"})
    await _try_the_first_fix(root, "hybrid>rerank:local@2")


async def test_t_runs_fine_tuning_when_the_embedded_models_rerank_is_too_costly_for_a_key(tmp_path, monkeypatch):
    """The demo's case (1,760 pointwise calls on a CPU): the reranker keeps its place, says why the
    key skips it and that 3 runs next; t fine-tunes and the tab shows the held-out effect."""
    import workbench.diagnosis.fix_commands as fc

    monkeypatch.setattr(fc, "EMBEDDED_LLM_KEY_PAIRS", 1)
    root = failing_project(tmp_path / "tiny", local={"backend": "llm", "model": "local"})
    after = await _try_the_first_fix(root, "hybrid@tuned", number=3)
    reranker = " ".join(after.split("2. a reranker", 1)[1].split("3. ", 1)[0].split())
    assert "not run by the key here" in reranker and "the key runs 3 (hybrid@tuned) next" in reranker
    assert "measured: not tried yet" in reranker, "the skipped rerank was not run"
    assert (root / ".workbench" / "tuned" / "model" / "config.json").is_file()
