"""Collision testing: strict parsing, each rule, the run through the model layer (labels injected
by the fault server), resume after an interruption, and the resulting version on the access side."""

from __future__ import annotations

import asyncio
import json
import re

import msgspec
import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.collide.mining import Candidate, MinedQuery, MiningOptions, mine
from workbench.collide.rules import decide_query
from workbench.collide.run import CollideSettings, VerificationLog, run_collide, settings_key, state_dir
from workbench.collide.verify import Verification, parse_verdict
from workbench.access.ladder import load_tiers, select_tiers
from workbench.llm.client import ChatClient, ResponseCache
from workbench.progress import Cancelled
from workbench.project.load import load_project
from workbench.project.versions import list_versions, read_labels
from workbench.records import ModelConfig, Query

# ---------------------------------------------------------------- parsing


@pytest.mark.parametrize("reply, expected", [
    ("HARD_NEGATIVE: It is about the 2019 plan, not 2020.", ("HARD_NEGATIVE", "It is about the 2019 plan, not 2020.", False)),
    ("**FALSE_NEGATIVE** - It states the same rate. Extra text.", ("FALSE_NEGATIVE", "It states the same rate.", False)),
    ("Label: conflict: It gives a different answer for the same bank.", ("CONFLICT", "It gives a different answer for the same bank.", False)),
    ("HARD NEGATIVE\nThe candidate names another company.", ("HARD_NEGATIVE", "The candidate names another company.", False)),
    ("HARD_NEGATIVE/FALSE_NEGATIVE: It might support the answer.", ("FALSE_NEGATIVE", "It might support the answer.", True)),
    ("FALSE_NEGATIVE or HARD_NEGATIVE: Hard to tell from the text.", ("FALSE_NEGATIVE", "Hard to tell from the text.", True)),
])
def test_a_reply_with_a_label_and_a_reason_parses(reply, expected):
    assert parse_verdict(reply) == expected


@pytest.mark.parametrize("reply", [
    "", "HARD_NEGATIVE", "HARD_NEGATIVE:", "The candidate is a HARD_NEGATIVE because it differs.",
    "CONFLICT/HARD_NEGATIVE: maybe either one.", "NEGATIVE: not a label.", "Yes.", "HARD_NEGATIVEs: all of them here.",
])
def test_anything_else_is_not_guessed(reply):
    assert parse_verdict(reply) is None


# ---------------------------------------------------------------- rules (pure)

Q = Query("q", "Which rate did Bank A pay in 2020?", "2.1%", [1], [], "finance", "single-hop")


def _mined(*doc_ids: int) -> MinedQuery:
    return MinedQuery("q", [Candidate("q", d, "dense", 0.8 - d / 100, n) for n, d in enumerate(doc_ids, 1)], {1: 0.7})


def _v(doc_id: int, verdict: str, ambiguous: bool = False) -> Verification:
    return Verification("q", doc_id, verdict, f"reason {doc_id}.", ambiguous, 1)  # type: ignore[arg-type]


def _decide(mined, verdicts, **kw):
    return decide_query(Q, mined, {v.doc_id: v for v in verdicts}, by="model:test", created="2026-01-01T00:00:00+00:00",
                  floor=0.3, **kw)


def test_hard_negatives_are_kept_and_false_negatives_promoted():
    out = _decide(_mined(10, 11, 12), [_v(10, "HARD_NEGATIVE"), _v(11, "FALSE_NEGATIVE", ambiguous=True), _v(12, "HARD_NEGATIVE")])
    assert out.status == "retained"
    assert out.query.gold_doc_ids == [1, 11] and out.query.hard_negative_ids == [10, 12]
    actions = {r.doc_id: (r.action, r.label, r.reason) for r in out.labels}
    assert actions[11] == ("add_gold", "FALSE_NEGATIVE", "reason 11.")
    assert actions[10][0] == "add_hard_negative" and all(r.by == "model:test" for r in out.labels)
    assert next(r for r in out.labels if r.doc_id == 11).details["ambiguous"] is True


def test_a_single_conflict_excludes_the_query_under_the_default_policy():
    verdicts = [_v(10, "HARD_NEGATIVE"), _v(11, "CONFLICT"), _v(12, "HARD_NEGATIVE")]
    out = _decide(_mined(10, 11, 12), verdicts)
    assert out.status == "excluded_conflict" and out.query is None
    assert "DocID 11: reason 11." in out.reason
    assert [r.action for r in out.labels].count("exclude_query") == 1
    assert not any(r.action in ("add_gold", "add_hard_negative") for r in out.labels)
    # under the majority policy one conflict in three is dropped and the query kept
    kept = _decide(_mined(10, 11, 12), verdicts, policy="majority")
    assert kept.status == "retained" and kept.query.hard_negative_ids == [10, 12] and 11 not in kept.query.gold_doc_ids


