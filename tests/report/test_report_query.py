"""One query's report has its own template (issue 19 item 12): per tier its verdict, every system's
rankings with the gold ranks, its near misses with their word diffs, its answers — Markdown and
HTML (checked in headless Chromium), written by `workbench report --queries ID` and by the TUI's
per-query export (session.export_report → report.export_reports with one query)."""

from __future__ import annotations

import json

import msgspec
import pytest
from click.testing import CliRunner

from support import diagnosis as ds
from support.browser import chromium_path, load_page
from workbench.access.ladder import load_tiers
from workbench.llm.store import LLMRunStore
from workbench.project.load import load_project
from workbench.report import build_query_page, export_reports, render


@pytest.fixture(scope="module")
def partial_root(tmp_path_factory):
    """Rankings on every tier; answers (rag and oracle) on `full` only."""
    root = ds.make_project(tmp_path_factory.mktemp("query") / "tiny")
    p = load_project(root)
    for t in load_tiers(p).tiers:
        ds.store_ranking(p, t)
        if t.name == "full":
            ds.store_answers(p, t, "rag", ds.RAG["full"])
            ds.store_answers(p, t, "oracle", {"q1": ("Paris", [1])})
    return root


def _page(root, query_id="q1"):
    p = load_project(root)
    return build_query_page(p, load_tiers(p).tiers, query_id, seed=0)


def test_query_page_has_rankings_per_tier_near_miss_diffs_and_answers(partial_root):
    page = _page(partial_root)
    assert [t.tier for t in page.tiers] == ["base:geo", "shared", "full"]  # the query's tiers, ladder order
    assert [t.shown for t in page.tiers] == ["NOT-YET", "ACCESS?", "ACCESS"]
    md = render(page, "md").decode()
    assert md.startswith("# Query `q1`: What is the capital of France?") and "# Diagnosis" not in md
    assert "- over the ladder: base:geo **NOT-YET** · shared **ACCESS?** · full **ACCESS**" in md
    full = md.split("## Tier `full` (level full, K=2) — **ACCESS**")[1]
    assert "| hybrid | #3 |" in full  # where the gold landed
    assert "| 1 | 3 | hard negative | Berlin &lt;script&gt;alert('pwned')&lt;/script&gt; |" in full
    # the near miss's word diff against the gold it imitates: changed words in bold
    assert "imitates gold 1 (Paris)" in full and "near miss has: 1989, 0, Berlin, Germany, Wall; gold has: 1889, Paris, France" in full
    assert "- retrieve-then-read (model:local:rag:hybrid@2): “Berlin” → **wrong**" in full
    assert "- oracle (gold only) (model:local:oracle): “Paris” → **right**" in full
    shared = md.split("## Tier `shared`")[1].split("## Tier")[0]
    assert f"Next: `workbench run {partial_root} --model local --task oracle --tiers shared --queries q1`" in shared
    assert "- _no model answer stored for this tier_" in shared
    assert "**Berlin** is the capital of **Germany**" in shared and "**Paris** is the capital of **France**" in shared
    assert "word diff: as at `shared` above" in full  # the same near miss's diff is written out once


def test_query_page_before_any_model_answer(partial_root, tmp_path):
    import shutil

    root = tmp_path / "tiny"
    shutil.copytree(partial_root, root)
    for f in (root / ".workbench" / "runs").rglob("llm/*.json"):
        f.unlink()
    page = _page(root)
    assert [t.shown for t in page.tiers] == ["NOT-YET", "ACCESS?", "ACCESS?"] and not any(t.answers for t in page.tiers)
    md = render(page, "md").decode()
    assert md.count("- _no model answer stored for this tier_") == 3 and "**Berlin**" in md


