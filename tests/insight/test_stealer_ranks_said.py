"""Issue 40: `stealers --query` printed "430 (#not retrieved)" for a gold document no ranking
held: a rank sign before words. A rank is "#12"; a gold not retrieved is "(not retrieved)"."""

from __future__ import annotations

from click.testing import CliRunner

from support import diagnosis as ds
from workbench.access.ladder import load_tiers
from workbench.cli import main
from workbench.project.load import load_project


def test_a_gold_not_retrieved_is_said_so_without_a_rank_sign(tmp_path):
    root = ds.make_project(tmp_path / "tiny")
    p = load_project(root)
    full = next(t for t in load_tiers(p).tiers if t.name == "full")
    # q1's gold (1) is not in the short ranking at all; q2's gold is ranked, below a stealer
    ds.store_ranking(p, full, rankings={"q1": [3, 2], "q2": [6, 4, 5], "q3": [4, 6, 5]})
    gold = {q: sorted(p.query(q).gold_doc_ids) for q in ("q1", "q2")}
    said = {}
    for q in ("q1", "q2"):
        res = CliRunner().invoke(main, ["stealers", str(root), "--query", q, "--tiers", "full"], terminal_width=250)
        assert res.exit_code == 0, res.output
        said[q] = res.output
    assert "#not retrieved" not in said["q1"] and f"{gold['q1'][0]} (not retrieved)" in said["q1"]
    assert any(f"{g} (#" in said["q2"] for g in gold["q2"])
