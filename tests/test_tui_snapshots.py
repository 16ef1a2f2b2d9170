"""SVG snapshots of the main screens on the fixture project (pytest-textual-snapshot)."""

from pathlib import Path

import pytest
from textual.widgets import Input

from screens.app import make_app
from test_tui_support import evaluated_copy, first_near_miss_case


@pytest.fixture
def evaluated(built_project, tmp_path_factory) -> Path:
    return evaluated_copy(built_project, tmp_path_factory)


async def _settle(pilot):
    for _ in range(4):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
    for inp in pilot.app.query(Input):
        inp.cursor_blink = False


def test_query_list_80x24(snap_compare, evaluated):
    assert snap_compare(make_app(evaluated), terminal_size=(80, 24), run_before=_settle)


def test_inspector_near_miss_diff(snap_compare, evaluated):
    _, q, tier, _ = first_near_miss_case(evaluated)

    async def before(pilot):
        await _settle(pilot)
        pilot.app.open_query(q.query_id, tier.name)
        await _settle(pilot)
        await pilot.press("n")
        await pilot.pause()

    assert snap_compare(make_app(evaluated), terminal_size=(110, 32), run_before=before)


def test_inspector_rankings(snap_compare, evaluated):
    _, q, tier, _ = first_near_miss_case(evaluated)

    async def before(pilot):
        await _settle(pilot)
        pilot.app.open_query(q.query_id, tier.name)
        await _settle(pilot)

    assert snap_compare(make_app(evaluated), terminal_size=(110, 32), run_before=before)


def test_demo_query_list_80x24(snap_compare, sample_project):
    assert snap_compare(make_app(sample_project), terminal_size=(80, 24), run_before=_settle)


def test_demo_near_miss_diff(snap_compare, sample_project):
    """finance-05 on the full tier: its gold Shaeda Trust document falls out of the hybrid top 10."""

    async def before(pilot):
        await _settle(pilot)
        pilot.app.open_query("finance-05", "full")
        await _settle(pilot)
        await pilot.press("n")
        await pilot.pause()

    assert snap_compare(make_app(sample_project), terminal_size=(110, 32), run_before=before)
