"""The sweeps' operations (workbench/session/sweeps.py), which `workbench sweep …` calls: a plan calls
and writes nothing, a run stores its arms and is told what was stored before it started, a rerun
resumes, and the stored sweeps are listed and shown as the report renders them. The bundled sample
corpus, the model and judge a scripted stub (tests/support/fault_server.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from support.paths import REPO
from workbench.session import SweepError, SweepRequest, list_sweeps, plan_sweep, run_sweep, show_sweeps


@pytest.fixture
def sample_with_stub(tmp_path, fault_server) -> Path:
    root = tmp_path / "sample"
    shutil.copytree(REPO / "sample_corpus", root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    (root / "workbench.toml").write_text((root / "workbench.toml").read_text()
                                         + f'\n[models.stub]\nmodel = "fault"\nbase_url = "{fault_server.base_url}"\n'
                                         'context_window = 8192\nmax_retries = 0\n')
    return root


def _volume(**kw) -> SweepRequest:
    params = dict(families=["needle", "single"], repeats=1, cases=1)
    return SweepRequest(kind="volume", model="stub", judge="stub", lengths=[1024], **kw, params=params)


def test_a_plan_counts_the_arms_and_calls_nothing(sample_with_stub, fault_server):
    plan = plan_sweep(sample_with_stub, _volume())
    assert plan.kind == "plan" and plan.arms == 2 and plan.stored == 0 and plan.to_run == 2
    assert [(r.family, r.length, r.arms) for r in plan.rows] == [("needle", "1024", 1), ("single-hop", "1024", 1)]
    assert all(r.min_tokens <= r.max_tokens <= 1024 for r in plan.rows) and plan.max_input_tokens <= 1024
    assert plan.judge_calls == 2 and plan.answer_tokens == 64
    assert fault_server.chat_requests == 0
    assert not (sample_with_stub / ".workbench" / "sweeps").exists()


def test_a_run_stores_its_arms_tells_what_was_done_and_resumes(sample_with_stub, fault_server):
    told = []
    fault_server.script = [500]  # the first answer call fails: a partial sweep
    first = run_sweep(sample_with_stub, _volume(), opened=told.append)
    assert first.kind == "run" and first.failed_calls == 1
    assert told[0].arms == 2 and told[0].done == 0 and not told[0].starts_local_server
    assert Path(told[0].folder).is_dir() and told[0].sweep_id == first.sweep_id
    again = run_sweep(sample_with_stub, _volume(), opened=told.append)
    assert told[1].done == 1 and again.failed_calls == 0 and again.sweep_id == first.sweep_id
    assert "### Volume sweep" in again.summary_markdown and "2/2 arms" in again.summary_markdown
    assert plan_sweep(sample_with_stub, _volume()).stored == 2  # the plan sees what is stored

    listed = list_sweeps(sample_with_stub)
    assert [(s.sweep_id, s.kind, s.model, s.done, s.arms) for s in listed.sweeps] == [(first.sweep_id, "volume", "stub", 2, 2)]
    shown = show_sweeps(sample_with_stub)
    assert shown.startswith("## Sweeps") and again.summary_markdown.strip() in shown
    assert show_sweeps(sample_with_stub, first.sweep_id) == again.summary_markdown


def test_nothing_stored_is_said_so(sample_with_stub):
    listed = list_sweeps(sample_with_stub)
    assert listed.sweeps == [] and listed.first_command.startswith("workbench sweep volume ")
    assert show_sweeps(sample_with_stub) == ""
    with pytest.raises(SweepError, match="no sweep 'volume-000'") as caught:
        show_sweeps(sample_with_stub, "volume-000")
    assert caught.value.option is None and caught.value.exit_code == 1


@pytest.mark.parametrize("request_, option, words", [
    (SweepRequest(kind="volume", model="stub", params={"families": ["three-hop"]}), "--families", "three-hop"),
    (SweepRequest(kind="distribution", model="stub", params={"distributions": ["gamma"]}), "--distributions", "unknown distribution"),
    (SweepRequest(kind="distribution", model="stub", lengths=[1024, 2048], params={}), "--lengths", "one length"),
    (SweepRequest(kind="depth", model="stub", params={"variants": ["loose"]}), "--variants", "unknown prompt variant"),
    (SweepRequest(kind="volume", model="stub", lengths=[900_000], params={}), "--lengths", "usable window"),
], ids=["family", "distribution", "two lengths", "variant", "too long"])
def test_a_bad_option_is_refused_naming_it(sample_with_stub, fault_server, request_, option, words):
    with pytest.raises(SweepError, match=words) as caught:
        plan_sweep(sample_with_stub, request_)
    assert caught.value.option == option and caught.value.exit_code == 2
    assert fault_server.chat_requests == 0


def test_an_unknown_model_is_refused(sample_with_stub):
    with pytest.raises(SweepError) as caught:
        plan_sweep(sample_with_stub, SweepRequest(kind="volume", model="nomodel"))
    assert "nomodel" in str(caught.value) and caught.value.option is None
