"""Every command of the tutorial (docs/tutorial.md) runs as written, on the demo project, and prints the
figures the page quotes. The quick run leaves out the block that calls the local model (its first line
says so); the `llm` test runs the whole page, that block included."""

from __future__ import annotations

import pytest

from doc_blocks import demo_home, needs_model, run_script, shell_blocks
from support.paths import REPO
from support.pty_run import PtyApp

PAGE = REPO / "docs" / "tutorial.md"
BLOCKS = shell_blocks(PAGE)


def test_the_tutorial_has_its_steps_and_one_model_block():
    assert len(BLOCKS) >= 8
    assert [needs_model(b) for b in BLOCKS].count(True) == 1
    assert any("workbench demo --no-tui" in b for b in BLOCKS)


def test_every_command_of_the_tutorial_runs_as_written(sample_project, tmp_path):
    env = demo_home(sample_project, tmp_path)
    done = run_script([b for b in BLOCKS if not needs_model(b)], env, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout + done.stderr
    # the figures the page quotes, as the commands print them
    for quoted in ("0.042", "ACCESS? 56 provisional", "A2: gold 503188 at run:prod #6", "0.443 vs 0.801",
                   "wins 0, loses 39", "promoted 44 gold", "p = 0.0001", "88 production queries traced since"):
        assert quoted in out, quoted
    demo = tmp_path / "share" / "nearmiss-workbench" / "demo"
    assert (demo / "reports" / "report-hr-07.html").is_file()  # where the page says the report goes
    walk_the_tui_steps(demo, env)


def walk_the_tui_steps(demo, env):
    """Step 9 in a real pseudo-terminal, as far as the page says: open, filter `run:prod hr-07`, open the query.
    Only whole-screen changes are matched (a screen drawn afresh); a key that redraws part of one writes only
    the cells that changed, so its words may reach the terminal in pieces."""
    app = PtyApp([str(REPO / ".venv" / "bin" / "workbench"), "open", str(demo)],
                 {**{k: v for k, v in env.items() if k != "NEARMISS_KEYMAP"}, "TERM": "xterm-256color",
                  "HOME": str(demo.parent)}, cwd=str(REPO))  # the default keys: no keymap of the user's
    try:
        assert app.read_until(b"hr-07"), app.out[-2000:]
        app.send("/")
        app.send("run:prod hr-07")
        app.send("\r")
        mark = len(app.out)
        # the list's first row is the one query the filter keeps (an Enter typed while the list is read
        # waits for it); the inspector draws a whole screen, its head the query's id and text
        app.send("\r")
        # the inspector's own tab (the list's legend says "verdicts": no sign the inspector is up), drawn
        # in the frame that draws its head: hr-07 and its text, the one query the filter kept
        assert app.read_until(b"Near misses", after=mark), app.out[-2000:]
        assert b"Gisel" in app.out[mark:] and b"hr-07" in app.out[mark:], app.out[-2000:]
        mark = len(app.out)
        app.send("\x1b")  # back to the list, then quit (apart: ESC q together would read as alt+q)
        assert app.read_until(b"Sweeps", after=mark), app.out[-2000:]  # the main screen's tabs again
        app.send("q")
        app.close()  # how fast it quits is the TUI's tests' business (tests/tui/), not this page's
    finally:
        app.kill()


@pytest.mark.llm
@pytest.mark.slow
def test_the_whole_tutorial_runs_with_the_local_model(sample_project, tmp_path):
    env = demo_home(sample_project, tmp_path)
    done = run_script(BLOCKS, env, timeout=1200)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout + done.stderr
    assert "model:local:oracle" in out  # the oracle answer was asked for and stored
    assert "ACCESS? 0 provisional" in out  # and it settled hr-07's provisional verdict
