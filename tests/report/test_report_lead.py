"""The report leads with what to do: the one next action with one batch command, the tiers with
nothing decided in one line, and "lifted"/"lowered" only where the paired test says so."""

from __future__ import annotations

import pytest

from support.browser import chromium_path, load_page
from workbench.access.ladder import load_tiers
from workbench.project.load import load_project


def test_a_fix_lifts_or_lowers_only_where_the_paired_test_says_so():
    from workbench.diagnosis.fix_effect import FixEffect, effect_line
    from workbench.inspection.movement import MovementCounts
    from workbench.stats import bootstrap_ci, paired_test

    before, after = [0.0, 1.0, 0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 0.0, 1.0, 0.0, 1.0]
    moves = MovementCounts(**{f: 0 for f in MovementCounts.__struct_fields__})
    weak = FixEffect("hybrid>rerank:x@50", "hybrid", "full", "FR@10", bootstrap_ci(before, 0, "a"), bootstrap_ci(after, 0, "b"),
                     paired_test(after, before, 0), moves, "")
    assert weak.test.p_value is not None and weak.test.p_value >= 0.05
    assert "no significant change to FR@10" in effect_line(weak) and "lifted" not in effect_line(weak)
    strong_after, strong_before = [1.0] * 40, [0.0] * 40
    strong = FixEffect("hybrid>rerank:x@50", "hybrid", "full", "FR@10", bootstrap_ci(strong_before, 0, "a"),
                       bootstrap_ci(strong_after, 0, "b"), paired_test(strong_after, strong_before, 0), moves, "")
    assert strong.test.p_value is not None and strong.test.p_value < 0.05
    assert effect_line(strong).startswith("hybrid>rerank:x@50 lifted FR@10 at full from")


def test_the_next_action_confirms_every_access_query_in_one_batch(sample_project):
    import shlex

    from workbench.report.build import build_report
    from workbench.report.markdown import report_markdown

    p = load_project(sample_project)
    tiers = load_tiers(p).tiers
    r = build_report(p, tiers, seed=0)
    pending = {q.query_id for q in r.queries for v in q.verdicts.get(r.primary or "", []) if v.verdict == "ACCESS?"}
    assert r.next_action is not None and r.next_action.calls == r.next_action.queries == len(pending) > 0
    argv = shlex.split(r.next_action.command)
    assert argv[:2] == ["workbench", "run"] and argv[argv.index("--task") + 1] == "oracle"
    assert set(argv[argv.index("--queries") + 1].split(",")) == pending
    covered = set()
    for name in argv[argv.index("--tiers") + 1].split(","):
        covered |= set(p.tier_query_ids(next(t for t in tiers if t.name == name)))
    assert pending <= covered  # one run reaches every ACCESS? query
    md = report_markdown(r)
    assert md.index("## Where the gold is lost") < md.index("**Next:**") < md.index("## Where access loses gold")
    assert "0 decided: too few" not in md  # rows with nothing decided: one line
    assert sum(line.startswith("Nothing decided yet on ") for line in md.splitlines()) == 1


def test_the_batch_states_its_time_from_the_models_stored_calls(tmp_path):
    """tests/support/diagnosis.py without q1's oracle: q1 is ACCESS? on full; the stored oracle calls took 0.1 s."""
    from support import diagnosis as ds
    from workbench.report.build import build_report

    root = ds.make_project(tmp_path / "tiny")
    ds.fill(root, oracle_queries=("q2", "q3"))
    p = load_project(root)
    r = build_report(p, load_tiers(p).tiers, seed=0)
    a = r.next_action
    assert a is not None and a.calls == 1 and "--queries q1" in a.command and "--model local" in a.command
    assert a.seconds is not None and abs(a.seconds - 0.1) < 1e-9 and "about 0 s on local" in a.text


# Each element's top and bottom in CSS pixels, from the page's top (null: not on the page).
FIRST_SCREEN_PROBE = """JSON.stringify(Object.fromEntries([
  ['funnel', [...document.querySelectorAll('h2')].find(e => e.textContent.startsWith('Where the gold is lost'))],
  ['funnel_table', document.querySelector('table.funnel')],
  ['next', document.querySelector('div.next')],
].map(([k, e]) => [k, e ? [e.getBoundingClientRect().top, e.getBoundingClientRect().bottom] : null])))"""


@pytest.mark.skipif(chromium_path() is None, reason="chromium not installed (.ci/run installs it: apt-get install -y chromium)")
def test_the_funnel_and_the_next_action_are_on_the_first_screen_at_1280x900(sample_project, tmp_path):
    import json
    import os
    import shutil

    from workbench.report import build_report, render

    p = load_project(sample_project)
    html_file = tmp_path / "diagnosis.html"
    html_file.write_bytes(render(build_report(p, load_tiers(p).tiers, seed=0), "html"))
    shot = tmp_path / "first-screen.png"
    page = load_page(html_file, screenshot=shot, width=1280, height=900, probe=FIRST_SCREEN_PROBE)
    where = json.loads(page.probe)
    assert all(where[k] is not None for k in ("funnel", "funnel_table", "next")), where
    assert where["funnel"][0] < where["funnel_table"][1] <= where["next"][0] < where["next"][1] <= 900, where
    assert "Where the gold is lost" in page.text and "Next:" in page.text
    if os.environ.get("WORKBENCH_KEEP_SCREENSHOTS"):
        shutil.copy(shot, os.environ["WORKBENCH_KEEP_SCREENSHOTS"] + "/report-sample-1280x900.png")
