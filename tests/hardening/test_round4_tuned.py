"""Issue 40: tuned weights replaced in place at the same size with a new mtime are found by their
content (the hashes `tune` records) and named, never used as if this project had trained them:
`eval` of dense@tuned refuses them naming the file and `tune --retrain`, and `tune` trains again."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from test_round3_tuned import tuned, tuned_once  # noqa: F401  (fixtures: a project with a saved tuned model)
from workbench.cli import main
from workbench.project.load import load_project


@pytest.fixture
def recorded(request) -> Path:
    """round 3's tuned project (a saved model, the record `tune` writes) with the weights' hashes
    that `tune` now records beside the model it saves."""
    import msgspec

    from workbench.tune.train import MODEL_DIR, RECORD_FILE, load_record, tuned_root, weights_hashes

    root: Path = request.getfixturevalue("tuned")  # round 3's, copied for this test
    project = load_project(root)
    record = load_record(project)
    assert record is not None
    weights = weights_hashes(tuned_root(project) / MODEL_DIR)
    assert weights
    (tuned_root(project) / RECORD_FILE).write_bytes(msgspec.json.encode(msgspec.structs.replace(record, weights=weights)))
    return root


def _replace_in_place(path: Path) -> None:
    """Other weights of the same size written into the same file; its mtime moves (a copy over it)."""
    st = path.stat()
    data = bytearray(path.read_bytes())
    end = len(data) - 64
    data[end - 4096:end] = bytes(reversed(data[end - 4096:end]))  # tensor bytes, the header untouched
    with open(path, "r+b") as fh:
        fh.write(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    assert path.stat().st_size == st.st_size


def test_weights_replaced_in_place_are_named_not_used(recorded, caplog):
    root = recorded
    from workbench.tune.run import needs_training
    from workbench.tune.train import MODEL_DIR, TuneOptions, model_problem, tuned_root

    project = load_project(root)
    model = tuned_root(project) / MODEL_DIR
    weights = next(model.rglob("model.safetensors"))
    args = ["eval", str(root), "--retrievers", "dense@tuned", "--tiers", "full", "--no-models", "--json"]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output  # the weights tune saved: used
    assert not needs_training(project, TuneOptions(batch_size=2))

    _replace_in_place(weights)
    assert model_problem(model) is None  # still a well-formed weights file: only its content tells
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    said = " ".join(result.output.split())
    assert "weights changed since `tune` saved them" in said and "model.safetensors" in said and "--retrain" in said

    shown = CliRunner().invoke(main, ["eval", str(root), "--tiers", "full"])  # a reader of the stored runs
    assert shown.exit_code == 0, shown.output
    said = " ".join(shown.output.split())
    assert "weights changed since `tune` saved them" in said and "stored runs (dense@tuned, hybrid@tuned) are left out" in said

    caplog.set_level(logging.WARNING, "workbench.recovery")
    assert needs_training(load_project(root), TuneOptions(batch_size=2))  # `tune` trains again, saying why
    assert "not the weights `tune` trained" in caplog.text and "training the tuned embedder again" in caplog.text


def test_an_unchanged_model_is_hashed_once_then_trusted_by_its_stat(recorded, monkeypatch):
    root = recorded
    from workbench.tune import train
    from workbench.tune.train import load_record, weights_changed

    project = load_project(root)
    record = load_record(project)
    assert record is not None and weights_changed(project, record) is None
    hashed = []
    real = train.sha256_file
    monkeypatch.setattr(train, "sha256_file", lambda p: hashed.append(p) or real(p))
    assert weights_changed(project, record) is None
    assert hashed == []  # nothing read again while every file's identity is as checked
