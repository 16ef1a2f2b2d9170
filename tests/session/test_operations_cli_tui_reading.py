"""The reading commands and the TUI read one operation each, and agree: `diagnose` (its verdicts
and its recommendations: the Diagnosis tab's), `unjudged` (the inspector's stepper), `explain`
(the inspector's why pane), `eval`'s effective corpus sizes (the overview's). And `diagnose
--oracle-model X` reads every part of what it prints with X (issue 41: the recommendations and
the insight were read by readers of their own, with the default oracle model)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from support.recording import recording as _recording

from support.diagnosis import fill, make_project
from workbench.cli import main
from workbench.correctness import comparison_candidates
import workbench.session.diagnosing as diagnosing
import workbench.session.evaluation as evaluation
from workbench.session import (diagnose, explain_on, insight_overview, load_recommendations, open_session, select,
                               unjudged_documents, verdict_system)


def cli(*args) -> str:
    r = CliRunner().invoke(main, [str(a) for a in args])
    assert r.exit_code == 0, r.output
    return r.output


def _plain(value) -> object:
    return json.loads(msgspec.json.encode(value))


@pytest.fixture
def diagnosed(tmp_path) -> Path:
    """support/diagnosis.py's project: every verdict known (ACCESS, USE-UNDER-DISTRACTORS, USE, PASS), K = 2."""
    root = make_project(tmp_path / "diag")
    fill(root, oracle_queries=("q1", "q2"))
    return root


def test_diagnose_and_the_diagnosis_tab_give_the_same_verdicts_and_recommendations(diagnosed, monkeypatch):
    import workbench.session as facade

    seen = _recording(monkeypatch, diagnosing, "diagnosis_view")
    monkeypatch.setitem(facade.__dict__, "diagnosis_view", diagnosing.diagnosis_view)
    text = " ".join(cli("diagnose", diagnosed).split())
    assert len(seen) == 1  # the CLI printed the operation's view
    view = seen[0]
    as_json = json.loads(cli("diagnose", diagnosed, "--json"))
    session, _ = open_session(diagnosed)
    tui = diagnose(session)
    assert as_json == _plain(tui.qv) == _plain(view.verdicts)
    assert {v["verdict"] for v in as_json["verdicts"]} >= {"ACCESS", "USE", "USE-UNDER-DISTRACTORS", "PASS"}
    assert view.system == verdict_system(session)
    recs = load_recommendations(session)
    assert recs and _plain(recs) == _plain(view.recommendations)
    for rec in recs:  # what the CLI printed is the operation's, in its order
        assert " ".join(rec.text.split()) in text
    assert text.index(recs[0].text) < text.index(recs[-1].text)
    split = view.distractors[0]
    assert (split.total, split.not_split) == (3, 3) and f"USE-UNDER-DISTRACTORS {split.total} =" in text


def test_unjudged_lists_what_the_inspector_steps_through(evaluated_copy):
    rows = json.loads(cli("unjudged", evaluated_copy, "--tiers", "full", "--list", "--json"))
    by_query: dict[str, dict[int, bool]] = {}
    for row in rows:
        assert row["tier"] == "full"
        for d in row["docs"]:
            by_query.setdefault(d["query_id"], {})[d["doc_id"]] = d["answer_bearing"]
    assert len(by_query) >= 5
    session, _ = open_session(evaluated_copy)
    for query_id, docs in sorted(by_query.items())[:8]:
        stepper = unjudged_documents(session, query_id, "full")
        assert {s.doc.doc_id: s.doc.answer_bearing for s in stepper} == docs


def test_explain_and_the_inspector_why_pane_give_one_explanation(evaluated_copy):
    session, _ = open_session(evaluated_copy)
    full = session.tier("full")
    query = next(q for q in session.project.queries if len(q.gold_doc_ids) >= 1 and q.hard_negative_ids
                 and set(q.gold_doc_ids) | set(q.hard_negative_ids) <= set(full.doc_ids))
    docs = [query.gold_doc_ids[0], query.hard_negative_ids[0]]
    printed = json.loads(cli("explain", evaluated_copy, query.query_id, *docs, "--tier", "full", "--json"))
    pane = explain_on(session.project, full, query.query_id, docs)
    assert printed == _plain(pane) and [d["doc_id"] for d in printed["docs"]] == docs


