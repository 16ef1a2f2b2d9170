"""Production's imported answers diagnosed as a system of its own (issue 18), on the sample
corpus's 16 comparison queries: what production read decides access, its answer use, the
oracle model's answer settles a provisional access failure. And what import-answers refuses."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.correctness import comparison_candidates

REPO = Path(__file__).resolve().parents[2]


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def laddered(tmp_path_factory) -> Path:
    """The sample corpus, laddered, with bm25 run on the full tier (as the issue's user did)."""
    root = tmp_path_factory.mktemp("prod") / "sc"
    root.mkdir()
    for name in ("workbench.toml", "documents.jsonl", "queries.jsonl"):
        shutil.copy2(REPO / "sample_corpus" / name, root / name)
    assert cli("ladder", root).exit_code == 0
    r = cli("eval", root, "--retrievers", "bm25", "--tiers", "full")
    assert r.exit_code == 0, r.output
    return root


@pytest.fixture
def project(laddered, tmp_path) -> Path:
    dst = tmp_path / "sc"
    shutil.copytree(laddered, dst)
    return dst


def comparisons(root: Path) -> list[dict]:
    return [q for q in map(json.loads, (root / "queries.jsonl").read_text().splitlines()) if q["kind"] == "comparison"]


def answer_sets(root: Path, tmp: Path) -> dict[str, Path]:
    """Three answer sets; the even-numbered queries had the gold in production's context, the others near misses only."""
    out = {}
    for mode in ("gold", "other", "both"):
        lines = []
        for i, q in enumerate(comparisons(root)):
            gold, candidates = comparison_candidates(q["answer"])
            other = next(c for c in candidates if c != gold)
            text = {"gold": f"{gold}.", "other": f"{other} paid more.", "both": f"{other} is behind {gold}."}[mode]
            ctx = q["gold_doc_ids"] if i % 2 == 0 else q["hard_negative_ids"][:4]
            lines.append(json.dumps({"query_id": q["query_id"], "answer": text, "context_doc_ids": ctx, "latency_s": 0.5}))
        out[mode] = tmp / f"{mode}.jsonl"
        out[mode].write_text("\n".join(lines) + "\n")
    return out


def verdicts(root: Path, *extra: str) -> tuple[dict, dict]:
    r = cli("diagnose", root, "--tiers", "full", "--json", *extra)
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    return doc, {(v["system"], v["query_id"]): v for v in doc["verdicts"]}


def test_production_answers_reach_pass_use_access_and_undecided(project, tmp_path):
    sets = answer_sets(project, tmp_path)
    for mode, path in sets.items():
        r = cli("import-answers", project, path, "--name", mode, "--no-judge")
        assert r.exit_code == 0, r.output
    said = " ".join(cli("import-answers", project, sets["both"], "--name", "both", "--no-judge").output.split())
    assert "right 0, wrong 0, undecided 16 (n=16;" in said and "EM 0.00 (n=16)" in said  # main: EM (n=1)
    doc, v = verdicts(project)
    names = [s["name"] for s in doc["systems"]]
    assert names == ["bm25", "run:both:answers", "run:gold:answers", "run:other:answers"]  # main: bm25+gold, …
    prod = {s["name"]: s for s in doc["systems"]}["run:gold:answers"]
    assert prod["reader"] == "production" and prod["oracle_model"] == "local"
    assert doc["primary"] == "bm25"  # production answered one tier only: not the default
    for i, q in enumerate(comparisons(project)):
        read = i % 2 == 0
        g, o, b = (v[(f"run:{m}:answers", q["query_id"])] for m in ("gold", "other", "both"))
        assert g["verdict"] == "PASS" and g["parametric"] == (not read)
        if read:
            assert (o["verdict"], o["rule"]) == ("USE", "U2") and "all gold among the 2 documents production read" in o["because"]
            assert (b["verdict"], b["rule"]) == ("UNDECIDED", "Q1") and "names both" in b["because"]
        else:
            assert (o["verdict"], o["rule"]) == ("ACCESS?", "A2") and "production read 0 of 2 gold" in o["because"]
            assert o["command"].endswith(f"--model local --task oracle --tiers full --queries {q['query_id']}")
            assert b["verdict"] == "ACCESS?"
        assert "not the gold candidate" in o["answer"]["basis"] and o["answer"]["decision"] == "wrong"
    # the text output leads with what access shows, for the system shown (bm25: rankings only)
    lost = {x["query_id"] for x in doc["verdicts"] if x["system"] == "bm25" and x["verdict"] == "ACCESS?"}
    text = " ".join(cli("diagnose", project, "--tiers", "full").output.split())
    assert lost and text.startswith(f"access first: {len(lost)} quer(ies) whose gold does not reach the reader")
    # production's answers are nowhere a model: no command names an import as one
    assert not [x for x in doc["verdicts"] if "--model gold" in x["command"] or "--model other" in x["command"]]


def test_an_oracle_answer_settles_production_access_and_no_context_is_said(project, tmp_path):
    from workbench.access.ladder import load_tiers
    from workbench.llm.records import QAResult, TierRun
    from workbench.llm.store import LLMRunStore
    from workbench.project.load import load_project
    from workbench.access.runs import tier_hash

    sets = answer_sets(project, tmp_path)
    assert cli("import-answers", project, sets["other"], "--name", "prod", "--no-judge").exit_code == 0
    qs = comparisons(project)
    lost, no_ctx = qs[1], qs[3]  # near misses only in production's context
    p = load_project(project)
    full = next(t for t in load_tiers(p).tiers if t.name == "full")
    gold, _ = comparison_candidates(lost["answer"])
    oracle = QAResult(query_id=lost["query_id"], answer=gold, refusal=False, judge_scores=[], judge_median=None, judge_spread=None,
                      judge_failures=0, judge_failure=False, exact=None, contains=None, prompt_tokens=1, completion_tokens=1,
                      latency_s=0.1, context_doc_ids=lost["gold_doc_ids"])
    LLMRunStore(p).save(TierRun(system="model:local:oracle", model="local", task="oracle", variant="standard", tier="full",
                                tier_hash=tier_hash(p, full), key="t", fits=True, input_tokens=10, budget_tokens=7000, qa=[oracle]))
    # an answer with no context_doc_ids: nothing says what production read
    line = json.dumps({"query_id": no_ctx["query_id"], "answer": "Nobody knows."})
    (tmp_path / "noctx.jsonl").write_text(line + "\n")
    assert cli("import-answers", project, tmp_path / "noctx.jsonl", "--name", "blind", "--no-judge").exit_code == 0
    _, v = verdicts(project)
    settled = v[("run:prod:answers", lost["query_id"])]
    assert (settled["verdict"], settled["rule"]) == ("ACCESS", "A1") and settled["oracle"]["source"] == "tier run"
    blind = v[("run:blind:answers", no_ctx["query_id"])]
    assert blind["verdict"] == "NOT-YET" and blind["rule"] == "N5" and blind["because"].startswith("no context known")
    assert "import-run" in blind["command"]
    # another oracle model: its answers are not there yet, so the verdict is provisional again
    toml = project / "workbench.toml"
    toml.write_text(toml.read_text() + '\n[models.big]\nmodel = "big"\nbase_url = "http://127.0.0.1:9/v1"\n')
    _, v = verdicts(project, "--oracle-model", "big")
    assert v[("run:prod:answers", lost["query_id"])]["verdict"] == "ACCESS?"
    assert "--model big --task oracle" in v[("run:prod:answers", lost["query_id"])]["command"]
    r = cli("diagnose", project, "--tiers", "full", "--oracle-model", "nosuch")
    assert r.exit_code == 2 and "unknown model 'nosuch'" in r.output


@pytest.mark.parametrize("lines, where", [
    ([{"query_id": "finance-05", "answer": None}], "answers.jsonl:1: answer: Expected `str`, got `null`"),
    ([{"query_id": "finance-05", "answer": {"text": "Shaeda"}}], "answers.jsonl:1: answer: Expected `str`, got `object`"),
    ([{"query_id": "finance-05", "answer": "a"}, {"query_id": "finance-05", "answer": "b"}],
     "answers.jsonl:2: query_id: a second answer for query 'finance-05' (the first is on line 1)"),
    ([{"query_id": "finance-05", "answer": "a", "latency_s": -3.0}], "answers.jsonl:1: latency_s: must be a finite number of seconds ≥ 0"),
    (['{"query_id": "finance-05", "answer": "a", "latency_s": 1e999}'], "answers.jsonl:1: latency_s: Number out of range"),
])
def test_import_answers_refuses_what_it_cannot_store_faithfully(project, tmp_path, lines, where):
    path = tmp_path / "answers.jsonl"
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))  # 1e999 decodes as inf
    r = cli("import-answers", project, path, "--name", "prod", "--no-judge")
    assert r.exit_code == 2 and where in " ".join(r.output.split())
    assert not (project / ".workbench" / "imports" / "answers" / "prod.json").exists()  # nothing written


