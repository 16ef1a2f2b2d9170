"""The use figures count the answers the verdicts count (issue 29: one source of which stored runs
count): one precedence order (workbench/llm/sources.py), a query's answer counted once per system,
label-dependent answers only where they were made under the loaded labels or the same ones."""

from __future__ import annotations

import msgspec
import pytest

from support import diagnosis as ds
from workbench.access.ladder import load_tiers
from workbench.diagnosis.verdicts import read_verdicts
from workbench.llm.figures import counted_runs, use_rows
from workbench.llm.store import LLMRunStore, tui_root
from workbench.project.load import load_project
from workbench.project.versions import write_version

ORACLE = "model:local:oracle"


@pytest.fixture
def diag_copy(tmp_path):
    root = ds.make_project(tmp_path / "tiny")
    ds.fill(root)
    return root


def _full(project):
    return next(t for t in load_tiers(project).tiers if t.name == "full")


def _same_answers_as_the_verdicts(project, tier) -> dict[str, str]:
    """query → the oracle answer the figures count, checked against the verdicts' (each once)."""
    counted = [(r.query_id, r.answer) for system, run in counted_runs(project, tier) if system.startswith(ORACLE)
               for r in run.qa]
    assert len({q for q, _ in counted}) == len(counted)  # no answer counted twice
    verdicts = {v.query_id: v for v in read_verdicts(project, [tier]).of("hybrid+local")}
    assert dict(counted) == {q: v.oracle.answer for q, v in verdicts.items() if v.oracle is not None}
    return dict(counted)


def test_a_tui_answer_of_a_query_the_tier_run_answers_is_not_counted_twice(diag_copy):
    p = load_project(diag_copy)
    full = _full(p)
    ds.store_answers(p, full, "oracle", {"q1": ("Lyon", [1])}, store=LLMRunStore(p, root=tui_root(p, "q1"), publish=False))
    rows = use_rows(p, [full])["full"]
    # was: a row "model:local:oracle [TUI, 1 query]" beside the tier run's, q1 counted in both
    assert [s for s in rows if s.startswith(ORACLE)] == [ORACLE] and rows[ORACLE].n == 3
    assert _same_answers_as_the_verdicts(p, full)["q1"] == ds.ORACLE["q1"]  # the tier run's answer wins


def test_a_versions_own_tui_answer_is_counted_where_its_verdict_reads_it(diag_copy):
    p = load_project(diag_copy)
    q3 = msgspec.structs.replace(p.query("q3"), gold_doc_ids=[4, 5, 6], hard_negative_ids=[])
    write_version(p, [p.query("q1"), p.query("q2"), q3], [], made_by="test", name="v")
    pv = load_project(diag_copy, "v")
    full = _full(pv)
    store = LLMRunStore(pv, root=tui_root(pv, "q3", "oracle"), publish=False)
    ds.store_answers(pv, full, "oracle", {"q3": ("apple pie and cherry pie", [4, 5, 6])}, store=store)
    rows = use_rows(pv, [full])["full"]
    assert rows[ORACLE].n == 2  # q1, q2: their labels are the original's; q3's old answer saw other gold
    assert rows[f"{ORACLE} [TUI, 1 query]"].n == 1  # was: not counted at all under the version
    assert _same_answers_as_the_verdicts(pv, full)["q3"] == "apple pie and cherry pie"
    assert f"{ORACLE} [TUI, 1 query]" not in use_rows(p, [_full(p)])["full"]  # the original never reads it


def test_another_versions_answers_count_where_the_labels_are_the_same(diag_copy):
    from workbench.llm.store import store_for

    p = load_project(diag_copy)
    for tier in load_tiers(p).tiers:
        LLMRunStore(p).path(ORACLE, tier.name).unlink()
    q3 = msgspec.structs.replace(p.query("q3"), gold_doc_ids=[4, 5, 6], hard_negative_ids=[])
    write_version(p, [p.query("q1"), p.query("q2"), q3], [], made_by="test", name="labels-1")
    p1 = load_project(diag_copy, "labels-1")
    full = _full(p1)
    ds.store_answers(p1, full, "oracle", {q: (ds.ORACLE[q], [1]) for q in ("q1", "q2", "q3")}, store=store_for(p1, "oracle"))
    # the original reads labels-1's oracle answers of q1 and q2 (labelled the same), never q3's
    rows = use_rows(load_project(diag_copy), [full])["full"]
    assert rows[ORACLE].n == 2  # was: no oracle row at all, while the verdicts used them
    assert set(_same_answers_as_the_verdicts(load_project(diag_copy), full)) == {"q1", "q2"}
    assert use_rows(p1, [full])["full"][ORACLE].n == 3
