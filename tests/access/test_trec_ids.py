"""Issue 20 item 9: exports keep their columns when names hold whitespace."""

from __future__ import annotations

import msgspec
import pytest

from workbench.access.runs import SystemRun
from workbench.access.trec import run_text
from workbench.errors import BadInput
from workbench.project.labels import qrels_tsv
from workbench.project.load import load_project
from workbench.records import Hit, RankedList


def test_a_tab_in_a_tier_name_keeps_six_trec_columns():
    run = SystemRun("bm25", "base:fin\tance", "h", "k", 2, [RankedList("q1", [Hit(1, 2.0), Hit(3, 1.0)])])
    lines = run_text(run).splitlines()
    assert len(lines) == 2 and all(len(line.split()) == 6 for line in lines)
    assert all(line.count("\t") == 0 for line in lines)


@pytest.mark.parametrize("bad", ["d\t1", "d\n1", "d\r1"])
def test_a_source_id_with_a_tab_or_newline_is_refused_by_the_qrels_writer(tiny_project, bad):
    project = load_project(tiny_project)
    project.documents[1] = msgspec.structs.replace(project.documents[1], source_id=bad)
    with pytest.raises(BadInput, match="tab or line break"):
        qrels_tsv(project)
