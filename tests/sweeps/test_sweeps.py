"""Sweeps (docs/METHOD.md §2, §3): arm construction, placement, scoring, statistics, storage and resume.

The arms are built on the bundled sample corpus (real documents and queries); model calls go to
tests/support/fault_server.py only where a call must fail (resume) — the real model is in test_sweeps_llm.py.
"""

from __future__ import annotations

import asyncio
import random
import re
import shutil
from pathlib import Path

import msgspec
import pytest

from workbench.llm.client import ChatClient, ResponseCache
from workbench.project.load import load_project
from workbench.records import ModelConfig
from workbench.sweeps import distributions as D
from workbench.sweeps.arms import GOLD_ONLY, Planner, default_lengths
from workbench.sweeps.haystack import sentence_ends
from workbench.sweeps.records import SweepSpec
from workbench.report.sweeps import sweeps_dict, sweeps_markdown, sweeps_svg
from workbench.sweeps.runner import make_spec, run_sweep
from workbench.correctness import answer_match, sweep_correct
from workbench.stats import cluster_bootstrap, fisher_p, newcombe, residue_bootstrap, wilson
from workbench.sweeps.store import SweepStore, sweep_id
from workbench.tokens import doc_tokens
from support.paths import REPO

CFG = ModelConfig()


@pytest.fixture(scope="module")
def sample():
    return load_project(REPO / "sample_corpus")


