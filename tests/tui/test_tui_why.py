"""The inspector's Why pane on hr-07 of the sample corpus (multi-source; gold 756778 ranked out on
its base tier): the verdict's facts whole at 80×24 and 120×40 (wrapped, never cut), the funnel
stage, the near misses of the lost gold first, and the explain of the selected one."""

from __future__ import annotations

import io

from screens.app import make_app
from screens.inspector import QueryScreen
from support.tui import open_inspector, settle, text_of, until
from workbench.session import STAGE_LABELS


def screen_text(app) -> str:
    from rich.console import Console

    console = Console(width=app.size.width, height=app.size.height, file=io.StringIO(), record=True,
                      force_terminal=True, color_system=None, legacy_windows=False)
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text()


async def test_why_pane_shows_the_whole_facts_the_stage_and_the_lost_golds_near_misses(sample_project):
    for size in ((80, 24), (120, 40)):
        app = make_app(sample_project)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            s = app.session
            tier = next(t.name for t in s.tiers_for("hr-07") if t.kind == "base")
            await open_inspector(pilot, "hr-07", tier)
            screen = app.screen
            assert isinstance(screen, QueryScreen)
            await pilot.press("4")
            body = screen.query_one("#why-body")
            await until(pilot, lambda: "Why it outranks the gold" in text_of(body) or "explain failed" in text_of(body),
                        "the explain of the first near miss")
            await settle(pilot)
            d = s.diagnosis
            system = d.primary
            v = d.at("hr-07", tier, system)
            line = d.line("hr-07", tier, system)
            shown = text_of(body)
            assert line in " ".join(shown.split("\n")) or line in shown.replace("\n", "")  # whole, at any width
            words = " ".join(screen_text(app).split())
            assert " ".join(line.split()) in words, (size, line)  # on the screen, wrapped: not cut by an ellipsis
            assert f"lost at: {STAGE_LABELS[v.stage]}" in shown and v.stage == "ranked_out"  # 756778 at hybrid #15 > K
            ins = screen.inspection
            assert ins is not None and ins.near_misses
            assert ins.near_misses[0].imitates == 756778  # the lost gold's imitators lead
            assert "(lost)" in shown and "BM25" in shown and "explain failed" not in shown
            await pilot.press("n")  # the stepper steps in place on the Why pane
            await until(pilot, lambda: screen.miss_index == 1 and "▶ 2." in text_of(body), "the second near miss selected")
            assert screen.query_one("#inspector-tabs").active == "why"
            await settle(pilot)


def test_the_diagnosis_tab_draws_the_funnel_per_level(tmp_path):
    from rich.console import Console

    from screens.panes.diagnosis import verdict_section
    from support import diagnosis as ds
    from workbench import session as core

    root = ds.make_project(tmp_path / "tiny")
    ds.fill(root)
    s, _ = core.open_session(root)
    core.diagnose(s)
    console = Console(width=100, record=True, file=io.StringIO())
    for part in verdict_section(s):
        console.print(part)
    text = console.export_text()
    assert f"Where the gold is lost ({core.verdict_system(s)})" in text
    full = next(line for line in text.splitlines() if line.startswith("full ") and "│" not in line)  # the funnel's, not the table's
    assert ">K 1" in full and "ignored 2" in full and full.endswith("of 3")
