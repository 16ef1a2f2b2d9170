"""The report in a partial state (issue 19): with no model answer it leads with access (which
queries lose gold, at which level, to which near misses); with a few answers the verdicts stay
with a system that fits most tiers and figures from too few answers are counts; with all of them
the use side is decided. Stored results are hand-made (tests/support/diagnosis.py, K = 2):
q1 loses gold 1 to the Berlin document (#1) and Lyon (#2) on shared and full."""

from __future__ import annotations

import json

import msgspec
import pytest

from support import diagnosis as ds
from support.browser import chromium_path, load_page
from workbench.access.ladder import load_tiers
from workbench.llm.store import LLMRunStore
from workbench.project.load import load_project
from workbench.report import build_report, render


def _tiers(root):
    p = load_project(root)
    return p, load_tiers(p).tiers


@pytest.fixture(scope="module")
def rankings_only(tmp_path_factory):
    """Every tier ranked by hybrid; no model answer at all."""
    root = ds.make_project(tmp_path_factory.mktemp("partial") / "tiny")
    p, tiers = _tiers(root)
    for t in tiers:
        ds.store_ranking(p, t)
    return root


@pytest.fixture(scope="module")
def one_tui_answer(tmp_path_factory):
    """Rankings plus ONE answer: local's QA in context on base:geo, from the TUI (issue 19 item 4's state)."""
    root = ds.make_project(tmp_path_factory.mktemp("partial") / "tiny")
    p, tiers = _tiers(root)
    for t in tiers:
        ds.store_ranking(p, t)
    geo = next(t for t in tiers if t.name == "base:geo")
    ds.store_answers(p, geo, "qa", {"q1": ("Paris", list(geo.doc_ids))},
                     store=LLMRunStore(p, root=p.state_dir / "tui" / "q1", publish=False))
    return root


@pytest.fixture(scope="module")
def all_answers(tmp_path_factory):
    root = ds.make_project(tmp_path_factory.mktemp("partial") / "tiny")
    ds.fill(root)
    return root


def test_no_answer_leads_with_access_and_lists_the_queries_that_lose_gold(rankings_only):
    p, tiers = _tiers(rankings_only)
    report = build_report(p, tiers, seed=0)
    md = render(report, "md").decode()
    head = md.split("\n## ")[0]
    assert "Access (hybrid, K=2): 1 of 3 queries lose gold from the top 2" in head and "first lost at: shared 1" in head
    assert "no model answer stored yet" in head
    assert "| undecided |" not in md and "undecided" not in head and "is balanced" not in md  # no reading from zero decided verdicts
    section = md.split("## Where access loses gold (hybrid, K=2; no model needed)")[1].split("\n## ")[0]
    assert "| shared | 1 | 3 |" in section and "| full | 1 | 3 |" in section and "| base | 0 | 3 |" in section
    assert "### `q1` — loses gold at `shared` (tier `shared`) — **ACCESS?**" in section
    assert "gold 1 at #3 (top 2); lost on: shared, full" in section
    assert f"Confirm: `workbench run {p.root}" in section and "--task oracle --tiers shared --queries q1` (inspector key o)" in section
    assert "| #1 | 3 Berlin &lt;script&gt;" in section and "| 1989, 0, Berlin, Germany, Wall | 1889, Paris, France, Eiffel, Tower |" in section
    assert "| #2 | 2 Lyon | 1 Paris |" in section
    af = report.access_first
    assert af is not None and [x.query_id for x in af.lost] == ["q1"] and af.lost[0].levels_lost == ["shared", "full"]
    assert "_No model answer stored yet._" in md


def test_no_answer_html_headline_and_strip_show_provisional_access(rankings_only):
    p, tiers = _tiers(rankings_only)
    page = render(build_report(p, tiers, seed=0), "html").decode()
    headline = page.split('<p class=headline>')[1].split("</p>")[0]
    assert headline.startswith("<b>Access (hybrid, K=2): 1 of 3 queries lose gold")
    assert "2 provisional ACCESS?" in headline and "too few decided for a reading" in headline
    assert page.index("Where access loses gold") < page.index("Verdict per query and tier")
    assert "q1 @ shared: ACCESS? (" in page and 'fill="#ffb74d"' in page  # the strip's provisional cells
    assert "no use curve yet: no model answer stored" in page and 'aria-label="use"' not in page
    assert "<td class=l><b>undecided</b>" not in page


