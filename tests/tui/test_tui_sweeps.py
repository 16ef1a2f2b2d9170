"""The Sweeps tab shows the stored sweeps as terminal charts (Rich), loaded off the UI thread."""

from __future__ import annotations

import shutil

from textual.widgets import TabbedContent

from screens.app import make_app
from support.tui import SIZE, text_of
from support.tui import settle
from workbench.project.load import load_project
from workbench.records import ModelConfig
from workbench.sweeps.arms import Planner
from workbench.sweeps.records import ArmResult, SweepMeta
from workbench.sweeps.runner import make_spec
from workbench.correctness import answer_match
from workbench.sweeps.store import SweepStore, sweep_id


def store_distribution_sweep(root) -> None:
    """A finished Protocol B sweep: the standard prompt answers, the strict one refuses everything."""
    project = load_project(root)
    cfg = ModelConfig()
    spec = make_spec(project, "distribution", "local", cfg, "local", cfg, seed=1, max_tokens=32, lengths=[1024],
                     distributions=["uniform"], n_facts=4, n_absent=2, variants=["standard", "strict"])
    arms = Planner(project, spec, cfg).arms()
    store = SweepStore(project)
    sid = sweep_id(spec)
    store.save_meta(SweepMeta(sid, spec, 1.0, len(arms), calibration="judge failed calibration", wall_s=12.0))
    for a in arms:
        answer = "I do not know" if a.variant == "strict" else (a.gold or "7")
        store.append_result(sid, ArmResult(a.arm_id, answer, bool(a.gold) and answer_match(answer, a.gold),
                                           a.variant == "strict", 900, 950, 4, 0.2, [], []))


async def test_sweeps_tab_shows_the_stored_sweep(evaluated, tmp_path):
    root = tmp_path / "p"
    shutil.copytree(evaluated, root)
    app = make_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("4")
        assert app.screen.query_one("#tabs", TabbedContent).active == "sweeps"
        assert "No sweeps yet" in text_of(app.screen.query_one("#sweeps-body"))
    store_distribution_sweep(root)
    app = make_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("4")
        text = text_of(app.screen.query_one("#sweeps-body"))
        assert "distribution sweep" in text and "scored by deterministic match" in text
        assert "share correct by distribution" in text and "4/4" in text and "0/4" in text
        assert "safety tax" in text and "masking under the strict prompt" in text
