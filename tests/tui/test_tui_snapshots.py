"""SVG snapshots of the main screens (pytest-textual-snapshot), rendered from fixed runs:
the stored rankings carry rank-derived scores (support/tui.py: with_fixed_scores)."""

import pytest

from screens.app import make_app
from support.tui import first_near_miss_case, open_inspector, settle
from test_tui_snapshots_sizes import fixed_folder


# at a fixed path: the inspector's verdict line shows its command whole, the project's path in it
@pytest.fixture(scope="session")
def fixed_hotpot(evaluated):
    return fixed_folder(evaluated, "hotpot-small")


@pytest.fixture(scope="session")
def fixed_sample(sample_project):
    return fixed_folder(sample_project)


def test_query_list_80x24(snap_compare, fixed_hotpot):
    assert snap_compare(make_app(fixed_hotpot), terminal_size=(80, 24), run_before=settle)


def test_inspector_near_miss_diff(snap_compare, fixed_hotpot):
    _, q, tier, _ = first_near_miss_case(fixed_hotpot)

    async def before(pilot):
        await open_inspector(pilot, q.query_id, tier.name)
        await pilot.press("n")
        await pilot.pause()

    assert snap_compare(make_app(fixed_hotpot), terminal_size=(110, 32), run_before=before)


def test_inspector_rankings(snap_compare, fixed_hotpot):
    _, q, tier, _ = first_near_miss_case(fixed_hotpot)

    async def before(pilot):
        await open_inspector(pilot, q.query_id, tier.name)

    assert snap_compare(make_app(fixed_hotpot), terminal_size=(110, 32), run_before=before)


def test_demo_query_list_80x24(snap_compare, fixed_sample):
    assert snap_compare(make_app(fixed_sample), terminal_size=(80, 24), run_before=settle)


def test_demo_near_miss_diff(snap_compare, fixed_sample):
    """finance-05 on the full tier: its gold Shaeda Trust document falls out of the hybrid top 10."""

    async def before(pilot):
        await open_inspector(pilot, "finance-05", "full")
        await pilot.press("n")
        await pilot.pause()

    assert snap_compare(make_app(fixed_sample), terminal_size=(110, 32), run_before=before)
