"""Document text that holds escape sequences never drives the terminal (issue 10, security).

The app runs in a real pseudo-terminal; every byte it writes is collected. A window-title (OSC 0),
hyperlink (OSC 8), clipboard (OSC 52) or colour (SGR) sequence from the data must not be among
them; the same text must be on screen as visible characters (␛]0;pwned␇)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from support.hostile import make_hostile_project
from support.pty_run import PtyApp
from support.paths import REPO



@pytest.fixture(scope="module")
def hostile_evaluated(tmp_path_factory) -> Path:
    from workbench.access.evaluate import evaluate
    from workbench.access.indexing import build_indexes
    from workbench.access.ladder import write_ladder
    from workbench.project.load import load_project
    from workbench.access.retrievers import make_retrievers

    root = make_hostile_project(tmp_path_factory.mktemp("hostile") / "p")
    project = load_project(root)
    tiers = write_ladder(project).tiers
    build_indexes(project, tiers)
    evaluate(project, tiers, make_retrievers(project, ["bm25", "dense", "hybrid"]))
    return root


FORBIDDEN = {
    "window title (OSC 0)": b"\x1b]0;pwned",
    "hyperlink (OSC 8)": b"\x1b]8;;https://example.invalid",
    "clipboard (OSC 52)": b"\x1b]52;",
    "colour from the data (SGR)": b"\x1b[31mRED",
    "bidi override": "\u202e".encode(),
}


def test_escape_sequences_in_documents_reach_the_screen_as_text(hostile_evaluated, tmp_path):
    env = {**os.environ, "TERM": "xterm-256color", "HF_HUB_OFFLINE": "1", "HOME": str(tmp_path)}
    app = PtyApp([sys.executable, "-m", "workbench", "open", str(hostile_evaluated)], env, cwd=str(REPO))
    try:
        assert app.read_until("capital of France".encode()), app.out[-2000:]
        app.send("\r")  # open the first query (q1) in the inspector
        assert app.read_until(b"Berlin"), app.out[-2000:]
        app.send("2")  # its near misses: the hard negative's text beside the gold document's
        shown = app.read_until("␛]0;pwned␇".encode(), timeout=60)
        mark = len(app.out)
        app.send("\x1b")  # back to the query list, then quit (apart: ESC q together would read as alt+q)
        app.read_until(b"queries", timeout=30, after=mark)
        app.send("q")
        app.close()
    finally:
        app.kill()
    out = bytes(app.out)
    leaked = [name for name, seq in FORBIDDEN.items() if seq in out]
    assert not leaked, leaked
    assert shown, "the near-miss view did not show the document's escape sequence as text"
    assert "[link=https://example.invalid]L[/link]".encode() in out  # markup drawn as text