def test_a_few_answers_keep_the_verdicts_on_a_system_that_fits_most_tiers(one_tui_answer):
    """One TUI answer of local's long-context QA must not make `local` (answering 1 tier of 4) the
    report's system, and its single answer is a count, never a rate or a curve."""
    p, tiers = _tiers(one_tui_answer)
    report = build_report(p, tiers, seed=0)
    assert report.primary == "hybrid+local"
    md = render(report, "md").decode()
    head = md.split("\n## ")[0]
    assert "Verdicts of hybrid → local (retrieve-then-read)" in head and "local is" not in head
    assert "Use: 1 model answer stored; 1 figure from fewer than 5 answers shown as counts, not rates." in head
    assert "| base | local QA in context | 1 | 1 of 1 right |" in md
    assert "## Failing queries (0 decided, system hybrid+local)" in md
    page = render(report, "html").decode()
    assert 'aria-label="use"' not in page  # no curve from one answer
    assert "every level has fewer than 5 answers" in page and "<li>local QA in context at base: 1 of 1 right</li>" in page
    assert "local QA in context accuracy" not in page  # nor a turn


def test_all_answers_decide_the_use_side_and_keep_access_first(all_answers):
    p, tiers = _tiers(all_answers)
    report = build_report(p, tiers, seed=0)
    assert report.primary == "hybrid+local"
    md = render(report, "md").decode()
    head = md.split("\n## ")[0]
    assert "provisional" not in head and "reading: " in head and "Recommendations, in order:" in md
    assert "### `q1` — loses gold at `shared` (tier `shared`) — **ACCESS**" in md  # confirmed by the oracle answer
    failing = md.split("## Failing queries (")[1]
    assert failing.startswith("3 decided, system hybrid+local)")
    # figures from 2-3 answers are counts; with a lower minimum the same figures are rates and curves
    assert "1 of 3 right" in md or "2 of 3 right" in md
    lower = msgspec.structs.replace(report, min_answers=2)
    assert 'aria-label="use"' in render(lower, "html").decode()
    assert 'aria-label="use"' not in render(report, "html").decode()


def test_json_carries_the_access_first_figures(rankings_only):
    p, tiers = _tiers(rankings_only)
    doc = json.loads(render(build_report(p, tiers, seed=0), "json"))
    assert doc["access_first"]["system"] == "hybrid" and doc["min_answers"] == 5
    assert [(x["level"], x["lost"], x["of"]) for x in doc["access_first"]["levels"]] == [("base", 0, 3), ("shared", 1, 3), ("full", 1, 3)]
    assert doc["access_first"]["lost"][0]["distractors"][0]["doc_id"] == 3


def test_the_sample_corpus_before_any_model_ran(sample_project):
    """The issue's state: the demo evaluated, no model run. The headline counts the queries that lose
    gold under hybrid, checked against the stored rankings read directly."""
    from workbench.access.runs import RunStore

    p, tiers = _tiers(sample_project)
    k = p.config.retrievers.k
    lost = set()
    for t in tiers:
        run = next(r for r in RunStore(p).runs(t) if r.system == "hybrid")
        for ranked in run.rankings:
            top = [h.doc_id for h in ranked.hits][:k]
            if any(g not in top for g in p.query(ranked.query_id).gold_doc_ids):
                lost.add(ranked.query_id)
    report = build_report(p, tiers, seed=0)
    assert report.primary == "hybrid" and len(report.access_first.lost) == len(lost) > 0
    md = render(report, "md").decode()
    assert md.split("\n## ")[0].count(f"Access (hybrid, K={k}): {len(lost)} of {len(p.queries)} queries lose gold") == 1
    assert "| undecided |" not in md and "is balanced" not in md


@pytest.mark.skipif(chromium_path() is None, reason="chromium not installed (.ci/run installs it: apt-get install -y chromium)")
def test_partial_report_in_headless_chromium(rankings_only, tmp_path):
    """Before any model ran: the first screen leads with access, and the page loads cleanly."""
    p, tiers = _tiers(rankings_only)
    html_file = tmp_path / "partial.html"
    html_file.write_bytes(render(build_report(p, tiers, seed=0), "html"))
    page = load_page(html_file, screenshot=tmp_path / "partial.png")
    assert page.console == [] and page.exceptions == [] and page.log_errors == []
    assert page.requests == [html_file.resolve().as_uri()] and page.script_elements == 0
    lines = [x for x in page.text.splitlines() if x.strip()]
    assert lines[0] == "Diagnosis: tiny <b>diag</b>"
    assert lines[2].startswith("Access (hybrid, K=2): 1 of 3 queries lose gold from the top 2")
    # what to do leads, right under the headline: the funnel, the next action; the sections follow
    funnel, access = lines.index("Where the gold is lost"), lines.index("Where access loses gold (hybrid, K=2; no model needed)")
    action = next(i for i, x in enumerate(lines) if x.startswith("Next: Confirm the 1 ACCESS? query of hybrid with the oracle"))
    assert funnel in (3, 4, 5) and funnel < action < access, lines[:20]
    assert lines[action + 1].startswith("workbench run ") and "--task oracle" in lines[action + 1]
    assert "Berlin <script>alert('pwned')</script>" in page.text
