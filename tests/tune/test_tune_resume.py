"""The tune job that `workbench tune` and the Diagnosis tab's t run (workbench/tune/run.py): a
cancel while training leaves no model; a cancel while indexing keeps the trained model, so the
next run resumes at indexing without training again; the CLI's defaults are TuneOptions'."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from support.recommend import failing_project
from workbench.cli import main
from workbench.progress import Cancelled


def _cancel_at(stage_prefix: str):
    seen: list[str] = []

    def progress(stage: str, done: int, total: int) -> None:
        seen.append(stage)
        if stage.startswith(stage_prefix):
            raise Cancelled(f"{stage} cancelled")

    return progress, seen


def test_a_cancelled_tune_resumes_where_it_stopped(tmp_path):
    from workbench.access.ladder import load_tiers
    from workbench.access.runs import RunStore
    from workbench.project.load import load_project
    from workbench.tune.retrieval import TUNED_SYSTEMS
    from workbench.tune.run import needs_training, tune_project
    from workbench.tune.train import TuneOptions, load_record, tuned_root

    root = failing_project(tmp_path / "tiny")
    assert CliRunner().invoke(main, ["eval", str(root), "--retrievers", "hybrid"]).exit_code == 0
    project = load_project(root)
    full = [t for t in load_tiers(project).tiers if t.name == "full"]
    options = TuneOptions(batch_size=2)

    progress, _ = _cancel_at("tune")
    with pytest.raises(Cancelled):
        tune_project(project, full, options, progress=progress)
    assert load_record(project) is None and not (tuned_root(project) / "model").exists(), "no half-trained model"

    progress, seen = _cancel_at("embed")
    with pytest.raises(Cancelled):
        tune_project(project, full, options, progress=progress)
    assert "tune" in seen and not needs_training(project, options), "the finished training is kept"
    assert RunStore(project).load(TUNED_SYSTEMS[0], "full") is None

    stages: list[str] = []
    record, trained = tune_project(project, full, options, progress=lambda s, d, t: stages.append(s))
    assert not trained and "tune" not in stages, "resumed at indexing"
    run = RunStore(project).load(TUNED_SYSTEMS[0], "full")
    assert run is not None and {r.query_id for r in run.rankings} == set(record.split.held_out)

    from workbench.tune.retrieval import TunedDenseRetriever, tuned_model

    before = tuned_model(project)[1]
    tune_project(project, full, options, retrain=True)
    assert tuned_model(project)[1] != before, "a retrained model (same sizes) is a new identity: no stale index reused"
    assert RunStore(project).load(TUNED_SYSTEMS[0], "full").key == TunedDenseRetriever(project).key(full[0])


def test_the_cli_defaults_are_the_tune_options_defaults():
    from workbench.cli.tune import tune_command
    from workbench.tune.train import TuneOptions

    defaults = {p.name: p.default for p in tune_command.params}
    o = TuneOptions()
    assert (defaults["train_share"], defaults["split_seed"], defaults["epochs"], defaults["batch_size"],
            defaults["negatives"], defaults["max_seq_length"]) == (
        o.train_share, o.seed, o.epochs, o.batch_size, o.negatives_per_gold, o.max_seq_length), \
        "the TUI's t (TuneOptions()) and `workbench tune` share one tuned model"
