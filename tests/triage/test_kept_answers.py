"""Production's imported answers are kept by the tier's documents (issue 29): adding a query
leaves every other query's production answer, its judge scores and its verdict as they were."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.access.ladder import ensure_tiers
from workbench.access.runs import tier_docs_hash, tier_hash
from workbench.cli import main
from workbench.llm.store import LLMRunStore
from workbench.project.load import load_project
from workbench.triage.answers import full_tier
from workbench.triage.queries import add_query

REPO = Path(__file__).resolve().parents[2]
SYSTEM = "run:prod:answers"


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def laddered(tmp_path_factory) -> Path:
    """The sample corpus, laddered, bm25 run on the full tier (rankings need no model)."""
    root = tmp_path_factory.mktemp("kept") / "sc"
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


def _answers_file(root: Path, tmp: Path) -> Path:
    """Production's answer to every labelled query: its gold answer for half, a wrong one for the rest;
    what it read: the gold documents, or the hard negatives."""
    lines = []
    queries = [json.loads(line) for line in (root / "queries.jsonl").read_text().splitlines()]
    for i, q in enumerate(q for q in queries if q["gold_doc_ids"] and q["answer"]):
        right = i % 2 == 0
        lines.append(json.dumps({"query_id": q["query_id"], "answer": q["answer"] if right else "I could not say.",
                                 "context_doc_ids": q["gold_doc_ids"] if right else q["hard_negative_ids"][:3],
                                 "latency_s": 0.5}))
    path = tmp / "prod.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _production_verdicts(root: Path) -> dict:
    r = cli("diagnose", root, "--tiers", "full", "--json")
    assert r.exit_code == 0, r.output
    return {(v["query_id"], v["tier"]): v for v in json.loads(r.output)["verdicts"] if "prod" in v["system"]}


def test_an_added_query_keeps_every_production_answer_judgement_and_verdict(project, tmp_path, fault_server):
    fault_server.responder = lambda messages: "Score: 4"
    toml = project / "workbench.toml"
    toml.write_text(toml.read_text() + f'\n[models.fault]\nmodel = "fault"\nbase_url = "{fault_server.base_url}"\nmax_retries = 0\n')
    r = cli("import-answers", project, _answers_file(project, tmp_path), "--name", "prod", "--judge-model", "fault",
            "--judge-samples", "1")
    assert r.exit_code == 0, r.output
    p = load_project(project)
    full = full_tier(ensure_tiers(p).tiers)
    (before,) = [run for run in LLMRunStore(p).runs(full) if run.system == SYSTEM]
    assert before.qa and all(a.judged and a.judge_median == 4 for a in before.qa)
    assert before.docs_hash == tier_docs_hash(p, full)
    verdicts = _production_verdicts(project)
    assert verdicts and {v["verdict"] for v in verdicts.values()} != {"ACCESS?"}

    asked = fault_server.chat_requests
    added = add_query(project, "Which of the two companies reported the larger loss?", answer="neither")
    p2 = load_project(project)
    full2 = full_tier(ensure_tiers(p2).tiers)
    assert added.query_id in full2.query_ids and tier_hash(p2, full2) != before.tier_hash  # the tier's query set changed
    (after,) = [run for run in LLMRunStore(p2).runs(full2) if run.system == SYSTEM]
    assert after.qa == before.qa  # every answer and judge score as stored
    assert _production_verdicts(project) == verdicts
    # importing the same answers again finds the stored run current: nothing is judged again
    r = cli("import-answers", project, tmp_path / "prod.jsonl", "--name", "prod", "--judge-model", "fault",
            "--judge-samples", "1")
    assert r.exit_code == 0, r.output
    assert fault_server.chat_requests == asked
    assert LLMRunStore(p2).load(SYSTEM, full2.name).qa == before.qa
