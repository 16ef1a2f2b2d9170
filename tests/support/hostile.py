"""A tiny project whose data tries to drive the terminal: escape sequences (window title, colours,
OSC 8 link, OSC 52 clipboard), bidi overrides and Rich markup in names, titles, texts and queries.
Used by the text-safety tests of the CLI and the TUI (issue 10)."""

from __future__ import annotations

from pathlib import Path

from support.llm_project import TINY_DOCS, TINY_QUERIES

from workbench.project.files import write_config, write_project_files
from workbench.records import Document, LadderConfig, ProjectConfig, Query

TITLE_SEQ = "\x1b]0;pwned\x07"  # sets the terminal window's title
OSC8 = "\x1b]8;;https://example.invalid\x07click\x1b]8;;\x07"
OSC52 = "\x1b]52;c;cHduZWQ=\x07"  # writes the clipboard
SGR = "\x1b[31mRED\x1b[0m"
MARKUP = "[blink]P[/][link=https://example.invalid]L[/link]"


def make_hostile_project(root: Path) -> Path:
    texts = {
        1: f"Paris is the capital of France. {TITLE_SEQ}{OSC8}{OSC52} {MARKUP} \u202eevil",
        # the hard negative repeats the question, so it outranks the gold document: a near miss to inspect
        3: f"What is the capital of France? Not Berlin, the capital of Germany. {SGR} {TITLE_SEQ}{OSC8}{OSC52} {MARKUP}",
    }
    docs = [Document(d.doc_id, f"{d.title} {SGR}" if d.doc_id == 1 else d.title, texts.get(d.doc_id, d.text), d.domain)
            for d in TINY_DOCS]
    queries = [Query(q.query_id, f"{q.query} {SGR}" if q.query_id == "q1" else q.query, q.answer, q.gold_doc_ids,
                     q.hard_negative_ids, q.domain, q.kind) for q in TINY_QUERIES]
    root.mkdir(parents=True, exist_ok=True)
    write_config(root, ProjectConfig(name=f"hostile {MARKUP}", ladder=LadderConfig(seed=7, base_budget=600, prompt_overhead=100)))
    write_project_files(root, docs, queries)
    return root
