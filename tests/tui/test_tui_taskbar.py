"""The task bar says how far a long task is: its count, its rate and the time left (the dense
build's chunks, an evaluation's queries), never a bare bar."""

from textual.widgets import Static

from screens.app import make_app
from support.tui import settle


async def test_the_task_bar_counts_and_estimates(project_copy):
    app = make_app(project_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        label = app.screen.query_one("#task-label", Static)
        app.task_state = ("embedding chunks (dense)", 0, 4000)
        await pilot.pause()
        assert "embedding chunks (dense) 0/4,000" in str(label.render())
        app.task_state = ("embedding chunks (dense)", 1000, 4000)
        await pilot.pause()
        shown = str(label.render())
        assert "1,000/4,000 · " in shown and "/s · about " in shown and " left" in shown
        app.task_state = ("", 0, 0)
        await pilot.pause()
        assert not app.screen.query_one("TaskBar").display
