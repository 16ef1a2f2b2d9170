"""The near misses of the LOST gold come first: on hr-07 of the sample corpus (multi-source, gold
503188 at #1 everywhere, gold 756778 ranked out), the first near misses imitate 756778."""

from __future__ import annotations

from workbench.access.ladder import load_tiers
from workbench.inspection.rankings import inspect_stored, lost_gold
from workbench.project.load import load_project


def test_near_misses_of_the_lost_gold_lead(sample_project):
    p = load_project(sample_project)
    tier = next(t for t in load_tiers(p).tiers if t.kind == "base" and "hr-07" in p.tier_query_ids(t))  # hybrid #15 > K
    ins = inspect_stored(p, tier, p.query("hr-07"))
    lost = lost_gold(ins.systems, ins.k)
    found = set(ins.gold) - lost
    assert lost and found  # one gold kept, one lost: the case that misled
    imitators = [m.imitates in lost for m in ins.near_misses]
    assert any(imitators) and not all(imitators)
    # every near miss of a lost gold before every near miss of a found one
    assert imitators == sorted(imitators, reverse=True)
    assert ins.near_misses[0].imitates in lost
    hard = [m for m in ins.near_misses if m.kind == "hard_negative"]
    assert hard and ins.near_misses.index(hard[0]) > 0  # a hard negative of the found gold no longer leads


def test_a_system_that_ranked_nothing_for_the_query_loses_no_gold(sample_project):
    """An imported production run without this query (an empty ranking) never searched: it does not
    make the found gold 'lost' (seen in the TUI after import-traces of other queries)."""
    from workbench.access.runs import RunStore
    from workbench.inspection.rankings import inspect_query, stored_rankings

    p = load_project(sample_project)
    tier = next(t for t in load_tiers(p).tiers if t.kind == "base" and "hr-07" in p.tier_query_ids(t))
    ranked = stored_rankings(p, tier, "hr-07", RunStore(p))
    plain = inspect_query(p, tier, p.query("hr-07"), ranked)
    with_empty = inspect_query(p, tier, p.query("hr-07"), {**ranked, "run:prod": []})
    assert lost_gold(with_empty.systems, with_empty.k) == lost_gold(plain.systems, plain.k) != set(plain.gold)
    assert [m.doc_id for m in with_empty.near_misses] == [m.doc_id for m in plain.near_misses]
