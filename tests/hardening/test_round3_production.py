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


# ---------------------------------------------------------------- 12. messages


def _with_model(root):
    import msgspec

    from workbench.project.files import load_config, write_config
    from workbench.records import ModelConfig

    config = load_config(root)
    write_config(root, msgspec.structs.replace(config, models={"m": ModelConfig(model="m", base_url="http://127.0.0.1:9/v1",
                                                                                 context_window=8192)}))
    return root


def test_sweep_volume_with_no_arms_is_a_user_error(tiny_project):
    result = cli("sweep", "volume", _with_model(tiny_project), "--model", "m", "--families", "two-hop", "--dry-run")
    assert result.exit_code == 2, result.output
    assert "no arms" in result.output


def test_sweep_volume_without_enough_padding_is_a_message_not_a_traceback(tiny_project):
    result = cli("sweep", "volume", _with_model(tiny_project), "--model", "m", "--dry-run")
    assert result.exit_code == 1, result.output
    assert "padding" in result.output and "--lengths" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_a_nan_latency_names_the_field(evaluated_copy, tmp_path):
    qid = load_project(evaluated_copy).queries[0].query_id
    path = tmp_path / "answers.jsonl"
    path.write_text('{"query_id": "%s", "answer": "x", "latency_s": NaN}\n' % qid)
    result = cli("import-answers", evaluated_copy, path, "--name", "prod", "--no-judge")
    assert result.exit_code == 2, result.output
    assert f"{path}:1: latency_s: NaN is not a JSON number" in " ".join(result.output.split())


def test_a_failing_llm_reranker_is_named(tiny_project, fault_server):
    import msgspec

    from support.rerank import configure
    from workbench.access.indexing import build_indexes
    from workbench.access.ladder import write_ladder
    from workbench.project.files import load_config, write_config
    from workbench.records import ModelConfig

    config = load_config(tiny_project)
    write_config(tiny_project, msgspec.structs.replace(config, models={"stub": ModelConfig(model="stub", base_url=fault_server.base_url,
                                                                                           max_retries=0)}))
    configure(tiny_project, judge={"backend": "llm", "model": "stub"})
    build_indexes(load_project(tiny_project), write_ladder(load_project(tiny_project)).tiers, kinds=("sparse",))
    fault_server.default = 400  # every call refused
    result = cli("rerank", tiny_project, "bm25>rerank:judge@3", "--tiers", "full", "--k", "3")
    assert result.exit_code == 1, result.output
    assert "reranker 'judge'" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_the_second_of_two_identical_trace_imports_is_not_told_about_an_id_option(tiny_project, monkeypatch):
    """Both imports planned the same new queries from the project as it was; the first added them."""
    from workbench.triage.traces import importer

    data = __import__("pathlib").Path(__file__).parents[1] / "triage" / "data" / "phoenix" / "sent.otlp.jsonl"
    stale = load_project(tiny_project)  # what the second import read before the first wrote
    first = cli("import-traces", tiny_project, data, "--name", "prod", "--no-judge")
    assert first.exit_code == 0, first.output
    added = {q.query_id for q in load_project(tiny_project).queries} - {q.query_id for q in stale.queries}
    assert added
    calls = []

    def load(root, *args, **kw):
        calls.append(root)
        return stale if len(calls) == 1 else load_project(root, *args, **kw)

    monkeypatch.setattr(importer, "load_project", load)
    second = cli("import-traces", tiny_project, data, "--name", "prod", "--no-judge")
    assert second.exit_code == 0, second.output
    assert "--id" not in second.output
    assert len(load_project(tiny_project).queries) == len(stale.queries) + len(added)
