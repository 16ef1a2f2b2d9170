"""The documentation site builds: `mkdocs build --strict` (a broken link, a broken anchor or a page left
out of the navigation fails it), and its navigation holds the parts issue 41 asks for."""

from __future__ import annotations

import os
import subprocess
import sys

import yaml

from support.paths import REPO


def nav_pages() -> list[str]:
    def walk(items):
        for item in items:
            for value in item.values() if isinstance(item, dict) else [item]:
                yield from walk(value) if isinstance(value, list) else [value]
    return list(walk(yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]))


def test_mkdocs_build_strict_passes(tmp_path):
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    assert (tmp_path / "site" / "tutorial" / "index.html").is_file()
    assert (tmp_path / "site" / "cli" / "index.html").is_file()


def test_the_navigation_has_every_part_the_site_promises():
    pages = nav_pages()
    for page in ("tutorial.md", "cli.md", "METHOD.md", "ARCHITECTURE.md", "howto/libraries.md", "howto/collect.md",
                 "howto/try-a-fix.md", "howto/sweeps.md", "howto/scale.md", "reference/project-format.md",
                 "reference/verdicts.md", "reference/metrics.md"):
        assert page in pages, page
    on_disk = {p.relative_to(REPO / "docs").as_posix() for p in (REPO / "docs").rglob("*.md")}
    assert on_disk == set(pages)  # every page is in the navigation, every entry is a page


def test_each_library_has_its_how_to():
    text = (REPO / "docs" / "howto" / "libraries.md").read_text(encoding="utf-8")
    for library in ("LangChain", "LlamaIndex", "OpenLLMetry", "OpenTelemetry GenAI", "Haystack", "DSPy", "OpenLIT",
                    "Langfuse", "Phoenix"):
        assert f"\n## {library}" in text or f"\n## Arize {library}" in text, library
