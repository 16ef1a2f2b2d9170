"""The diagnosis over stored results: verdicts per query and tier, TUI runs seen, readings, compare, CLI."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from support import diagnosis as ds
from workbench.diagnosis.verdicts import VerdictReader, read_verdicts
from workbench.access.ladder import load_tiers
from workbench.llm.store import LLMRunStore
from workbench.project.load import load_project


@pytest.fixture(scope="module")
def diag_root(tmp_path_factory):
    root = ds.make_project(tmp_path_factory.mktemp("diag") / "tiny")
    ds.fill(root)
    return root


@pytest.fixture
def diag_copy(diag_root, tmp_path):
    dst = tmp_path / "tiny"
    shutil.copytree(diag_root, dst)
    return dst


def _verdicts(root, system="hybrid+local"):
    p = load_project(root)
    qv = read_verdicts(p, load_tiers(p).tiers)
    return qv, {(v.query_id, v.level): v for v in qv.of(system)}


def test_verdicts_on_the_ladder(diag_root):
    qv, v = _verdicts(diag_root)
    assert qv.primary == "hybrid+local" and qv.levels[0] == "base" and qv.levels[-1] == "full"
    assert v[("q1", "base")].verdict == "PASS"
    assert (v[("q1", "full")].verdict, v[("q1", "full")].rule) == ("ACCESS", "A1")
    assert v[("q1", "full")].because.startswith("gold 1 at hybrid #3 > K=2; oracle answer right")
    assert v[("q2", "full")].verdict == "USE-UNDER-DISTRACTORS"
    assert v[("q3", "full")].verdict == "USE"
    # first failing tier per system
    assert qv.first_failing("hybrid+local", "q1").level != "base"
    assert qv.first_failing("hybrid+local", "q2").level == "base"


def test_uncalibrated_judge_does_not_decide(diag_root):
    _, v = _verdicts(diag_root)
    a = v[("q2", "full")].answer
    assert a.judge_score == 5.0 and a.judge_trusted is False and not a.correct
    assert "failed calibration: decided on the deterministic match" in a.basis
    assert (a.exact, a.contains, a.f1) == (False, False, 0.0)


def test_calibrated_judge_decides(diag_copy):
    ds.calibrate(load_project(diag_copy), separates=True)
    _, v = _verdicts(diag_copy)
    assert v[("q2", "full")].verdict == "PASS"  # the judge (now trusted) gave "cherries" 5/5


def test_missing_oracle_is_a_provisional_access_failure_with_the_command_and_key(diag_copy):
    p = load_project(diag_copy)
    for tier in load_tiers(p).tiers:
        LLMRunStore(p).path("model:local:oracle", tier.name).unlink()
    _, v = _verdicts(diag_copy)
    q1 = v[("q1", "full")]
    assert (q1.verdict, q1.rule) == ("ACCESS?", "A2")
    assert "oracle" in q1.missing and q1.key == "o"
    assert "--task oracle" in q1.command and "--queries q1" in q1.command and "--tiers full" in q1.command
    assert v[("q3", "full")].rule == "U2"  # gold reached, answer wrong, no oracle


def test_a_tui_run_fills_a_gap_and_says_how_many_queries_it_covers(diag_copy):
    p = load_project(diag_copy)
    full = next(t for t in load_tiers(p).tiers if t.name == "full")
    LLMRunStore(p).path("model:local:oracle", "full").unlink()
    scratch = LLMRunStore(p, root=p.state_dir / "tui" / "q1", publish=False)
    ds.store_answers(p, full, "oracle", {"q1": ("Paris", [1])}, store=scratch)
    _, v = _verdicts(diag_copy)
    q1 = v[("q1", "full")]
    assert q1.verdict == "ACCESS" and q1.oracle.source == "TUI run" and q1.oracle.run_queries == 1
    assert v[("q3", "full")].oracle is None  # the TUI run covered q1 only


def test_no_model_runs_gives_access_only_systems(diag_copy):
    p = load_project(diag_copy)
    shutil.rmtree(p.state_dir / "runs" / "full" / "llm")
    full = [t for t in load_tiers(p).tiers if t.name == "full"]
    qv = read_verdicts(p, full)
    assert [s.name for s in qv.systems] == ["hybrid"]
    assert {v.query_id: v.rule for v in qv.verdicts} == {"q1": "A2", "q2": "N4", "q3": "N4"}
    q1 = next(v for v in qv.verdicts if v.query_id == "q1")
    assert q1.verdict == "ACCESS?" and "gold 1 at hybrid #3 > K=2" in q1.because and "--task oracle" in q1.command


def test_reading_and_recommendations(diag_root):
    from collections import Counter

    from workbench.diagnosis.overview import ACCESS_FIXES, overview, reading_of
    from workbench.project.settings import MIN_DECIDED

    p = load_project(diag_root)
    tiers = load_tiers(p).tiers
    c = VerdictReader(p)
    qv = read_verdicts(p, tiers, collector=c)
    ov = overview(p, tiers, qv, c, seed=0)
    full = next(r for r in ov.readings if r.system == "hybrid+local" and r.level == "full")
    assert full.counts == {"ACCESS": 1, "USE": 1, "USE-UNDER-DISTRACTORS": 1}
    # three decided verdicts: no reading (the one rule, settings.reading_given, as the report says)
    assert full.reading == "too few decided" and f"fewer than {MIN_DECIDED} decided" in full.rule
    # too few for a reading, but access loses gold (ACCESS 1): the access fixes stay (issue 40)
    assert full.recommendations == ACCESS_FIXES
    more = reading_of(Counter({"ACCESS": 2, "USE": 3, "USE-UNDER-DISTRACTORS": 2}), "hybrid+local", "full", True)
    assert more.decided == 7 and more.reading == "use-bound" and "U ≥ 2·A" in more.rule
    # use-bound, yet two queries lose gold: the access fixes come first (the method's order), then use's
    assert more.recommendations[:3] == ACCESS_FIXES and more.recommendations[3].startswith("prompting")
    edge = reading_of(Counter({"ACCESS": MIN_DECIDED - 1, "NOT-YET": 9}), "hybrid", "full", False)
    assert edge.reading == "too few decided"
    assert reading_of(Counter({"ACCESS": MIN_DECIDED}), "hybrid", "full", False).reading == "retrieval-bound"
    access = {(a.system, a.level): a for a in ov.access}
    assert access[("hybrid", "full")].sr.mean == pytest.approx(2 / 3) and access[("hybrid", "full")].n == 3
    assert access[("hybrid", "full")].gap.mean == 0.0  # q3: both gold in the top 2
    assert ov == overview(p, tiers, qv, c, seed=0)  # seeded: the same numbers again


def test_compare_two_rankers_and_two_levels(diag_copy):
    from workbench.diagnosis.compare import CompareError, compare

    p = load_project(diag_copy)
    tiers = load_tiers(p).tiers
    for t in tiers:  # bm25 finds q1's gold on every tier
        ds.store_ranking(p, t, "bm25", {"q1": [1, 3, 2], "q2": [4, 6, 5], "q3": [4, 6, 5]})
    c = compare(p, tiers, "bm25", "hybrid")
    assert c.metric == "SR@2" and c.test.wins >= 1 and c.test.losses == 0
    assert "randomization" in c.test.method and 0 < c.test.p_value <= 1
    by_level = compare(p, tiers, "hybrid+local@base", "hybrid+local@full")
    assert (by_level.test.wins, by_level.test.losses) == (1, 0)  # q1 passes on base only
    with pytest.raises(CompareError):
        compare(p, tiers, "bm25", "hybrid+local")
    with pytest.raises(CompareError):
        compare(p, tiers, "nope", "hybrid")


def test_cli_diagnose_report_compare(diag_root, tmp_path):
    from workbench.cli import main

    runner = CliRunner()
    r = runner.invoke(main, ["diagnose", str(diag_root), "--tiers", "full"])
    assert r.exit_code == 0, r.output
    assert "ACCESS" in r.output and "A1:" in r.output and "USE-UNDER-DISTRACTORS" in r.output
    r = runner.invoke(main, ["diagnose", str(diag_root), "--json"])
    doc = json.loads(r.output)
    assert {v["verdict"] for v in doc["verdicts"]} >= {"PASS", "ACCESS", "USE", "USE-UNDER-DISTRACTORS"}
    for fmt in ("md", "html", "json"):
        out = tmp_path / f"r.{fmt}"
        r = runner.invoke(main, ["report", str(diag_root), "--format", fmt, "-o", str(out)])
        assert r.exit_code == 0, r.output
        assert out.stat().st_size > 500
    r = runner.invoke(main, ["compare", str(diag_root), "hybrid+local@base", "hybrid+local@full"])
    assert r.exit_code == 0 and "wins 1, loses 0" in r.output
    r = runner.invoke(main, ["report", str(diag_root), "--queries", "nope"])
    assert r.exit_code == 2 and "unknown query id" in r.output


def test_live_diagnosis_updates_one_query_when_a_tui_run_lands(diag_copy):
    from workbench.diagnosis.live import LiveDiagnosis

    p = load_project(diag_copy)
    tiers = load_tiers(p).tiers
    for t in tiers:
        LLMRunStore(p).path("model:local:oracle", t.name).unlink()
    live = LiveDiagnosis(p, tiers)
    # no failure decided yet: the list leads with what access shows (a provisional ACCESS? above a PASS)
    assert (live.summary("q1").verdict, live.summary("q1").tier) == ("ACCESS?", "shared")
    assert live.matches("q1", "access?") and live.matches("q1", "lost") and not live.matches("q1", "fail")
    line = live.line("q1", "shared")
    assert line.startswith("ACCESS? at shared") and "gold 1 at hybrid #3 > K=2" in line
    assert "missing the oracle answer" in line and "--task oracle" in line
    assert live.matches("q2", "use") and not live.matches("q2", "access")  # q2: U2 (no oracle)
    full = next(t for t in tiers if t.name == "shared")
    ds.store_answers(p, full, "oracle", {"q1": ("Paris", [1])}, store=LLMRunStore(p, root=p.state_dir / "tui" / "q1", publish=False))
    live.update_query("q1")
    assert live.summary("q1").verdict == "ACCESS" and live.summary("q1").tier == "shared"
    assert live.matches("q1", "access") and live.matches("q1", "fail") and not live.matches("q1", "nonsense")
    assert live.line("q1").startswith("ACCESS at shared (hybrid+local, rule A1): gold 1 at hybrid #3 > K=2")


def test_a_tier_too_large_for_the_model_says_so_instead_of_a_command(diag_copy):
    import msgspec

    p = load_project(diag_copy)
    full = next(t for t in load_tiers(p).tiers if t.name == "full")
    store = LLMRunStore(p)
    store.path("model:local:oracle", "full").unlink()
    run = ds.store_answers(p, full, "oracle", {})
    store.save(msgspec.structs.replace(run, fits=False, input_tokens=9000, budget_tokens=7372, qa=[]))
    _, v = _verdicts(diag_copy)
    q1 = v[("q1", "full")]
    assert q1.verdict == "ACCESS?" and q1.key == ""
    assert q1.command == ("oracle does not fit local's window on full (9000 > 7372 tokens); it fits on base:food, base:geo, "
                          "shared: use a model with a larger window")


def test_a_tier_with_nothing_stored_is_named_not_listed(diag_copy):
    p = load_project(diag_copy)
    shutil.rmtree(p.state_dir / "runs" / "shared")
    qv, v = _verdicts(diag_copy)
    assert qv.empty_tiers == ["shared"] and "shared" not in qv.levels
    assert not [x for x in v if x[1] == "shared"]


def test_export_reports_and_check_stored(diag_root, tmp_path):
    from workbench.llm.answers import check_stored
    from workbench.report import export_reports

    p = load_project(diag_root)
    tiers = load_tiers(p).tiers
    paths = export_reports(p, tiers, tmp_path / "out", {"q1"}, stem="report-q1")
    assert [x.name for x in paths] == ["report-q1.md", "report-q1.html", "report-q1.json"]
    doc = json.loads(paths[2].read_text())
    assert [q["query_id"] for q in doc["queries"]] == ["q1"]
    run = LLMRunStore(p).load("model:local:oracle", "full")
    c = check_stored(p, run, "q3")
    assert c is not None and not c.correct and c.judge_trusted is False and c.answer == "pears"
    assert check_stored(p, run, "nope") is None


def test_eval_use_rows_show_f1_and_tui_runs_with_their_query_count(diag_copy):
    from workbench.llm.figures import use_rows

    p = load_project(diag_copy)
    full = next(t for t in load_tiers(p).tiers if t.name == "full")
    for q, answer in (("q1", "Paris"), ("q2", "apples")):
        ds.store_answers(p, full, "qa", {q: (answer, full.doc_ids)}, store=LLMRunStore(p, root=p.state_dir / "tui" / q, publish=False))
    rows = use_rows(p, [full])["full"]
    assert rows["model:local:oracle"].F1 == pytest.approx(2 / 3)  # "Paris", "apples" right; "pears" 0
    assert rows["model:local:rag:hybrid@2"].F1 == 0.0
    tui = rows["model:local:qa [TUI, 2 queries]"]
    assert tui.n == 2 and tui.F1 == 1.0 and tui.judge_ok is False
    assert "model:local:qa" not in rows  # no full-tier QA run: the TUI's stays labelled as such


def test_a_query_set_version_is_diagnosed_on_its_own_labels(diag_copy):
    """diagnose, report and compare take --queries-version. A query the version relabels does not
    use the original's oracle and rag answers (their context came from the old labels) until the
    version has a run of its own, stored apart; a query it leaves out is not listed; every output
    names the version."""
    import msgspec

    from workbench.cli import main
    from workbench.llm.store import store_for
    from workbench.project.versions import write_version

    p = load_project(diag_copy)
    q3 = p.query("q3")
    promoted = msgspec.structs.replace(q3, gold_doc_ids=[4, 5, 6], hard_negative_ids=[])  # 5 was a false negative
    write_version(p, [p.query("q2"), promoted], [], made_by="test", name="v", excluded={"q1": "conflict"})
    pv = load_project(diag_copy, "v")

    def verdicts():
        qv = read_verdicts(pv, load_tiers(pv).tiers)
        return {(x.query_id, x.level): x for x in qv.of("hybrid+local")}

    v = verdicts()
    assert {q for q, _ in v} == {"q2", "q3"}
    assert v[("q2", "full")].verdict == "USE-UNDER-DISTRACTORS"  # labels unchanged: the original's answers count
    q3_full = v[("q3", "full")]
    assert q3_full.verdict == "ACCESS?" and q3_full.oracle is None
    assert "--task oracle" in q3_full.command and "--queries-version v" in q3_full.command

    from workbench.llm.figures import use_rows

    full = next(t for t in load_tiers(pv).tiers if t.name == "full")
    assert use_rows(pv, [full])["full"]["model:local:oracle"].n == 1  # q2 only: q1 left out, q3's answer is stale
    original_oracle = LLMRunStore(p).path("model:local:oracle", "full").read_bytes()
    for tier in load_tiers(pv).tiers:
        ds.store_answers(pv, tier, "oracle", {"q3": ("apple pie and cherry pie", [4, 5, 6])}, store=store_for(pv, "oracle"))
    assert LLMRunStore(p).path("model:local:oracle", "full").read_bytes() == original_oracle
    assert use_rows(pv, [full])["full"]["model:local:oracle"].n == 2  # q2 from the original's run, q3 from the version's
    assert use_rows(p, [full])["full"]["model:local:oracle"].n == 3
    oracle = verdicts()[("q3", "full")].oracle
    assert oracle is not None and oracle.correct and oracle.source == "version run"
    assert _verdicts(diag_copy)[1][("q3", "full")].oracle.answer == ds.ORACLE["q3"]  # the original still reads its own

    runner = CliRunner()
    r = runner.invoke(main, ["diagnose", str(diag_copy), "--queries-version", "v", "--tiers", "full"])
    assert r.exit_code == 0, r.output
    assert "queries v" in r.output and "q1" not in r.output.split("rule and facts")[1]
    r = runner.invoke(main, ["report", str(diag_copy), "--queries-version", "v"])
    assert r.exit_code == 0, r.output
    assert "Queries: version `v` (2 queries)" in (diag_copy / "reports" / "diagnosis-v.md").read_text()
    r = runner.invoke(main, ["compare", str(diag_copy), "hybrid", "hybrid", "--against-version", "v", "--json"])
    assert r.exit_code == 0, r.output
    c = json.loads(r.output)
    assert (c["a"], c["b"]) == ("hybrid [original]", "hybrid [v]")
    assert {q for q, *_ in c["pairs"]} == {"q2", "q3"}  # the queries both versions keep


def test_tui_runs_under_a_version_keep_label_dependent_answers_apart(diag_copy):
    """A TUI oracle run made under a version is that version's (its folder, counted there, unseen
    by the original); label-independent TUI runs stay in the shared folder every version reads."""
    import msgspec

    from workbench.llm.store import tui_root
    from workbench.project.versions import write_version

    p = load_project(diag_copy)
    for tier in load_tiers(p).tiers:
        LLMRunStore(p).path("model:local:oracle", tier.name).unlink()
    q3 = p.query("q3")
    write_version(p, [p.query("q1"), p.query("q2"), msgspec.structs.replace(q3, gold_doc_ids=[4, 5, 6], hard_negative_ids=[])],
                  [], made_by="test", name="v")
    pv = load_project(diag_copy, "v")
    assert tui_root(pv, "q3", "qa") == tui_root(p, "q3", "qa") == tui_root(p, "q3", "oracle")
    assert tui_root(pv, "q3", "oracle") != tui_root(p, "q3", "oracle")
    full = next(t for t in load_tiers(pv).tiers if t.name == "full")
    store = LLMRunStore(pv, root=tui_root(pv, "q3", "oracle"), publish=False)
    ds.store_answers(pv, full, "oracle", {"q3": ("apple pie and cherry pie", [4, 5, 6])}, store=store)
    under_v = {(x.query_id, x.level): x for x in read_verdicts(pv, [full]).of("hybrid+local")}
    assert under_v[("q3", "full")].oracle.source == "version TUI run"
    assert _verdicts(diag_copy)[1][("q3", "full")].oracle is None  # the original never sees it


def test_answers_stay_in_use_after_an_unrelated_label_version(diag_copy):
    """Issue 19 item 5: answers made under labels-1 for queries that labels-2 did not relabel count
    under labels-2; an answer of a query whose labels changed does not count for the new labels."""
    import msgspec

    from workbench.llm.store import tui_root
    from workbench.project.versions import write_version

    p = load_project(diag_copy)
    for t in load_tiers(p).tiers:
        LLMRunStore(p).path("model:local:oracle", t.name).unlink()
    q3 = msgspec.structs.replace(p.query("q3"), gold_doc_ids=[4, 5, 6], hard_negative_ids=[])
    write_version(p, [p.query("q1"), p.query("q2"), q3], [], made_by="test", name="labels-1")
    p1 = load_project(diag_copy, "labels-1")
    full = next(t for t in load_tiers(p1).tiers if t.name == "full")
    for qid, answer in (("q1", "Paris"), ("q2", "apples"), ("q3", "pears")):  # oracle answers from the inspector, under labels-1
        store = LLMRunStore(p1, root=tui_root(p1, qid, "oracle"), publish=False)
        ds.store_answers(p1, full, "oracle", {qid: (answer, sorted(p1.query(qid).gold_doc_ids))}, store=store)
    q2 = msgspec.structs.replace(p1.query("q2"), hard_negative_ids=[5])  # labels-2 relabels q2 only
    write_version(p1, [p1.query("q1"), q2, p1.query("q3")], [], made_by="test", name="labels-2")
    p2 = load_project(diag_copy, "labels-2")
    v = {(x.query_id, x.tier): x for x in read_verdicts(p2, load_tiers(p2).tiers).of("hybrid+local")}
    assert v[("q1", "full")].verdict == "ACCESS" and v[("q1", "full")].oracle.source == "version TUI run"  # main: NOT-YET
    assert v[("q3", "full")].oracle is not None and v[("q3", "full")].oracle.answer == "pears"  # same labels in both versions
    assert v[("q2", "full")].oracle is None  # its labels changed: labels-1's answer is not for these labels
    assert v[("q2", "full")].answer is None  # nor the original's retrieve-then-read answer


def test_the_default_verdict_system_does_not_follow_the_last_answer(diag_copy):
    """Issue 19 item 4: one long-context answer on one tier does not make that system the default;
    a reader that does not fit most tiers is never the default."""
    p = load_project(diag_copy)
    tiers = load_tiers(p).tiers
    base = next(t for t in tiers if t.kind == "base")
    ds.store_answers(p, base, "qa", {q: ("Paris", base.doc_ids) for q in base.query_ids}, model="wide")
    qv = read_verdicts(p, tiers)
    assert "wide" in [s.name for s in qv.systems] and qv.primary == "hybrid+local"
    # a reader that fits the base level only (two of four tiers, one of three levels), with the most
    # decided verdicts: not the default either
    import msgspec

    for t in tiers:
        for old in LLMRunStore(p).runs(t):
            LLMRunStore(p).path(old.system, t.name).unlink()
        run = ds.store_answers(p, t, "qa", {q: ("Paris", t.doc_ids) for q in t.query_ids}, model="narrow")
        if t.kind != "base":
            LLMRunStore(p).save(msgspec.structs.replace(run, fits=False, input_tokens=90000, budget_tokens=100, qa=[]))
    c = VerdictReader(p)
    qv = read_verdicts(p, tiers, collector=c)
    from workbench.diagnosis.verdicts import verdict_system
    from workbench.diagnosis.rules import PENDING

    narrow = next(s for s in qv.systems if s.name == "narrow")
    decided = {s.name: sum(v.verdict not in PENDING for v in qv.of(s.name)) for s in qv.systems}
    assert max(decided, key=decided.get) == "narrow"  # main's rule (most answers) picked it
    assert narrow.reader == "qa" and qv.primary == "hybrid+narrow"
    # alone with access-less systems, the reader that does not fit is still not preferred over one that does
    assert verdict_system([narrow], qv.verdicts, tiers, c) == "narrow"  # the only one: shown, never hidden


def test_a_not_yet_names_the_tiers_where_the_task_fits_by_the_window_check(diag_copy):
    """Issue 18/19: no stored record says the long-context task does not fit; the window check does,
    and the command is not suggested there — the tiers where it fits are named instead."""
    p = load_project(diag_copy)
    tiers = load_tiers(p).tiers
    full = next(t for t in tiers if t.name == "full")
    biggest_base = max(t.tokens for t in tiers if t.kind == "base")
    window = (biggest_base + full.tokens) // 2 + 128 + 60  # base tiers fit, full does not (answer budget 128)
    toml = diag_copy / "workbench.toml"
    toml.write_text(toml.read_text() + f'\n[models.small]\nmodel = "small"\nbase_url = "http://127.0.0.1:9/v1"\n'
                                       f'context_window = {window}\nsafety_margin = 0.0\n')
    p = load_project(diag_copy)
    base = next(t for t in tiers if t.kind == "base")
    ds.store_answers(p, base, "qa", {q: ("Paris", base.doc_ids) for q in base.query_ids}, model="small")
    v = {(x.query_id, x.tier): x for x in read_verdicts(p, tiers).of("small")}
    q1 = v[("q1", "full")]
    assert q1.rule == "N1" and "--task" not in q1.command  # main: workbench run … --task localize,qa --tiers full
    assert "localize does not fit small's window on full" in q1.command and "it fits on base:" in q1.command
    assert "full" not in q1.command.split("it fits on ")[1].split(";")[0]


def test_the_chosen_verdict_system_stays_through_refreshes_and_runs(diag_copy):
    """LiveDiagnosis (what workbench/session/ holds for a front end): the systems, the one shown
    (the default: verdict_system), a choice that a refresh and a new one-query answer keep."""
    from workbench.diagnosis.live import LiveDiagnosis

    p = load_project(diag_copy)
    tiers = load_tiers(p).tiers
    live = LiveDiagnosis(p, tiers)
    assert live.primary == live.qv.primary == "hybrid+local" and live.system_names == ["hybrid+local"]
    full = next(t for t in tiers if t.name == "full")
    ds.store_answers(p, full, "qa", {"q1": ("Paris", full.doc_ids)}, store=LLMRunStore(p, root=p.state_dir / "tui" / "q1", publish=False))
    live.update_query("q1")  # a new system (local) appears with a PASS: the default does not follow it
    assert "local" in live.system_names and live.primary == "hybrid+local"
    assert live.choose("local") == "local"
    live.refresh()
    assert live.primary == "local" and live.summary("q1").system == "local"
    assert live.choose(None) == "hybrid+local"
    with pytest.raises(KeyError):
        live.choose("nosuch")


def test_reports_show_provisional_access_failures(diag_copy, tmp_path):
    """With rankings and no oracle answers the report leads with ACCESS? (and renders: every verdict has a colour)."""
    from workbench.report import export_reports

    p = load_project(diag_copy)
    tiers = load_tiers(p).tiers
    for t in tiers:
        LLMRunStore(p).path("model:local:oracle", t.name).unlink()
    md, html, _ = export_reports(p, tiers, tmp_path / "out")
    assert "ACCESS?" in md.read_text() and "ACCESS?" in html.read_text()
    assert "| ACCESS? |" in md.read_text()  # its own column in the verdict table
