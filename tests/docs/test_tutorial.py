"""Every command of the tutorial (docs/tutorial.md) runs as written, on the demo project, and prints the
figures the page quotes. The quick run leaves out the block that calls the local model (its first line
says so); the `llm` test runs the whole page, that block included."""

from __future__ import annotations

import pytest

from doc_blocks import demo_home, needs_model, run_script, shell_blocks
from support.paths import REPO

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


@pytest.mark.llm
@pytest.mark.slow
def test_the_whole_tutorial_runs_with_the_local_model(sample_project, tmp_path):
    env = demo_home(sample_project, tmp_path)
    done = run_script(BLOCKS, env, timeout=1200)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout + done.stderr
    assert "model:local:oracle" in out  # the oracle answer was asked for and stored
    assert "ACCESS? 0 provisional" in out  # and it settled hr-07's provisional verdict
