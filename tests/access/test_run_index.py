"""One query's stored rankings are read from its span of each run file (the inspector's path), and
equal what decoding the whole files gives; a file the index does not vouch for is decoded whole."""

from __future__ import annotations

import msgspec
import pytest

from workbench.access import runs
from workbench.access.ladder import load_tiers
from workbench.access.runs import RunStore, SystemRun, encode_run
from workbench.inspection.rankings import stored_rankings
from workbench.project.load import load_project
from workbench.records import Hit, RankedList
from workbench.session import inspect, open_session


def test_encode_run_is_msgspecs_encoding_with_each_querys_span():
    run = SystemRun("bm25", "base:x", "th", "key", 3, [
        RankedList("q1", [Hit(4, 1.5), Hit(2, 0.25)]), RankedList('q"2', []), RankedList("q3", [Hit(9, -1.0)])],
        {"q1": "a", 'q"2': "b"})
    data, spans = encode_run(run)
    assert data == msgspec.json.encode(run)
    assert list(spans) == ["q1", 'q"2', "q3"]
    for ranking in run.rankings:
        start, length = spans[ranking.query_id]
        assert msgspec.json.decode(data[start:start + length], type=RankedList) == ranking


@pytest.fixture
def store_and_tiers(evaluated_copy):
    project = load_project(evaluated_copy)
    return RunStore(project), load_tiers(project).tiers


def test_every_querys_rankings_read_by_span_equal_the_whole_files(store_and_tiers, monkeypatch):
    store, tiers = store_and_tiers
    expected = {(t.name, q): stored_rankings(store.project, t, q, store) for t in tiers for q in t.query_ids}
    assert any(expected.values())
    for tier in tiers:  # a copied project's run files have new inodes: indexed again, once
        store.query_rankings(tier, tier.query_ids[0])
        for path in store._dir(tier.name).glob("*.json"):
            assert store.index_path(path).exists(), path

    def whole(path):
        raise AssertionError(f"{path} decoded whole")

    monkeypatch.setattr(store, "_decode", whole)  # from here on, only spans may be read
    got = {(t.name, q): store.query_rankings(t, q) for t in tiers for q in t.query_ids}
    assert got == expected
    assert store.query_rankings(tiers[0], "no-such-query") == {}


def test_a_rewritten_run_file_is_read_again_not_from_its_old_index(store_and_tiers):
    store, tiers = store_and_tiers
    tier = tiers[-1]
    query = tier.query_ids[0]
    store.query_rankings(tier, query)
    path = store.path("bm25", tier.name)
    run = msgspec.json.decode(path.read_bytes(), type=SystemRun)
    changed = msgspec.structs.replace(run, rankings=[RankedList(r.query_id, list(reversed(r.hits))) for r in run.rankings])
    path.write_bytes(msgspec.json.format(msgspec.json.encode(changed), indent=2))  # another writer's layout
    runs._DECODED.clear()
    assert store.query_rankings(tier, query)["bm25"] == list(reversed(run.hits(query) or []))
    path.write_bytes(msgspec.json.encode(run))  # the writer's bytes again: indexed anew
    assert store.query_rankings(tier, query)["bm25"] == run.hits(query)
    index = msgspec.json.decode(store.index_path(path).read_bytes(), type=runs.RunIndex)
    assert index.stamp[0] == path.stat().st_size


def test_inspect_reads_only_the_querys_spans(evaluated_copy, monkeypatch):
    session, _ = open_session(evaluated_copy)
    tier = session.tiers[-1]
    query = tier.query_ids[0]
    RunStore(session.project).query_rankings(tier, query)  # every file indexed
    monkeypatch.setattr(RunStore, "_decode", lambda self, path: (_ for _ in ()).throw(AssertionError(f"{path} decoded whole")))
    ins = inspect(session, query, tier.name)
    assert {s.system for s in ins.systems} >= {"bm25", "dense", "hybrid"}
    gold = session.project.query(query).gold_doc_ids
    assert all(set(s.gold_ranks) == set(gold) for s in ins.systems)
