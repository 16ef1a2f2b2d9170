"""The report as Markdown for a pull request: the document (builder.py) laid out by
render_markdown.py. `md` and `answer_line` are the one-query page's (query_page.py): data text
escaped (control characters made visible; Markdown and HTML specials backslash-escaped or
entity-encoded), never interpreted."""

from __future__ import annotations

from workbench.display import MISSING, fmt
from workbench.report.build import Report
from workbench.report.builder import build_document, decided_word, judge_mark
from workbench.report.render_markdown import render_markdown
from workbench.report.text import no_autolinks, shown

_MD_SPECIAL = {c: "\\" + c for c in "\\`*_[]|#"} | {"<": "&lt;", ">": "&gt;", "&": "&amp;"}


def md(text: object) -> str:
    """Data text, safe inside a Markdown paragraph or table cell."""
    return no_autolinks("".join(_MD_SPECIAL.get(c, c) for c in shown(text, one_line=True)))


def report_markdown(r: Report) -> str:
    return render_markdown(build_document(r))


def answer_line(name: str, a) -> str:
    if a is None:
        return f"- {name}: _not run_"
    judge = MISSING if a.judge_score is None else f"{a.judge_score:g}/5{judge_mark(a.judge_trusted)}"
    reason = f" — judge: “{md(a.judge_reason)}”" if a.judge_reason else ""
    if a.source == "tier run":
        src = ""
    elif a.run_queries:
        src = f"; {a.source}, {a.run_queries} quer{'y' if a.run_queries == 1 else 'ies'}"
    else:  # in no stored run (production's answer to a query without a reference answer): why
        src = f"; {a.source}: {md(a.basis)}"
    return (f"- {name}: “{md(a.answer)}” → **{decided_word(a)}** (judge {judge}; exact "
            f"{fmt(a.exact)}, contains {fmt(a.contains)}, F1 {a.f1:.2f}{src}){reason}")
