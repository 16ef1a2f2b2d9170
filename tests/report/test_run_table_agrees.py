"""Issue 40: the `run` table printed "QA 5.00" where `eval` marks the same figure "4.50*": the run
table read the answers of the run just made, without the judge's failed calibration; eval the
answers the verdicts count. The run table now shows eval's figures (and its "*") for each row."""

from __future__ import annotations

import re

from support import diagnosis as ds
from workbench.access.ladder import load_tiers
from workbench.access.runs import tier_hash
from workbench.cli.access import print_use
from workbench.cli.llm import _print_summary
from workbench.llm.figures import use_table
from workbench.llm.records import TierRun
from workbench.llm.store import LLMRunStore
from workbench.project.load import load_project
from workbench.session.runs import run_summary


def _qa_cell(out: str, system: str) -> str:
    line = next(x for x in out.splitlines() if system in x and "full" in x)
    return next(c for c in re.split(r"[│|]", line) if re.fullmatch(r"\s*\d\.\d\d\*?\s*", c)).strip()


def test_the_run_table_shows_the_figure_eval_shows(tmp_path, capsys):
    root = ds.make_project(tmp_path / "tiny")
    p = load_project(root)
    tiers = load_tiers(p).tiers
    full = next(t for t in tiers if t.name == "full")
    ds.calibrate(p, separates=False)  # a judge that gives 5/5 to everything: its scores are not evidence

    def run_of(scores: dict[str, float]) -> TierRun:
        return TierRun(system="model:local:oracle", model="local", task="oracle", variant="standard", tier="full",
                       tier_hash=tier_hash(p, full), key="test", fits=True, input_tokens=100, budget_tokens=7000, judge="local",
                       k=2, qa=[ds.qa_result(q, ds.ORACLE[q], sorted(p.query(q).gold_doc_ids), score=s) for q, s in scores.items()],
                       complete=True)

    LLMRunStore(p).save(run_of({"q1": 5.0, "q2": 4.0}))  # what is stored after two pasted runs
    just_run = run_of({"q1": 5.0})  # the second run: q1 alone, 5/5
    capsys.readouterr()
    print_use(use_table(p, [full]))
    eval_out = capsys.readouterr().out
    _print_summary(run_summary(p, [just_run], [full]))
    run_out = capsys.readouterr().out
    shown = _qa_cell(eval_out, "model:local:oracle")
    assert shown == "4.50*"  # the mean of the stored answers, the judge failed calibration
    assert _qa_cell(run_out, "model:local:oracle") == shown
    assert "failed its calibration" in run_out
