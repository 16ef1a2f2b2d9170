"""Config choices and ranges are types (issue 17): msgspec refuses a bad value while decoding
workbench.toml, and the CLI still names file, line and dotted key, exit 2, every problem at once."""

from __future__ import annotations

import msgspec
import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.records import ModelConfig, ProjectConfig


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "p"
    assert CliRunner().invoke(main, ["init", str(root)]).exit_code == 0
    return root


def _check(root, toml: str):
    (root / "workbench.toml").write_text(toml)
    return CliRunner().invoke(main, ["query-sets", str(root)])  # reads workbench.toml first


def test_a_bad_choice_names_file_line_key_and_the_choices(project):
    result = _check(project, 'name = "p"\n\n[embedding]\nbackend = "tfidf"\n')
    assert result.exit_code == 2, result.output
    assert "workbench.toml:4: embedding.backend: 'tfidf' is not one of" in result.output
    assert "'sentence-transformers'" in result.output and "'openai'" in result.output


@pytest.mark.parametrize("section, body, key, expected", [
    ("retrievers", "hybrid_depth = 0", "retrievers.hybrid_depth", "Expected `int` >= 1, got 0"),
    ("embedding", "batch_size = -3", "embedding.batch_size", "Expected `int` >= 1, got -3"),
    ("ladder", "prompt_overhead = -1", "ladder.prompt_overhead", "Expected `int` >= 0, got -1"),
    ("models.local", "safety_margin = 1.0", "models.local.safety_margin", "Expected `float` < 1.0"),
    ("models.local", "timeout_s = nan", "models.local.timeout_s", "Expected `float` > 0.0"),
    ('models."gpt-4.1"', "max_tokens = 0", 'models."gpt-4.1".max_tokens', "Expected `int` >= 1, got 0"),
])
def test_a_value_out_of_range_names_file_line_key(project, section, body, key, expected):
    result = _check(project, f'name = "p"\n\n[{section}]\n{body}\n')
    assert result.exit_code == 2, result.output
    assert f"workbench.toml:4: {key}: {expected}" in result.output, result.output


def test_every_refused_value_is_reported_at_once_with_the_cross_field_checks(project):
    toml = ('name = "p"\n[retrievers]\nk = 0\nrrf_k = "x"\n[models.local]\nconcurrency = 0\n'
            '[ladder]\nbase_budget = 300\nprompt_overhead = 400\n[embedding]\nchunk_tokens = 0\nchunk_overlap = 500\n')
    result = _check(project, toml)
    assert result.exit_code == 2, result.output
    for expected in ("workbench.toml:3: retrievers.k: Expected `int` >= 1, got 0",
                     "workbench.toml:4: retrievers.rrf_k: Expected `int`, got `str`",
                     "workbench.toml:6: models.local.concurrency: Expected `int` >= 1, got 0",
                     "workbench.toml:9: ladder.prompt_overhead: 400 leaves no room for documents in base_budget 300",
                     "workbench.toml:11: embedding.chunk_tokens: Expected `int` >= 1, got 0"):
        assert expected in result.output, result.output
    # chunk_overlap is only wrong relative to chunk_tokens, which was refused: not reported
    assert "chunk_overlap" not in result.output


def test_an_unknown_key_points_at_its_own_line(project):
    result = _check(project, 'name = "p"\n[models.local]\nmax_tokens = 5\nmax_token = 5\n')
    assert result.exit_code == 2, result.output
    assert "workbench.toml:4: models.local.max_token: unknown key" in result.output


def test_values_at_the_edge_of_a_range_are_accepted(project):
    toml = ('name = "p"\n[retrievers]\nk = 1\nrrf_k = 0\nhybrid_depth = 1\n[embedding]\nchunk_tokens = 1\n'
            'chunk_overlap = 0\nbatch_size = 1\n[ladder]\nbase_budget = 1\nprompt_overhead = 0\n'
            '[models.local]\nsafety_margin = 0\ntimeout_s = inf\ncontext_window = 1\nmax_tokens = 1\n'
            'concurrency = 1\nmax_retries = 0\ntemperature = 0\n')
    result = _check(project, toml)
    assert result.exit_code == 0, result.output


def test_records_built_in_python_are_not_checked():
    """Constraints bind on decode only: defaults and structs.replace keep working as before."""
    assert ModelConfig().max_tokens == 128
    assert msgspec.structs.replace(ModelConfig(), max_tokens=0).max_tokens == 0
    decoded = msgspec.toml.decode(b"[models.m]\nmax_tokens = 7\n", type=ProjectConfig)
    assert decoded.models["m"] == msgspec.structs.replace(ModelConfig(), max_tokens=7)