def test_export_reports_of_one_query_writes_its_own_template(partial_root, tmp_path):
    p = load_project(partial_root)
    tiers = [t for t in load_tiers(p).tiers if "q1" in t.query_ids]  # what session.tiers_for gives
    paths = export_reports(p, tiers, tmp_path / "out", {"q1"}, stem="report-q1")
    md, html, js = (x.read_text() for x in paths)
    assert md.startswith("# Query `q1`") and "<h1>Query q1: What is the capital of France?</h1>" in html
    assert "Near misses ranked above a gold document" in html and "<mark>Berlin</mark>" in html
    assert [q["query_id"] for q in json.loads(js)["queries"]] == ["q1"]  # JSON: the one-query report, as before


def test_the_tuis_per_query_export_writes_the_query_page(partial_root, tmp_path):
    from workbench import session as ws

    session, _ = ws.open_session(partial_root)
    paths = ws.export_report(session, tmp_path / "exports", "q1", formats=("md", "html"))
    assert [x.name for x in paths] == ["report-q1.md", "report-q1.html"]
    assert paths[0].read_text().startswith("# Query `q1`") and "Near misses ranked above a gold document" in paths[1].read_text()
    whole = ws.export_report(session, tmp_path / "exports", formats=("md",))
    assert whole[0].read_text().startswith("# Diagnosis: ")


def test_cli_report_of_one_query(partial_root):
    from workbench.cli import main

    r = CliRunner().invoke(main, ["report", str(partial_root), "--queries", "q2", "--format", "html"])
    assert r.exit_code == 0, r.output
    page = (partial_root / "reports" / "report-q2.html").read_text()
    assert "<h1>Query q2: Which fruit is in apple pie?</h1>" in page
    r = CliRunner().invoke(main, ["report", str(partial_root), "--queries", "q2", "-o", "-"])
    assert r.exit_code == 0 and r.output.startswith("# Query `q2`")


def test_a_completion_cut_by_the_length_cap_is_stated(partial_root, tmp_path, monkeypatch):
    """The report reads the stored answer's cap flag by name (build.CAP_FLAG); here a stand-in
    boolean field of the stored answer plays the flag."""
    import shutil

    from workbench.report import build

    root = tmp_path / "tiny"
    shutil.copytree(partial_root, root)
    p = load_project(root)
    full = next(t for t in load_tiers(p).tiers if t.name == "full")
    store = LLMRunStore(p)
    run = store.load("model:local:rag:hybrid@2", "full")
    store.save(msgspec.structs.replace(run, qa=[msgspec.structs.replace(x, cached=x.query_id == "q1") for x in run.qa]))
    monkeypatch.setattr(build, "CAP_FLAG", "cached")
    md = render(_page(root), "md").decode()
    assert "“Berlin” → **wrong**" in md and "— **cut by the length cap**" in md.split("## Tier `full`")[1]
    whole = render(build.build_report(p, [full], seed=0), "md").decode()
    assert "**1 stored completion(s) were cut by the length cap** (their answers are the cut text): q1 (model:local:rag:hybrid@2 on full)" in whole
    monkeypatch.undo()  # the flag's real name (the use side's `cut`): no stored answer is cut here
    assert "length cap" not in render(_page(root), "md").decode()


@pytest.mark.skipif(chromium_path() is None, reason="chromium not installed (.ci/run installs it: apt-get install -y chromium)")
def test_query_page_in_headless_chromium(partial_root, tmp_path):
    html_file = tmp_path / "q1.html"
    html_file.write_bytes(render(_page(partial_root), "html"))
    shot = tmp_path / "q1.png"
    page = load_page(html_file, screenshot=shot)
    assert page.console == [] and page.exceptions == [] and page.log_errors == []
    assert page.requests == [html_file.resolve().as_uri()] and page.script_elements == 0
    assert page.title == "Query q1: tiny <b>diag</b>"
    text = page.text
    assert "Berlin <script>alert('pwned')</script>" in text  # data shown as text
    assert text.index("base:geo") < text.index("shared") < text.index("Near misses ranked above a gold document")
    assert "imitates gold 1 (Paris)" in text and "retrieve-then-read (model:local:rag:hybrid@2)" in text
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