def test_more_than_half_conflicting_excludes_and_exactly_half_does_not():
    two_of_three = [_v(10, "CONFLICT"), _v(11, "CONFLICT"), _v(12, "HARD_NEGATIVE")]
    assert _decide(_mined(10, 11, 12), two_of_three, policy="majority").status == "excluded_conflict"
    half = [_v(10, "CONFLICT"), _v(11, "CONFLICT"), _v(12, "HARD_NEGATIVE"), _v(13, "UNVERIFIED")]
    out = _decide(_mined(10, 11, 12, 13), half, policy="majority")
    assert out.status == "retained" and out.conflicts == 2 and out.unverified == 1


def test_no_candidate_above_the_floor_is_unsuitable():
    empty = MinedQuery("q", [], {1: 0.7}, below_floor=5)
    out = _decide(empty, [])
    assert out.status == "unsuitable" and out.query is None and "floor 0.3" in out.reason
    kept = _decide(empty, [], keep_unsuitable=True)
    assert kept.status == "unsuitable" and kept.query == Q
    assert [r.action for r in kept.labels] == ["flag_unsuitable"]


def test_unverified_candidates_change_nothing():
    out = _decide(_mined(10, 11), [_v(10, "UNVERIFIED"), _v(11, "HARD_NEGATIVE")])
    assert out.query.gold_doc_ids == [1] and out.query.hard_negative_ids == [11]
    assert next(r for r in out.labels if r.doc_id == 10).action == "none"


# ---------------------------------------------------------------- mining


def test_mining_skips_gold_applies_floor_margin_and_seeded_pool(built_project):
    p = load_project(built_project)
    full = select_tiers(load_tiers(p), "full")[0]
    base = mine(p, full, MiningOptions(candidates=4, floor=-1.0))
    for m, q in zip(base, p.queries):
        assert len(m.candidates) == 4 and not set(c.doc_id for c in m.candidates) & set(q.gold_doc_ids)
        sims = [c.similarity for c in m.candidates]
        assert sims == sorted(sims, reverse=True) and [c.dense_rank for c in m.candidates] == [1, 2, 3, 4]
    floor = sorted(c.similarity for m in base for c in m.candidates)[len(base) * 2]
    floored = mine(p, full, MiningOptions(candidates=4, floor=floor))
    assert all(c.similarity >= floor for m in floored for c in m.candidates)
    assert sum(len(m.candidates) for m in floored) < sum(len(m.candidates) for m in base)
    margin = mine(p, full, MiningOptions(candidates=4, floor=-1.0, margin=0.05))
    for m in margin:
        best = max(s for s in m.gold_similarity.values() if s is not None)
        assert all(c.similarity <= best - 0.05 for c in m.candidates)
    a = mine(p, full, MiningOptions(candidates=3, floor=-1.0, pool=10, seed=1))
    b = mine(p, full, MiningOptions(candidates=3, floor=-1.0, pool=10, seed=1))
    c = mine(p, full, MiningOptions(candidates=3, floor=-1.0, pool=10, seed=2))
    assert a == b and a != c
    with_bm25 = mine(p, full, MiningOptions(candidates=2, floor=-1.0, bm25=2))
    sources = {c.source for m in with_bm25 for c in m.candidates}
    assert "bm25" in sources or "dense+bm25" in sources
    assert all(c.bm25_score is not None for m in with_bm25 for c in m.candidates if "bm25" in c.source)


# ---------------------------------------------------------------- the run, labels injected by the fault server

_CANDIDATE = re.compile(r"Candidate: \[DocID=(\d+)\]")


def scripted(labels: dict[int, str]):
    """A responder answering by the candidate's DocID; unlisted candidates are hard negatives."""

    def respond(messages):
        doc = int(_CANDIDATE.search(messages[-1]["content"]).group(1))
        return labels.get(doc, "HARD_NEGATIVE: It concerns a different entity than the question.")

    return respond


def _client(server, tmp_path, use_cache=False):
    cfg = ModelConfig(model="fault", base_url=server.base_url, timeout_s=5, max_retries=1)
    return ChatClient("stub", cfg, server.base_url, cache=ResponseCache(tmp_path / "c.sqlite"), use_cache=use_cache,
                      backoff_base_s=0.01)


