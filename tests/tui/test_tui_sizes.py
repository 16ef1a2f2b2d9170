"""Issue 42, any size: at 80×24 the Diagnosis tab's verdict headers stay distinguishable (ACC vs ACC?)."""

from __future__ import annotations

from screens.app import make_app
from support.tui import settle
from test_tui_narrow import screen_lines
from workbench.session import VERDICTS


async def test_the_diagnosis_headers_are_told_apart_at_80_columns(evaluated):
    app = make_app(evaluated)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        lines = screen_lines(app)
        header = next((ln for ln in lines if "level" in ln and "ACC" in ln), "")
        cells = [c.strip() for c in header.replace("┃", "│").split("│") if c.strip()]
        assert "ACC" in cells and "ACC?" in cells, lines
        assert not any("…" in c for c in cells), header  # no header cut
        assert len(cells) == len(set(cells)) == len(VERDICTS) + 2, cells  # level, each verdict, reading


async def test_the_inspector_shows_the_selected_tier_at_80_columns_on_every_tier(sample_project):
    """The sample corpus's 20 tiers do not fit 80 columns: the strip is a window around the selected one."""
    from support.tui import open_inspector

    app = make_app(sample_project)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        tiers = [t.name for t in app.session.tiers_for("finance-05")]
        assert sum(len(t) + 3 for t in tiers) > 80  # they would not fit whole
        await open_inspector(pilot, "finance-05", tiers[0])
        for name in tiers:
            await settle(pilot)
            row = next(ln for ln in screen_lines(app) if ln.lstrip().startswith("tier "))
            assert f" {name} " in row and row.rstrip().endswith("to switch"), (name, row)
            await pilot.press("right_square_bracket")
