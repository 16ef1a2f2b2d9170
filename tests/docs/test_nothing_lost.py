"""Nothing the README said before the documentation site (issue 41) is lost: every heading of the old
README (frozen in data/old_readme_headings.txt) is a heading of README.md or of a page under docs/, and
every paragraph, list item, table row and code block of the old README (frozen in data/README-before-issue-41.md) is
there word for word (whitespace aside) — or, where a page had to reword it (a "see above" that now
points to another page), nearly so. A paragraph rewritten on purpose later is named in REWRITTEN."""

from __future__ import annotations

import difflib
import re

from support.paths import REPO

DATA = REPO / "tests" / "docs" / "data"
OLD = (DATA / "README-before-issue-41.md").read_text(encoding="utf-8")
REWRITTEN: dict[str, str] = {  # the old paragraph's first words -> why it no longer holds
    "- **The ceiling, measured**": "collect's firehose measured again (issue 38): docs/howto/collect.md",
    "``` firehose 2000 traces": "collect's firehose measured again (issue 38): docs/howto/collect.md",
    "Each import is handed only the traces that just became ready": "the ledger's growth fixed (issue 38): docs/howto/collect.md",
}


def pages() -> list:
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def headings(text: str) -> list[str]:
    out, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            out.append(line.lstrip("#").strip())
    return out


def paragraphs(text: str) -> list[str]:
    text = re.sub(r"\[([^\]]+)\]\([^)\s]+\)", r"\1", text)  # a link reads as its words
    units = []  # a paragraph, a list item or a table row: what a reader could miss
    for para in re.split(r"\n\s*\n", text):
        units += [" ".join(u.split()) for u in re.split(r"\n(?=\s*(?:- |\| ))", para) if u.strip()]
    return units


def nearly(old: str, new: str, at_least: float = 0.9) -> bool:
    """At least 90% the same characters in order (difflib's ratio), the cheap upper bounds first."""
    matcher = difflib.SequenceMatcher(None, new, old, autojunk=False)
    return (matcher.real_quick_ratio() >= at_least and matcher.quick_ratio() >= at_least
            and matcher.ratio() >= at_least)


def test_every_heading_of_the_old_readme_is_a_heading_now():
    old = [line.lstrip("#").strip() for line in (DATA / "old_readme_headings.txt").read_text().splitlines() if line]
    assert len(old) == 21 and old[0] == "Nearmiss Workbench"
    now = {h for page in pages() for h in headings(page.read_text(encoding="utf-8"))}
    assert [h for h in old if h not in now] == []


def test_every_paragraph_of_the_old_readme_is_on_a_page_now():
    new_paragraphs = [p for page in pages() for p in paragraphs(re.sub(r"(?m)^#+ ", "", page.read_text(encoding="utf-8")))]
    whole = "\n".join(new_paragraphs)
    lost = []
    for para in paragraphs(re.sub(r"(?m)^#+ ", "", OLD)):
        if para in whole or any(para.startswith(start) for start in REWRITTEN):
            continue
        if not any(nearly(para, p) for p in new_paragraphs):
            lost.append(para[:160])
    assert not lost, "\n".join(lost)
