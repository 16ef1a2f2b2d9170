"""The HTML report in a real browser (headless Chromium; .ci/run installs it): it loads with no
console error and no network request, data text containing `<script>` shows as text, and a
screenshot is taken. Plus the escaping of every format without a browser."""

from __future__ import annotations

import json
import shutil

import pytest

from support import diagnosis as ds
from support.browser import chromium_path, load_page
from workbench.access.ladder import load_tiers
from workbench.project.load import load_project
from workbench.report import build_report, render

EVIL_ANSWER = "<script>alert('answer')</script>\x1b[31mred"


@pytest.fixture(scope="module")
def report_root(tmp_path_factory):
    root = ds.make_project(tmp_path_factory.mktemp("report") / "tiny")
    ds.fill(root)
    p = load_project(root)
    for tier in load_tiers(p).tiers:  # q1 fails first on `shared`: its answer is the one shown
        if tier.kind != "base":
            ds.store_answers(p, tier, "rag", {**ds.RAG["full"], "q1": (EVIL_ANSWER, [3, 2])})
    return root


@pytest.fixture(scope="module")
def report(report_root):
    p = load_project(report_root)
    return build_report(p, load_tiers(p).tiers, seed=0)


def test_html_escapes_documents_answers_and_project_name(report):
    page = render(report, "html").decode()
    assert "<script" not in page.lower()
    assert "Berlin &lt;script&gt;alert(&#x27;pwned&#x27;)&lt;/script&gt;" in page
    assert "&lt;script&gt;alert(&#x27;answer&#x27;)&lt;/script&gt;␛[31mred" in page
    assert "tiny &lt;b&gt;diag&lt;/b&gt;" in page and "<b>diag</b>" not in page
    assert "\x1b" not in page and "\x07" not in page
    assert 'http-equiv="Content-Security-Policy"' in page and "default-src 'none'" in page
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in page


def test_markdown_and_json_escape_too(report):
    md = render(report, "md").decode()
    assert "<script" not in md and "&lt;script&gt;alert('answer')&lt;/script&gt;␛\\[31mred" in md
    assert "\x1b" not in md
    doc = json.loads(render(report, "json"))
    q1 = next(q for q in doc["queries"] if q["query_id"] == "q1")
    full = next(v for v in q1["verdicts"]["hybrid+local"] if v["level"] == "full")
    assert full["answer"]["answer"] == EVIL_ANSWER  # JSON keeps the data as data (encoded, never markup)
    assert doc["provenance"]["corpus_hash"] and doc["provenance"]["seeds"] == {"ladder": 7, "bootstrap": 0}


def test_report_is_reproducible(report_root, report):
    p = load_project(report_root)
    again = build_report(p, load_tiers(p).tiers, seed=0)
    assert render(again, "html") == render(report, "html") and render(again, "json") == render(report, "json")


@pytest.mark.skipif(chromium_path() is None, reason="chromium not installed (.ci/run installs it: apt-get install -y chromium)")
def test_html_report_in_headless_chromium(report, tmp_path):
    html_file = tmp_path / "report.html"
    html = render(report, "html")
    assert b"<details class=q" in html  # per-query sections collapsed: the page leads with what to do
    html_file.write_bytes(html)
    shot = tmp_path / "report.png"
    page = load_page(html_file, screenshot=shot)
    assert page.console == [] and page.exceptions == [] and page.log_errors == []
    assert page.requests == [html_file.resolve().as_uri()]  # the file itself, nothing else
    assert page.script_elements == 0
    assert "Berlin <script>alert('pwned')</script>" in page.text  # shown as text
    assert "<script>alert('answer')</script>" not in page.text  # inside a collapsed query section
    opened = tmp_path / "opened.html"  # the same page with its sections open: their data shown as text too
    opened.write_bytes(html.replace(b"<details class=q", b"<details open class=q"))
    assert "<script>alert('answer')</script>␛[31mred" in load_page(opened).text
    assert page.title == "Diagnosis: tiny <b>diag</b>"
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
    keep = report_screenshot_dir()
    if keep:
        shutil.copy(shot, keep / "report-tiny.png")


def report_screenshot_dir():
    import os
    from pathlib import Path

    d = os.environ.get("WORKBENCH_KEEP_SCREENSHOTS")
    return Path(d) if d else None