def test_eval_effective_sizes_are_the_overview_s(evaluated_copy, monkeypatch):
    import workbench.session as facade

    seen = _recording(monkeypatch, evaluation, "eval_report")
    monkeypatch.setitem(facade.__dict__, "eval_report", evaluation.eval_report)
    text = " ".join(cli("eval", evaluated_copy, "--no-models").split())
    assert len(seen) == 1 and seen[0].document is None
    sizes = seen[0].effective_sizes
    assert sizes and "Effective corpus size" in text
    session, _ = open_session(evaluated_copy)
    lines = insight_overview(session)
    headlines = [line for line in lines if " by the gold's depth" not in line]
    assert headlines and set(headlines) <= {e.sentence for e in sizes}


# ------------------------------------------------------------ --oracle-model reaches every part


@pytest.fixture
def production(sample_project, tmp_path) -> tuple[Path, str]:
    """The sample corpus with production's answers imported (near misses only in the context of
    the odd-numbered comparison queries), the oracle answer of `local` for one of them, `local`
    the judge (so the default oracle model) and a second model `big` with no answer stored."""
    from workbench.access.ladder import load_tiers
    from workbench.access.runs import tier_hash
    from workbench.llm.records import QAResult, TierRun
    from workbench.llm.store import LLMRunStore
    from workbench.project.load import load_project

    root = tmp_path / "sc"
    shutil.copytree(sample_project, root)
    toml = root / "workbench.toml"
    toml.write_text('judge = "local"\n' + toml.read_text() + '\n[models.big]\nmodel = "big"\nbase_url = "http://127.0.0.1:9/v1"\n')
    qs = [q for q in map(json.loads, (root / "queries.jsonl").read_text().splitlines()) if q["kind"] == "comparison"]
    lines = []
    for i, q in enumerate(qs):
        gold, candidates = comparison_candidates(q["answer"])
        other = next(c for c in candidates if c != gold)
        ctx = q["gold_doc_ids"] if i % 2 == 0 else q["hard_negative_ids"][:4]
        lines.append(json.dumps({"query_id": q["query_id"], "answer": f"{other} paid more.", "context_doc_ids": ctx}))
    (tmp_path / "prod.jsonl").write_text("\n".join(lines) + "\n")
    cli("import-answers", root, tmp_path / "prod.jsonl", "--name", "prod", "--no-judge")
    lost = qs[1]
    project = load_project(root)
    full = next(t for t in load_tiers(project).tiers if t.name == "full")
    oracle = QAResult(query_id=lost["query_id"], answer=comparison_candidates(lost["answer"])[0], refusal=False, judge_scores=[],
                      judge_median=None, judge_spread=None, judge_failures=0, judge_failure=False, exact=None, contains=None,
                      prompt_tokens=1, completion_tokens=1, latency_s=0.1, context_doc_ids=lost["gold_doc_ids"])
    LLMRunStore(project).save(TierRun(system="model:local:oracle", model="local", task="oracle", variant="standard", tier="full",
                                      tier_hash=tier_hash(project, full), key="t", fits=True, input_tokens=10, budget_tokens=7000,
                                      qa=[oracle]))
    return root, lost["query_id"]


def _readers(monkeypatch) -> list:
    """Every VerdictReader made, as made (its oracle model)."""
    from workbench.diagnosis import loading

    made, real = [], loading.StoredResults.__init__

    def init(self, *args, **kwargs):
        real(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(loading.StoredResults, "__init__", init)
    return made


def test_diagnose_oracle_model_is_the_one_every_part_reads(production, monkeypatch):
    root, lost = production
    args = ("diagnose", root, "--tiers", "full", "--system", "run:prod:answers")
    made = _readers(monkeypatch)
    cli(*args)
    assert made and {r.oracle_model for r in made} == {"local"}  # the judge: the default
    default = json.loads(cli("diagnose", root, "--tiers", "full", "--json"))
    assert {(v["query_id"], v["system"]): v["verdict"] for v in default["verdicts"]}[(lost, "run:prod:answers")] == "ACCESS"
    made.clear()
    text = " ".join(cli(*args, "--oracle-model", "big").split())
    # the verdicts, the recommendations and the effective sizes: one reader, with big (before: two readers with local)
    assert len(made) == 1 and made[0].oracle_model == "big"
    assert "--model big --task oracle" in text and "Recommendations for run:prod:answers" in text
    as_json = json.loads(cli("diagnose", root, "--tiers", "full", "--oracle-model", "big", "--json"))
    settled = {v["query_id"]: v for v in as_json["verdicts"] if v["system"] == "run:prod:answers"}
    assert settled[lost]["verdict"] == "ACCESS?"  # big's oracle answer is not stored: provisional again
    view = diagnosing.diagnosis_view(select(root, "full"), "big", "run:prod:answers")
    assert view.oracle_model == "big" and _plain(view.verdicts) == as_json
    assert any(p.word == "ACCESS?" and "--model big" in p.example.command for p in view.pending)
