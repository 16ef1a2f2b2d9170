"""SVG snapshots of the main screens on the fixture project (pytest-textual-snapshot)."""

from screens.app import make_app
from test_tui_support import first_near_miss_case, open_inspector, settle


def test_query_list_80x24(snap_compare, evaluated):
    assert snap_compare(make_app(evaluated), terminal_size=(80, 24), run_before=settle)


def test_inspector_near_miss_diff(snap_compare, evaluated):
    _, q, tier, _ = first_near_miss_case(evaluated)

    async def before(pilot):
        await open_inspector(pilot, q.query_id, tier.name)
        await pilot.press("n")
        await pilot.pause()

    assert snap_compare(make_app(evaluated), terminal_size=(110, 32), run_before=before)


def test_inspector_rankings(snap_compare, evaluated):
    _, q, tier, _ = first_near_miss_case(evaluated)

    async def before(pilot):
        await open_inspector(pilot, q.query_id, tier.name)

    assert snap_compare(make_app(evaluated), terminal_size=(110, 32), run_before=before)


def test_demo_query_list_80x24(snap_compare, sample_project):
    assert snap_compare(make_app(sample_project), terminal_size=(80, 24), run_before=settle)


def test_demo_near_miss_diff(snap_compare, sample_project):
    """finance-05 on the full tier: its gold Shaeda Trust document falls out of the hybrid top 10."""

    async def before(pilot):
        await open_inspector(pilot, "finance-05", "full")
        await pilot.press("n")
        await pilot.pause()

    assert snap_compare(make_app(sample_project), terminal_size=(110, 32), run_before=before)
