"""Issue 40: counts of answers are per query (per tier only where they say so). Three oracle
answers, one per query, each served on every tier that holds its query (the same prompt
everywhere: LLMRunStore.runs), read "Use: 9 model answers stored"."""

from __future__ import annotations

import msgspec

from support import diagnosis as ds
from workbench.llm.store import LLMRunStore
from workbench.access.ladder import load_tiers
from workbench.project.load import load_project
from workbench.report import build_report, render


def test_three_oracle_answers_served_on_every_level_are_three_answers(tmp_path):
    root = ds.make_project(tmp_path / "tiny")
    p = load_project(root)
    tiers = load_tiers(p).tiers
    for t in tiers:
        ds.store_ranking(p, t)
    full = next(t for t in tiers if t.name == "full")
    run = ds.store_answers(p, full, "oracle", {q: (ds.ORACLE[q], sorted(p.query(q).gold_doc_ids)) for q in ("q1", "q2", "q3")})
    # each answer keyed by its prompt (as `run` stores it): the store serves it on every tier holding its query
    LLMRunStore(p).save(msgspec.structs.replace(run, qa=[msgspec.structs.replace(r, key=f"prompt:{r.query_id}") for r in run.qa]))
    report = build_report(load_project(root), tiers, seed=0)
    per_level = sum(u.accuracy.n + u.undecided for u in report.overview.use)
    assert per_level > 3, "the oracle answers serve more than one level (what made 9 of 3)"
    assert report.overview.answers == 3 and report.overview.answer_figures == per_level
    md = render(report, "md").decode()
    assert f"Use: 3 model answers stored (counted on {per_level} query × level figures" in md
    assert f"Use: {per_level} model answers stored" not in md
    assert report.access_first is not None and report.access_first.answers == 3
    assert report.provenance.model_calls == 3  # "model answers behind this report": each once, not once per tier


def test_answers_of_tier_bound_arms_count_once_per_tier(tmp_path):
    root = ds.make_project(tmp_path / "tiny")
    ds.fill(root, oracle_queries=())
    p = load_project(root)
    tiers = load_tiers(p).tiers
    report = build_report(p, tiers, seed=0)
    stored = sum(len([q for q in t.query_ids if q in ds.RAG[ds.tier_kind(t)]]) for t in tiers)
    assert report.overview.answers == stored  # a rag answer reads its tier's ranking: one per (query, tier)
