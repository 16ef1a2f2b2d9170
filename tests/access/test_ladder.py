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


def _append_queries(root, rows) -> None:
    import json

    with (root / "queries.jsonl").open("a", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps({"answer": "", "gold_doc_ids": [], "hard_negative_ids": [], **r}) + "\n")


@pytest.mark.parametrize("rows, extended", [
    # production's queries as a collection adds them: unlabelled, in a domain with a base tier or none
    ([{"query_id": "p1", "query": "who?", "domain": "bridge"}, {"query_id": "p2", "query": "what?", "domain": "prod"}], True),
    # a labelled query changes what its tiers hold: rebuilt
    ([{"query_id": "p3", "query": "which?", "domain": "bridge", "gold_doc_ids": "GOLD"}], False),
])
def test_tiers_extended_by_appended_queries_equal_a_rebuild(project_copy, monkeypatch, rows, extended):
    """A process that read the tiers and then sees unlabelled queries appended extends them without
    rebuilding the ladder; what it writes is byte for byte what a rebuild writes."""
    from workbench.access import ladder

    ensure = ladder.ensure_tiers
    ensure(load_project(project_copy))
    project = load_project(project_copy)
    gold = project.queries[0].gold_doc_ids
    _append_queries(project_copy, [{**r, "gold_doc_ids": gold} if r.get("gold_doc_ids") == "GOLD" else r for r in rows])
    rebuilt: list[int] = []
    real = ladder.build_ladder
    monkeypatch.setattr(ladder, "build_ladder", lambda p: (rebuilt.append(1), real(p))[1])
    grown = load_project(project_copy)
    written = ensure(grown)
    assert bool(rebuilt) is not extended
    assert tiers_path(grown).read_bytes() == msgspec.json.encode(written) == msgspec.json.encode(real(grown))
    assert all(r["query_id"] in {q for t in written.tiers for q in t.query_ids} for r in rows)
    assert load_tiers(grown) == written  # a new process reads the same tiers, not stale