def _settings(**kw) -> CollideSettings:
    return CollideSettings(mining=MiningOptions(candidates=2, floor=-1.0), model="stub", model_identity=["stub"], **kw)


def _run(project, server, tmp_path, settings, **kw):
    async def go():
        async with _client(server, tmp_path) as client:
            return await run_collide(project, select_tiers(load_tiers(project), "full")[0], client, settings, **kw), client.stats

    return asyncio.run(go())


def test_collide_writes_a_version_with_every_rule_applied(project_copy, fault_server, tmp_path):
    p = load_project(project_copy)
    mined = mine(p, select_tiers(load_tiers(p), "full")[0], MiningOptions(candidates=2, floor=-1.0))
    (q_conflict, q_fn, q_garbage) = mined[0], mined[1], mined[2]
    fn_doc, garbage_doc = q_fn.candidates[0].doc_id, q_garbage.candidates[1].doc_id
    fault_server.responder = scripted({
        q_conflict.candidates[1].doc_id: "CONFLICT: It names a different director for the same film.",
        fn_doc: "HARD_NEGATIVE or FALSE_NEGATIVE: It may also state the answer.",
        garbage_doc: "I think this document is interesting.",
    })
    summary, stats = _run(p, fault_server, tmp_path, _settings())

    assert summary.version == "collide-1" and summary.queries_in == len(p.queries)
    assert summary.excluded_conflict == 1 and summary.retained == len(p.queries) - 1
    assert summary.false_negatives_promoted == 1 and summary.verdicts["UNVERIFIED"] == 1
    assert summary.verdicts["ambiguous (HN/FN → FN)"] == 1
    # the unparseable candidate was asked 3 times (2 retries), every other candidate once
    assert stats.calls == 2 * len(p.queries) + 2
    v = load_project(project_copy, "collide-1")
    assert not v.has_query(q_conflict.query_id)
    assert fn_doc in v.query(q_fn.query_id).gold_doc_ids
    garbage_q, before = v.query(q_garbage.query_id), p.query(q_garbage.query_id)
    assert garbage_q.gold_doc_ids == before.gold_doc_ids  # the unverified candidate changed nothing
    assert (garbage_doc in garbage_q.hard_negative_ids) == (garbage_doc in before.hard_negative_ids)
    assert q_garbage.candidates[0].doc_id in garbage_q.hard_negative_ids
    info = list_versions(project_copy)[-1]
    assert "It names a different director" in info.excluded[q_conflict.query_id]
    assert info.settings["model"] == "stub" and info.settings["prompt_version"] and info.settings["mining"]["candidates"] == 2
    labels = read_labels(project_copy, "collide-1")
    unverified = next(r for r in labels if r.doc_id == garbage_doc)
    assert unverified.label == "UNVERIFIED" and unverified.action == "none" and unverified.details["attempts"] == 3
    assert all(r.by == "model:stub" and r.created for r in labels)
    # the original is untouched, and a rerun reports the same version instead of writing another
    assert load_project(project_copy).query(q_fn.query_id).gold_doc_ids == p.query(q_fn.query_id).gold_doc_ids
    again, stats2 = _run(p, fault_server, tmp_path, _settings())
    assert again.version == "collide-1" and stats2.calls == 0 and again.resumed == summary.candidates
    assert [x.name for x in list_versions(project_copy)] == ["original", "collide-1"]


def test_an_interrupted_collide_resumes_without_redoing_finished_verdicts(project_copy, fault_server, tmp_path):
    p = load_project(project_copy)
    settings = _settings()
    fault_server.responder = scripted({})

    def stop_after_five(stage, done, total):
        if stage == "verify" and done >= 5:
            raise Cancelled

    with pytest.raises(Cancelled):
        _run(p, fault_server, tmp_path, settings, progress=stop_after_five)
    assert not list_versions(project_copy)[1:]  # nothing half-written
    log = state_dir(p, settings_key(p, settings)) / "verifications.jsonl"
    saved = len(VerificationLog(log, project_copy).read())
    assert 5 <= saved < 2 * len(p.queries)
    with open(log, "ab") as fh:  # an interruption in the middle of a line
        fh.write(b'{"query_id": "x", "doc_')
    before = fault_server.chat_requests
    summary, stats = _run(p, fault_server, tmp_path, settings)
    assert summary.version == "collide-1" and summary.resumed == saved
    assert fault_server.chat_requests - before == 2 * len(p.queries) - saved == stats.calls