def test_import_answers_fails_when_every_judge_call_failed(project, tmp_path, fault_server):
    fault_server.default = 500
    toml = project / "workbench.toml"
    toml.write_text(toml.read_text() + f'\n[models.fault]\nmodel = "fault"\nbase_url = "{fault_server.base_url}"\nmax_retries = 0\n')
    path = answer_sets(project, tmp_path)["gold"]
    r = cli("import-answers", project, path, "--name", "prod", "--judge-model", "fault", "--judge-samples", "1")
    said = " ".join(r.output.split())
    assert r.exit_code == 1, r.output  # main: "judge failures 0", exit 0
    assert "Every judge call failed" in said and "judge failures 16 of 16 answers (0 judged)" in said
    assert "right 16, wrong 0, undecided 0 (n=16;" in said  # the deterministic decision stands beside it


def test_the_model_panel_record_carries_the_decision_and_the_candidate_named(project, tmp_path):
    from workbench.access.ladder import load_tiers
    from workbench.inspection.model_evidence import stored_evidence
    from workbench.project.load import load_project

    sets = answer_sets(project, tmp_path)
    for mode in ("both", "other"):
        assert cli("import-answers", project, sets[mode], "--name", mode, "--no-judge").exit_code == 0
    p = load_project(project)
    full = next(t for t in load_tiers(p).tiers if t.name == "full")
    ev = stored_evidence(p, full, "finance-05")
    both, other = ev["run:both:answers"], ev["run:other:answers"]
    assert both.decision == "undecided" and both.correct is None and len(both.named) == 2 and "names both" in both.basis
    assert other.decision == "wrong" and other.correct is False
    assert other.named == ["Momhia Credit Union's Deixnon Saver Select"] and "not the gold candidate" in other.basis
