"""The documentation's shell blocks, run as written (not a test): the fenced ```bash blocks of a page,
joined into one bash script (a reader runs them in one terminal, so a variable set by one block is used
by the next), run from the repository root against a private copy of the built demo project."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from support.paths import REPO

FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)  # top-level fences only (column 0)
MODEL_MARK = "# calls the local model"  # the first line of a block that needs the model server


def shell_blocks(page: Path) -> list[str]:
    return [body for lang, body in FENCE.findall(page.read_text(encoding="utf-8")) if lang == "bash"]


def needs_model(block: str) -> bool:
    return block.lstrip().startswith(MODEL_MARK)


def demo_home(sample_project: Path, tmp: Path) -> dict[str, str]:
    """The environment of a reader whose data folder holds the demo project already built: a copy of
    the suite's built sample corpus where `workbench demo` keeps its working copy
    ($XDG_DATA_HOME/nearmiss-workbench/demo), so `workbench demo --no-tui` reuses its indexes."""
    from workbench.project.demo import APP_NAME

    share = tmp / "share"
    shutil.copytree(sample_project, share / APP_NAME / "demo")
    (tmp / "tmp").mkdir()
    env = {**os.environ, "XDG_DATA_HOME": str(share), "TMPDIR": str(tmp / "tmp"), "COLUMNS": "200",
           "NO_COLOR": "1"}
    return env


def run_script(blocks: list[str], env: dict[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    script = "set -euo pipefail\n" + "\n".join(blocks)
    return subprocess.run(["bash", "-c", script], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=timeout)