def test_failed_calls_write_no_version_and_are_retried(project_copy, fault_server, tmp_path):
    p = load_project(project_copy)
    doc = mine(p, select_tiers(load_tiers(p), "full")[0], MiningOptions(candidates=2, floor=-1.0))[0].candidates[0].doc_id
    fault_server.responder = scripted({})
    fault_server.rules = [(f"Candidate: [DocID={doc}]", 500)]  # every call about this candidate fails
    first, _ = _run(p, fault_server, tmp_path, _settings())
    assert first.version is None and first.failed_calls >= 1  # (the document may be a candidate of several queries)
    assert not list_versions(project_copy)[1:]
    fault_server.rules = []
    summary, stats = _run(p, fault_server, tmp_path, _settings())
    assert summary.version == "collide-1" and stats.calls == first.failed_calls
    assert summary.resumed == summary.candidates - first.failed_calls


def _collide_only_project(root, fault_server) -> str:
    """Strip the project's own hard negatives, then collide: every hard negative of collide-1 comes
    from mining and (scripted) verification. Returns collide's output."""
    p0 = load_project(root)
    stripped = [msgspec.structs.replace(q, hard_negative_ids=[]) for q in p0.queries]
    (root / "queries.jsonl").write_bytes(b"".join(msgspec.json.encode(q) + b"\n" for q in stripped))
    (root / "workbench.toml").write_text(
        (root / "workbench.toml").read_text() + f'\n[models.stub]\nmodel = "fault"\nbase_url = "{fault_server.base_url}"\n')
    fault_server.responder = scripted({})
    res = CliRunner().invoke(main, ["collide", str(root), "--model", "stub", "--candidates", "3", "--floor", "-1"])
    assert res.exit_code == 0, res.output
    return res.output


def test_collide_cli_summary_export_and_the_near_miss_inspector(project_copy, fault_server, tmp_path):
    from workbench.access.evaluate import evaluate
    from workbench.access.indexing import build_indexes
    from workbench.inspection.rankings import HARD_NEGATIVE, inspect_stored
    from workbench.access.retrievers import make_retrievers

    # the project keeps no hard negatives of its own: every one must come from collide
    output = _collide_only_project(project_copy, fault_server)
    runner = CliRunner()
    assert "retained              30" in output and "hard negatives/query  3.00 (min 3, max 3)" in output
    assert "collide-1" in output

    out = tmp_path / "eval_set.jsonl"
    res = runner.invoke(main, ["export-eval-set", str(project_copy), "--queries-version", "collide-1", "--out", str(out)])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["tier"] for r in rows} == {"full"} and len(rows) == 30
    assert set(rows[0]) >= {"query", "answer", "gold_doc_ids", "hard_negative_ids", "tier", "corpus_doc_ids"}
    assert all(len(r["hard_negative_ids"]) == 3 for r in rows)

    p = load_project(project_copy, "collide-1")
    tiers = load_tiers(p).tiers
    build_indexes(p, tiers)
    evaluate(p, tiers, make_retrievers(p, ["bm25", "dense"]))
    found = 0
    for tier in tiers:
        for qid in p.tier_query_ids(tier):
            ins = inspect_stored(p, tier, p.query(qid))
            found += sum(m.kind == HARD_NEGATIVE for m in ins.near_misses)
    assert found > 0  # the stepper's near misses include collide's verified hard negatives


async def test_the_tui_near_miss_stepper_steps_through_collide_hard_negatives(project_copy, fault_server):
    """The inspector of a project whose hard negatives came only from collide (opened on that
    version) steps to them with `n` and shows each beside the gold it imitates."""
    from screens.app import make_app
    from support.tui import text_of
    from support.tui import open_inspector, settle
    from workbench import session as core
    from workbench.inspection.rankings import HARD_NEGATIVE

    await asyncio.to_thread(_collide_only_project, project_copy, fault_server)  # the CLI runs its own event loop
    app = make_app(project_copy, queries_version="collide-1", auto_build=True)  # stripping labels changed the tiers
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        s = app.session
        assert s.project.queries_version == "collide-1" and not any(q.hard_negative_ids for q in s.project.original_queries)
        case = next(((q, t, ins) for t in reversed(s.tiers) for q in s.project.queries if q.query_id in t.query_ids
                     for ins in [core.inspect(s, q.query_id, t.name)] if any(m.kind == HARD_NEGATIVE for m in ins.near_misses)),
                    None)
        assert case is not None, "some collide hard negative is ranked where the stepper shows it"
        q, tier, ins = case
        await open_inspector(pilot, q.query_id, tier.name)
        heads = []
        for _ in ins.near_misses:
            await pilot.press("n")
            heads.append(text_of(app.screen.query_one("#miss-head")))
        assert any("hard negative" in h for h in heads) and all("imitates gold" in h for h in heads)
        hn = next(m for m in ins.near_misses if m.kind == HARD_NEGATIVE)
        assert hn.doc_id in q.hard_negative_ids  # the label came from collide-1, not the original


