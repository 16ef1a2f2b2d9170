"""Issue 33 (hardening round 3), production's answers: a damaged stored use run rebuilt from its
import record (2); a system asked for on tiers that do not hold it is told where it lives (12)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.project.load import load_project


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def with_answers(evaluated_copy, tmp_path):
    project = load_project(evaluated_copy)
    q1, q2 = project.queries[:2]
    path = tmp_path / "answers.jsonl"
    path.write_text(json.dumps({"query_id": q1.query_id, "answer": f"It is {q1.answer}."}) + "\n"
                    + json.dumps({"query_id": q2.query_id, "answer": "no idea"}) + "\n")
    result = cli("import-answers", evaluated_copy, path, "--name", "prod", "--no-judge")
    assert result.exit_code == 0, result.output
    return evaluated_copy


def _run_file(root):
    from workbench.llm.store import LLMRunStore

    return LLMRunStore(load_project(root)).path("run:prod:answers", "full")


@pytest.mark.parametrize("damage", [b"{not json", b""])
def test_a_damaged_answers_run_is_rebuilt_from_the_import_record(with_answers, damage):
    _run_file(with_answers).write_bytes(damage)
    result = cli("diagnose", with_answers, "--system", "run:prod:answers", "--tiers", "full")
    assert result.exit_code == 0, result.output
    assert "rebuilt from the import record" in result.stderr
    from workbench.llm.store import LLMRunStore

    run = LLMRunStore(load_project(with_answers)).load("run:prod:answers", "full")
    assert run is not None and len(run.qa) == 2
    again = cli("eval", with_answers, "--retrievers", "bm25", "--tiers", "full")
    assert again.exit_code == 0 and "run:prod:answers" in again.output


def test_a_missing_answers_run_is_rebuilt_for_eval(with_answers):
    _run_file(with_answers).unlink()
    result = cli("eval", with_answers, "--retrievers", "bm25", "--tiers", "full")
    assert result.exit_code == 0, result.output
    assert "run:prod:answers" in result.output and "rebuilt from the import record" in result.stderr


def test_a_system_on_other_tiers_is_told_where_it_lives(with_answers):
    result = cli("diagnose", with_answers, "--system", "run:prod:answers", "--tiers", "base")
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())
    assert "unknown system" not in said
    assert "stored on: full" in said and "--tiers full" in said