@pytest.fixture
def sample_copy(tmp_path) -> Path:
    dst = tmp_path / "sample"
    shutil.copytree(REPO / "sample_corpus", dst, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    return dst


def spec(project, kind="volume", **kw) -> SweepSpec:
    base = dict(seed=5, max_tokens=32, lengths=[1024, 2048, 4096])
    if kind == "volume":
        base.update(families=["needle", "single-hop", "two-hop"], repeats=3, cases=2)
    if kind == "distribution":
        base.update(lengths=[2048], distributions=["normal", "exponential"], n_facts=10, n_absent=3, variants=["standard", "strict"])
    base.update(kw)
    return make_spec(project, kind, "local", CFG, "local", CFG, **base)


# ---------------------------------------------------------------- volume arms


def test_default_lengths_scale_with_the_window():
    assert default_lengths(CFG, 64, "volume") == [1024, 2048, 4096, 6942]  # 8K window: 1K, 2K, 4K, ~7K
    big = ModelConfig(context_window=131072)
    assert default_lengths(big, 64, "volume") == [16384, 32768, 65536, 112005]
    assert max(default_lengths(CFG, 64, "distribution")) + 64 <= CFG.context_window * 0.9


def test_volume_varies_and_nothing_else(sample):
    s = spec(sample)
    planner = Planner(sample, s, CFG)
    arms = planner.arms()
    groups: dict[tuple, list] = {}
    for a in arms:
        if a.family != GOLD_ONLY:
            groups.setdefault((a.case_id, a.repeat), []).append(a)
    assert len(groups) == 3 * 2 * 3  # families × cases × repeats
    for (qid, r), arms_ in groups.items():
        q = sample.query(qid)
        built = [(a, planner.build(a)) for a in sorted(arms_, key=lambda a: a.length)]
        assert [a.length for a, _ in built] == s.lengths
        assert {a.question for a, _ in built} == {q.query} and {a.gold for a, _ in built} == {q.answer}
        assert len({a.seed for a, _ in built}) == 1
        prev_padding: set[int] = set()
        for a, inp in built:
            ids = inp.context_doc_ids
            assert set(q.gold_doc_ids) <= set(ids), "every length carries the same gold"
            padding = [i for i in ids if i not in q.gold_doc_ids]
            assert not set(padding) & set(q.hard_negative_ids), "hard negatives are not padding"
            assert {sample.documents[i].domain for i in padding} == {q.domain}, "padding from the same domain"
            assert prev_padding <= set(padding), "a longer arm contains every passage of a shorter one"
            prev_padding = set(padding)
            assert a.length - 80 <= inp.input_tokens <= a.length + 16, (a.length, inp.input_tokens)
            assert inp.messages[-1]["content"].rstrip().endswith("Answer the question in a few words.")
        # the evidence sits at the depth drawn for this (case, repeat), whatever the length, to within
        # one padding passage (whole documents are never split)
        rng = random.Random(built[0][0].seed)
        drawn = [rng.random() for _ in q.gold_doc_ids]
        for _, inp in built:
            widest = max(doc_tokens(sample.documents[i], CFG.tokenizer) for i in inp.context_doc_ids) / inp.input_tokens
            assert all(abs(x - y) <= widest + 0.05 for x, y in zip(inp.evidence_depths, drawn)), (inp.evidence_depths, drawn)


def test_positions_differ_across_repeats_and_rebuild_from_the_seed(sample):
    s = spec(sample)
    planner = Planner(sample, s, CFG)
    arms = [a for a in planner.arms() if a.family == "single-hop" and a.length == 4096]
    by_case: dict[str, list] = {}
    for a in arms:
        by_case.setdefault(a.case_id, []).append(planner.build(a).evidence_depths[0])
    for depths in by_case.values():
        assert len(set(depths)) == 3, depths
    # a fresh planner rebuilds the identical input from the arm's seed
    again = Planner(load_project(REPO / "sample_corpus"), s, CFG)
    a = arms[0]
    assert again.build(a) == planner.build(a)


def test_gold_only_arm_for_two_hop(sample):
    planner = Planner(sample, spec(sample), CFG)
    gold_only = [a for a in planner.arms() if a.family == GOLD_ONLY]
    assert len(gold_only) == 2 * 3
    for a in gold_only:
        inp = planner.build(a)
        assert sorted(inp.context_doc_ids) == sorted(sample.query(a.case_id).gold_doc_ids)
        assert sample.query(a.case_id).kind == "two-hop"


def test_a_sweep_stopped_after_one_repeat_holds_every_family_and_length(sample):
    s = spec(sample)
    arms = Planner(sample, s, CFG).arms()
    first = arms[: len(arms) // s.repeats]
    assert {a.repeat for a in first} == {0}
    assert {(a.family, a.length) for a in first} == {(a.family, a.length) for a in arms}


def test_the_spec_is_the_sweep_id(sample):
    assert sweep_id(spec(sample)) == sweep_id(spec(sample))
    assert sweep_id(spec(sample)) != sweep_id(spec(sample, repeats=2))
    assert sweep_id(spec(sample)).startswith("volume-")


# ---------------------------------------------------------------- distributions


@pytest.mark.parametrize("name", list(D.DISTRIBUTIONS))
@pytest.mark.parametrize("n", [10, 1000])
def test_bin_counts_follow_each_density(name, n):
    masses = D.bin_masses(name)
    counts = D.bin_counts(name, n)
    assert abs(sum(masses) - 1) < 1e-9 and sum(counts) == n
    assert all(abs(c - n * m) < 1 for c, m in zip(counts, masses)), (counts, [round(n * m, 2) for m in masses])
    placed = [0] * D.N_BINS
    for d in D.depths(name, n, seed=3):
        placed[D.depth_bin(d)] += 1
    assert placed == counts


def test_the_shapes_are_the_named_ones():
    first, last = slice(0, 10), slice(10, 20)
    m = {n: D.bin_masses(n) for n in D.DISTRIBUTIONS}
    assert max(m["uniform"]) - min(m["uniform"]) < 1e-9
    assert sum(m["exponential"][first]) > 0.9 and sum(m["exponential-flipped"][last]) > 0.9
    assert m["normal"][9] > m["normal"][0] * 50
    assert m["bimodal"][5] > m["bimodal"][10] and m["bimodal"][14] > m["bimodal"][10]
    assert m["arcsine"][0] > m["arcsine"][10] and m["arcsine"][19] > m["arcsine"][10]
    assert m["lorentzian"][9] > 0.2 and m["lorentzian"][0] > 0  # heavy tails, sharp centre
    # Rayleigh σ = 0.2: the mode at depth 0.2, on the edge of bins 3 and 4
    assert max(range(20), key=m["rayleigh"].__getitem__) in (3, 4)
    assert max(range(20), key=m["rayleigh-flipped"].__getitem__) in (15, 16)


def test_distribution_arms_plant_facts_at_sentence_boundaries(sample):
    s = spec(sample, "distribution")
    planner = Planner(sample, s, CFG)
    arms = planner.arms()
    assert len(arms) == 2 * 2 * (10 + 10 + 3)  # distributions × prompts × (literal + inference + absent)
    contexts = {}
    for a in arms:
        contexts.setdefault(a.context_key, planner.build(a))
    paddings = set()
    # the two prompts differ only in the final sentence, after a shared context
    std, strict = contexts["normal/standard"].messages, contexts["normal/strict"].messages
    assert std[0] == strict[0] and strict[-1]["content"] == std[-1]["content"] + " If the answer is not in the documents, say you do not know."
    for key, inp in contexts.items():
        text = inp.messages[-1]["content"]
        for f in planner.planted:
            assert text.count(f.sentence) == 1
            before = text[: text.index(f.sentence)]
            assert re.search(r"([.!?] |\n)$", before), "planted at a sentence boundary"
        for f in planner.absent:
            assert f.sentence not in text
        dist = key.split("/")[0]
        actual = [0] * D.N_BINS
        for d in inp.evidence_depths:
            actual[D.depth_bin(d)] += 1
        # nearest sentence boundary: a fact may move at most one bin from its drawn depth
        want = D.bin_counts(dist, 10)
        for b in range(D.N_BINS):
            lo, hi = max(0, b - 1), min(D.N_BINS, b + 2)
            assert abs(sum(actual[lo:hi]) - sum(want[lo:hi])) <= 2
        paddings.add(tuple(inp.context_doc_ids))
        assert 2048 - 120 <= inp.input_tokens <= 2048 + 16
    assert len(paddings) == 1, "every distribution gets the same padding: only placement varies"


def test_depth_grid_plants_the_needle_sentence_at_each_depth(sample):
    s = spec(sample, "depth", lengths=[1024, 2048], depths=[0.1, 0.5, 1.0], cases=2, variants=["standard", "strict"])
    planner = Planner(sample, s, CFG)
    arms = planner.arms()
    assert len(arms) == 2 * 2 * 3 * 2  # cases × lengths × depths × prompts
    for a in arms:
        q = sample.query(a.case_id)
        assert q.kind == "needle" and a.gold == q.answer
        inp = planner.build(a)
        text = inp.messages[-1]["content"]
        assert text.count(q.answer) == 1, "the fact is planted once; its own document is not in the haystack"
        assert q.gold_doc_ids[0] not in inp.context_doc_ids
        assert {sample.documents[i].domain for i in inp.context_doc_ids} == {q.domain}
        assert abs(inp.evidence_depths[0] - a.depth) < 0.1, (a.depth, inp.evidence_depths)
    # the two prompts read the same haystack
    pairs = {}
    for a in arms:
        pairs.setdefault(a.context_key, []).append(planner.build(a).context_doc_ids)
    assert all(len(v) == 2 and v[0] == v[1] for v in pairs.values())


def test_sentence_ends():
    assert sentence_ends("One. Two! Three") == [4, 9, 15]


# ---------------------------------------------------------------- scoring and statistics


def test_answer_match():
    assert answer_match("The passphrase is cinder-cobalt-79.", "cinder-cobalt-79")
    assert answer_match("It pays 2.1% APY", "2.1%") and not answer_match("It pays 2.15%", "2.1%")
    assert answer_match("700", "700 requests") and answer_match("$750.", "$750")
    assert not answer_match("750 or 75", "$75 per night extra")
    assert answer_match("2,900 requests a minute", "2,900 requests") and not answer_match("29", "2,900 requests")


def test_is_correct():
    assert sweep_correct(False, True, True, None, False)  # absent fact refused = faithful
    assert not sweep_correct(True, False, True, None, False)
    assert not sweep_correct(False, True, False, None, False)  # a refusal of an answerable question
    assert sweep_correct(True, False, False, None, False)
    assert not sweep_correct(True, False, False, 1.0, True)  # a trusted judge decides
    assert sweep_correct(True, False, False, 1.0, False)  # an untrusted one does not


def test_statistics():
    assert fisher_p(8, 10, 1, 6) == pytest.approx(0.03496, abs=1e-4)
    lo, hi = wilson(5, 10)
    assert lo < 0.5 < hi and wilson(0, 0) is None
    d, lo, hi = newcombe(9, 10, 3, 10)
    assert d == pytest.approx(0.6) and lo < 0.6 < hi and lo > 0
    mean, lo, hi = cluster_bootstrap({"a": [1, 1, 1], "b": [0, 0, 0], "c": [1, 0, 1]})
    assert lo <= mean <= hi and mean == pytest.approx(5 / 9)
    res, lo, hi = residue_bootstrap({"a": [1.0, 1.0], "b": [1.0, 0.0]}, {"c": [0.0, 0.0], "d": [0.0, 1.0]})
    assert res == pytest.approx(0.75**2 - 0.25) and lo <= res <= hi


# ---------------------------------------------------------------- storage, resume, report


def _responder(messages):
    text = messages[-1]["content"]
    q = text.rsplit("Question:", 1)[-1]
    if "Gold answer:" in text:
        return "Score: 1"
    if "passphrase" in q or "password" in q or "phrase" in q or "code" in q or "combination" in q:
        m = re.search(r"is ([a-z]+-[a-z]+-\d+)\.", text)
        return m.group(1) if m else "I do not know"
    return "I do not know"


async def _run(project, s, server, max_retries=0):
    cfg = ModelConfig(model="fault", base_url=server.base_url, timeout_s=10, max_retries=max_retries, concurrency=2)
    cache = ResponseCache(project.state_dir / "cache.sqlite")
    client = ChatClient("fake", cfg, server.base_url, cache=cache, backoff_base_s=0.01)
    try:
        return await run_sweep(project, s, client, client)
    finally:
        await client.aclose()
        cache.close()


def test_resume_never_recomputes_finished_arms(sample_copy):
    from support.fault_server import FaultServer

    project = load_project(sample_copy)
    s = spec(project, families=["needle", "two-hop"], cases=1, repeats=2, lengths=[512, 1024])
    store = SweepStore(project)
    with FaultServer(_responder) as server:
        server.script = [500] * 3  # the first three calls fail: a partial sweep
        meta, failed = asyncio.run(_run(project, s, server))
        assert failed == 3
        stored = store.results(meta.sweep_id)
        assert len(stored) == meta.arms - 3
        calls_before = server.chat_requests
        meta2, failed2 = asyncio.run(_run(project, s, server))
        assert failed2 == 0 and meta2.sweep_id == meta.sweep_id
        answered = server.chat_requests - calls_before
        # only the 3 missing arms were asked again (plus the judge calibration, answered from the cache)
        assert answered == 3
    results = store.results(meta.sweep_id)
    assert len(results) == meta.arms
    needle = [r for k, r in results.items() if k.startswith("needle/")]
    assert needle and all(r.match for r in needle)
    assert meta2.wall_s >= meta.wall_s and not meta2.judge_trusted and "deterministic match decides" in meta2.calibration

    # a torn last line (an interrupted append) is ignored: that arm runs again
    path = store.dir(meta.sweep_id) / "results.jsonl"
    path.write_bytes(path.read_bytes() + b'{"arm_id": "needle/x", "answ')
    assert len(store.results(meta.sweep_id)) == meta.arms

    md = sweeps_markdown(project)
    assert "### Volume sweep" in md and "deterministic match" in md and "| needle | 512 |" in md
    data = sweeps_dict(project)
    needle_pts = data["volume"]["families"]["needle"]
    assert [p["length"] for p in needle_pts] == [512, 1024] and all(p["mean"] == 1.0 and p["n"] == 2 for p in needle_pts)
    assert data["volume"]["families"]["two-hop-gold"][0]["n"] == 2
    # latency is measured on the sweep's own calls: an answer served from the response cache is left out
    lat_n = {x["length"]: x["n"] for x in data["volume"]["latency"]}
    first = next(k for k in results if k.startswith("needle/") and "/L512/" in k)
    store.append_result(meta.sweep_id, msgspec.structs.replace(results[first], cached=True, latency_s=999.0))
    again = sweeps_dict(project)["volume"]["latency"]
    assert next(x for x in again if x["length"] == 512)["n"] == lat_n[512] - 1 and all(x["p95_s"] < 999 for x in again)
    store.append_result(meta.sweep_id, results[first])

    svg = sweeps_svg(project)
    from rich.console import Console

    from workbench.sweeps.charts import sweep_panels

    console = Console(width=120, record=True, color_system=None)
    console.print(*sweep_panels(project))
    assert "█" * 24 in console.export_text()  # the needle scores 1.0: a full bar
    assert svg.startswith('<section class="sweeps">') and "<svg" in svg and "http://" not in svg.replace('xmlns="http://www.w3.org/2000/svg"', "")

    # the diagnosis report carries the sweep (whole-project reports only)
    from workbench.access.ladder import ensure_tiers
    from workbench.report import render
    from workbench.report.build import build_report

    tiers = list(ensure_tiers(project).tiers)
    report = build_report(project, tiers)
    assert report.sweeps == data
    assert "### Volume sweep" in render(report, "md").decode()
    assert '<section class="sweeps">' in render(report, "html").decode()
    assert build_report(project, tiers, {project.queries[0].query_id}).sweeps == {}


def test_report_is_empty_without_sweeps(sample_copy):
    project = load_project(sample_copy)
    assert sweeps_markdown(project) == "" and sweeps_svg(project) == "" and sweeps_dict(project) == {}
    # a started sweep with nothing finished says so, and draws nothing
    from workbench.sweeps.runner import open_sweep

    open_sweep(project, spec(project, "distribution"), CFG)
    assert "No finished arms yet." in sweeps_markdown(project)
    assert "<figure" not in sweeps_svg(project)


def test_svg_escapes_data_text():
    from workbench.report.sweeps import heatmap, line_chart

    svg = line_chart("<script>x</script>", {"a&b": [(1, 0.5, 0.4, 0.6), (2, 0.6, 0.5, 0.7)]}, "x")
    assert "<script>" not in svg and "&lt;script&gt;" in svg and "a&amp;b" in svg
    assert "<b>" not in heatmap("t", ["<b>"], ["c"], [[(1, 2)]])


def test_distribution_summary_safety_tax_and_masking(sample_copy):
    """Stored results of a strict prompt that refuses everything: faithful 1.0, masked, taxed."""
    from workbench.sweeps.records import ArmResult, SweepMeta

    project = load_project(sample_copy)
    s = spec(project, "distribution", distributions=["uniform"])
    planner = Planner(project, s, CFG)
    store = SweepStore(project)
    sid = sweep_id(s)
    arms = planner.arms()
    store.save_meta(SweepMeta(sid, s, 1.0, len(arms), calibration="judge failed", judge_trusted=False))
    for a in arms:
        strict = a.variant == "strict"
        answer = "I do not know" if strict else (a.gold or "42")
        store.append_result(sid, ArmResult(a.arm_id, answer, bool(a.gold) and answer_match(answer, a.gold), strict, 2000, 2000, 3, 0.1, [], [0.5]))
    d = sweeps_dict(project)["distribution"]
    tax = {t["task"]: t for t in d["safety_tax"]}
    assert tax["answerable"]["tax"] == pytest.approx(1.0) and tax["answerable"]["fisher_p"] < 1e-6
    assert tax["faithfulness"]["tax"] == pytest.approx(-1.0)
    assert d["by_variant"]["strict"]["masking"] and not d["by_variant"]["standard"]["masking"]
    assert any("masking under the strict prompt" in f for f in d["flags"])
    assert d["by_variant"]["standard"]["literal"]["n"] == 10
    assert "Safety tax" in sweeps_markdown(project)

    from rich.console import Console

    from workbench.sweeps.charts import sweep_panels

    console = Console(width=120, record=True, color_system=None)
    for panel in sweep_panels(project):
        console.print(panel)
    text = console.export_text()
    assert "share correct by distribution" in text and "safety tax" in text and "masking under the strict prompt" in text
    assert "10/10" in text and "0/10" in text  # standard literal all right, strict all refused


# ---------------------------------------------------------------- CLI


def test_cli_dry_run_calls_nothing_and_bad_lengths_are_refused(sample_copy):
    from click.testing import CliRunner

    from workbench.cli import main

    runner = CliRunner()
    r = runner.invoke(main, ["sweep", "volume", str(sample_copy), "--cases", "1", "--repeats", "2", "--lengths", "1K,2K", "--dry-run"])
    assert r.exit_code == 0, r.output
    assert "dry run" in r.output and "gold only" in r.output
    assert "14 arms (0 stored, 14 to run): 14 model calls" in r.output  # 3 families × 2 lengths × 2 repeats + 2 gold-only
    assert not (sample_copy / ".workbench" / "sweeps").exists() or not any((sample_copy / ".workbench" / "sweeps").iterdir())
    r = runner.invoke(main, ["sweep", "volume", str(sample_copy), "--lengths", "9000", "--dry-run"])
    assert r.exit_code == 2 and "exceed the model's usable window" in r.output
    r = runner.invoke(main, ["sweep", "distribution", str(sample_copy), "--distributions", "gamma", "--dry-run"])
    assert r.exit_code == 2 and "unknown distribution" in r.output
    r = runner.invoke(main, ["sweep", "list", str(sample_copy)])
    assert r.exit_code == 0 and "no sweeps yet" in r.output


def test_a_flag_raised_on_a_few_answers_says_it_is_not_yet_evidence():
    from workbench.sweeps.summary import _volume_flags

    def point(length, mean, lo, hi, n=6):
        return {"length": length, "n": n, "mean": mean, "lo": lo, "hi": hi}

    noisy = _volume_flags({"two-hop": [point(1024, 0.17, 0.0, 0.5), point(8192, 0.33, 0.0, 1.0)]})
    assert len(noisy) == 1 and "BROKEN EXPERIMENT" in noisy[0] and "not yet evidence: 6 and 6 answers" in noisy[0]
    clear = _volume_flags({"two-hop": [point(1024, 0.1, 0.0, 0.2, 40), point(8192, 0.8, 0.7, 0.9, 40)],
                           "needle": [point(1024, 1.0, 0.9, 1.0, 40), point(8192, 0.3, 0.2, 0.4, 40)]})
    assert len(clear) == 2 and not any("not yet evidence" in f for f in clear)