@pytest.mark.llm
def test_collide_with_the_real_local_model(tmp_path, local_server):
    """The embedded SmolLM2 verifies real candidates: every verdict is a parsed label with a reason,
    or UNVERIFIED with each raw reply kept — and the version is written."""
    from support.llm_project import make_tiny_project

    from workbench.collide.verify import LABELS
    from workbench.access.indexing import build_indexes
    from workbench.access.ladder import write_ladder
    from workbench.llm.providers import open_client, resolve_model

    root = make_tiny_project(tmp_path / "tiny")
    p = load_project(root)
    tier = select_tiers(write_ladder(p), "full")[0]
    build_indexes(p, [tier])
    name, cfg = resolve_model(p, None)
    settings = CollideSettings(mining=MiningOptions(candidates=1, floor=-1.0), model=name, model_identity=["local"], parse_retries=1)

    async def go():
        async with open_client(p, name, cfg) as client:
            return await run_collide(p, tier, client, settings)

    summary = asyncio.run(go())
    assert summary.version == "collide-1" and summary.candidates == 3
    labels = [r for r in read_labels(root, "collide-1") if r.doc_id is not None]
    assert len(labels) == 3
    for r in labels:
        assert (r.label in LABELS and r.reason) or (r.label == "UNVERIFIED" and r.details["attempts"] == 2)


# ---------------------------------------------------------------- against known labels


def test_truth_scoring_separates_mining_recall_from_verification():
    from workbench.collide.truth import recall_at, score_against_truth
    from workbench.project.versions import LabelRecord

    truth = [Query("a", "?", "x", [1, 2], [10, 11, 12], "d"), Query("b", "?", "y", [3], [20], "d")]
    labels = [  # query a mined 10 (said HN), 11 (said CONFLICT), hidden gold 2 (said FN), 99 (said HN); b mined 98
        LabelRecord("a", "add_hard_negative", 10, "HARD_NEGATIVE"),
        LabelRecord("a", "none", 11, "CONFLICT"),
        LabelRecord("a", "add_gold", 2, "FALSE_NEGATIVE"),
        LabelRecord("a", "add_hard_negative", 99, "HARD_NEGATIVE"),
        LabelRecord("a", "exclude_query", None, "", "a candidate conflicts"),
        LabelRecord("b", "none", 98, "UNVERIFIED"),
    ]
    r = score_against_truth(labels, truth, hidden_gold={"a": [2]})
    assert r.true_hard_negatives == 4 and r.mined_true_hard_negatives == 2
    assert r.mining_recall_micro == 0.5 and r.mining_recall_macro == pytest.approx((2 / 3 + 0) / 2)
    assert r.confusion["hard_negative"] == {"HARD_NEGATIVE": 1, "FALSE_NEGATIVE": 0, "CONFLICT": 1, "UNVERIFIED": 0}
    assert r.confusion["gold"]["FALSE_NEGATIVE"] == 1
    assert r.confusion["unlabelled"] == {"HARD_NEGATIVE": 1, "FALSE_NEGATIVE": 0, "CONFLICT": 0, "UNVERIFIED": 1}
    assert r.hn_recall == 0.5 and r.hn_precision == 0.5 and r.accuracy_on_labelled == pytest.approx(2 / 3)
    assert recall_at({"a": [99, 10, 11], "b": [20]}, truth, [1, 3]) == {1: 0.25, 3: 0.75}


def test_a_damaged_done_record_does_not_start_a_second_version(project_copy, fault_server, tmp_path):
    """Issue 20 item 12: done.json truncated by a kill; the rerun finds the version it wrote."""
    p = load_project(project_copy)
    fault_server.responder = scripted({})
    first, _ = _run(p, fault_server, tmp_path, _settings())
    done = state_dir(p, settings_key(p, _settings())) / "done.json"
    done.write_bytes(done.read_bytes()[:5])
    again, stats = _run(p, fault_server, tmp_path, _settings())
    assert again.version == first.version and stats.calls == 0
    assert [x.name for x in list_versions(project_copy)] == ["original", first.version]
