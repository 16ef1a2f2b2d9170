"""The README stays true: every command of its tour runs as written on the demo project, its links
point at files that exist, and it stays a landing page (at most 300 lines). The blocks of "The two
commands" are left out here: the set-up is what CI's `.ci/run` runs first, and the test command is
the one that runs this test."""

from __future__ import annotations

import re

from doc_blocks import demo_home, needs_model, run_script
from support.paths import REPO

README = REPO / "README.md"
TEXT = README.read_text(encoding="utf-8")


def tour_blocks() -> list[str]:
    tour = TEXT[TEXT.index("## A five-minute tour"):]
    tour = tour[:tour.index("\n## ", 1)]
    return [body for lang, body in re.findall(r"^```(\w*)\n(.*?)^```", tour, re.S | re.M) if lang == "bash"]


def test_the_readme_is_a_landing_page():
    assert len(TEXT.splitlines()) <= 300
    for section in ("## The two commands", "## A five-minute tour", "## The documentation"):
        assert section in TEXT, section


def test_the_two_commands_are_the_ones_ci_runs():
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "bash scripts/bootstrap.sh && .venv/bin/workbench demo\n" in TEXT
    assert ".venv/bin/python -m pytest\n" in TEXT
    assert "bash scripts/bootstrap.sh" in ci and ".venv/bin/python -m pytest" in ci


def test_every_link_of_the_readme_resolves():
    links = re.findall(r"\]\(([^)\s]+)\)", TEXT)
    assert len(links) >= 20
    missing = []
    for link in links:
        if "://" in link:
            continue
        path, _, anchor = link.partition("#")
        target = REPO / path
        if not target.is_file():
            missing.append(link)
        elif anchor and not any(_slug(h) == anchor for h in _headings(target)):
            missing.append(link)
    assert not missing, missing


def test_the_screenshot_is_one_textual_drew():
    svg = (REPO / "docs" / "images" / "tui-near-miss.svg").read_text(encoding="utf-8")
    assert svg.startswith('<svg class="rich-terminal"') and "Nearmiss" in svg


def test_every_command_of_the_tour_runs_as_written(sample_project, tmp_path):
    blocks = tour_blocks()
    assert len(blocks) >= 4 and not any(needs_model(b) for b in blocks)
    done = run_script(blocks, demo_home(sample_project, tmp_path), timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout + done.stderr
    for quoted in ("0.443 vs 0.801", "p = 0.0001", "A2: gold 503188 at run:prod #6", "vabri"):
        assert quoted in out, quoted


def _headings(page):
    return [line.lstrip("#").strip() for line in page.read_text(encoding="utf-8").splitlines() if line.startswith("#")]


def _slug(heading: str) -> str:  # Python-Markdown's toc slug (what the site's anchors and GitHub's agree on here)
    text = re.sub(r"[^\w\s-]", "", heading.replace("`", "")).strip().lower()
    return re.sub(r"[-\s]+", "-", text)
