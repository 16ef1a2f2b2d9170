"""The corpus ladder: exact construction, budgets, nesting, determinism."""

from __future__ import annotations

import shutil

import msgspec
import pytest

from workbench.access.ladder import build_ladder, load_tiers, select_tiers, tiers_path, write_ladder, StaleTiersError
from workbench.project.load import load_project
from workbench.tokens import doc_tokens


@pytest.fixture(scope="module")
def project(built_project):
    return load_project(built_project)


@pytest.fixture(scope="module")
def tiers(project):
    return {t.name: t for t in build_ladder(project).tiers}


def test_tier_names_follow_the_ladder(tiers):
    assert list(tiers) == [
        "base:bridge", "base:comparison", "mix:bridge:12000", "mix:comparison:12000", "shared", "global:24000", "full",
    ]


def test_every_tier_holds_the_gold_of_its_queries(project, tiers):
    for tier in tiers.values():
        members = set(tier.doc_ids)
        for qid in tier.query_ids:
            assert set(project.query(qid).gold_doc_ids) <= members, (tier.name, qid)


def test_base_is_domain_isolated_and_within_budget(project, tiers):
    overhead = project.config.ladder.prompt_overhead
    for d in ("bridge", "comparison"):
        base = tiers[f"base:{d}"]
        assert {project.documents[i].domain for i in base.doc_ids} == {d}
        assert base.tokens == sum(doc_tokens(project.documents[i]) for i in base.doc_ids)
        gold_tokens = sum(doc_tokens(project.documents[g]) for q in base.query_ids for g in set(project.query(q).gold_doc_ids))
        assert base.tokens <= max(gold_tokens, 6000 - overhead)
        assert {project.query(q).domain for q in base.query_ids} == {d}


def test_base_padding_takes_hard_negatives_first(project, tiers):
    base = tiers["base:bridge"]
    qs = [project.query(q) for q in base.query_ids]
    gold = {g for q in qs for g in q.gold_doc_ids}
    negatives = {n for q in qs for n in q.hard_negative_ids if project.documents[n].domain == "bridge"} - gold
    padding = set(base.doc_ids) - gold
    # a padding document that is not a hard negative is only there if no hard negative was left out for space
    if padding - negatives:
        assert negatives <= padding


def test_mixing_adds_only_other_domains_base_documents(tiers):
    mix, base = tiers["mix:bridge:12000"], tiers["base:bridge"]
    other = set(tiers["base:comparison"].doc_ids)
    assert set(base.doc_ids) < set(mix.doc_ids)
    assert set(mix.doc_ids) - set(base.doc_ids) <= other
    assert mix.tokens <= 12000 - 200


def test_shared_global_full_nest(project, tiers):
    shared = set(tiers["base:bridge"].doc_ids) | set(tiers["base:comparison"].doc_ids)
    assert set(tiers["shared"].doc_ids) == shared
    assert shared < set(tiers["global:24000"].doc_ids) < set(tiers["full"].doc_ids)
    assert tiers["global:24000"].tokens <= 24000 - 200
    assert set(tiers["full"].doc_ids) == set(project.documents)


def test_same_spec_gives_byte_identical_tiers(built_project, tmp_path):
    other = tmp_path / "again"
    shutil.copytree(built_project, other, ignore=shutil.ignore_patterns(".workbench"))
    write_ladder(load_project(other))
    assert tiers_path(load_project(other)).read_bytes() == tiers_path(load_project(built_project)).read_bytes()


def test_another_seed_samples_differently(project_copy):
    toml = project_copy / "workbench.toml"
    before = build_ladder(load_project(project_copy))
    toml.write_text(toml.read_text().replace("seed = 7", "seed = 8"))
    after = build_ladder(load_project(project_copy))
    assert [t.doc_ids for t in before.tiers if t.kind == "global"] != [t.doc_ids for t in after.tiers if t.kind == "global"]


def test_changed_spec_makes_stored_tiers_stale(project_copy):
    toml = project_copy / "workbench.toml"
    load_tiers(load_project(project_copy))
    toml.write_text(toml.read_text().replace("global_budgets = [24000]", "global_budgets = [20000]"))
    with pytest.raises(StaleTiersError, match="another ladder spec"):
        load_tiers(load_project(project_copy))


def test_select_tiers(project):
    ts = build_ladder(project)
    assert [t.name for t in select_tiers(ts, "base,full")] == ["base:bridge", "base:comparison", "full"]
    with pytest.raises(ValueError, match="unknown tier"):
        select_tiers(ts, "nope")


def test_tier_file_round_trips(project):
    ts = build_ladder(project)
    assert msgspec.json.decode(msgspec.json.encode(ts), type=type(ts)) == ts
