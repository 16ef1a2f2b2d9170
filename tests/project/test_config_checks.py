"""Issue 20 item 6: values that are not checked crash later. Configuration is checked whole before
any call (key and line, exit 2); bad sizes and IDs are refused where they are read."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from workbench.access.ladder import ensure_tiers, load_tiers, tiers_path
from workbench.cli import main
from workbench.project.files import ProjectError
from workbench.project.load import load_project


def _config(root, extra: str) -> None:
    (root / "workbench.toml").write_text((root / "workbench.toml").read_text() + extra)


def _query_sets(root):
    return CliRunner().invoke(main, ["query-sets", str(root)])  # reads workbench.toml first


@pytest.mark.parametrize("body, key, message", [
    ("temperature = nan", "temperature", "must be a number from 0 to 2, got nan"),
    ("temperature = -3", "temperature", "must be a number from 0 to 2, got -3.0"),
    ('base_url = "not a url"', "base_url", "'not a url' is not an http(s) URL"),
])
def test_model_values_are_checked_with_key_and_line(tiny_project, body, key, message):
    _config(tiny_project, f'\n[models.m]\nbase_url = "http://127.0.0.1:9/v1"\n{body}\n'
            if key != "base_url" else f"\n[models.m]\n{body}\n")
    result = _query_sets(tiny_project)
    assert result.exit_code == 2, result.output
    lines = (tiny_project / "workbench.toml").read_text().splitlines()
    line = next(n for n, text in enumerate(lines, 1) if text.startswith(body.split(" ")[0]) and "m]" not in text and n > 3)
    assert f"workbench.toml:{line}: models.m.{key}: {message}" in result.output


def _budgets(root, value: str) -> None:
    text = (root / "workbench.toml").read_text()
    assert "global_budgets = []" in text
    (root / "workbench.toml").write_text(text.replace("global_budgets = []", f"global_budgets = {value}"))


def test_repeated_global_budgets_are_refused(tiny_project):
    _budgets(tiny_project, "[5000, 5000]")
    result = _query_sets(tiny_project)
    assert result.exit_code == 2 and "ladder.global_budgets: [5000] repeated" in result.output, result.output


def test_a_global_budget_below_the_shared_tier_is_refused(tiny_project):
    _budgets(tiny_project, "[150]")
    with pytest.raises(ProjectError, match=r"workbench.toml:\d+: ladder.global_budgets: \[150\] cannot hold the shared tier"):
        ensure_tiers(load_project(tiny_project))


def test_an_unset_key_variable_is_one_config_error_before_any_call(tiny_project, fault_server, monkeypatch):
    monkeypatch.delenv("WB_UNSET_KEY", raising=False)
    _config(tiny_project, f'\n[models.m]\nbase_url = "{fault_server.base_url}"\napi_key_env = "WB_UNSET_KEY"\n')
    result = CliRunner().invoke(main, ["run", str(tiny_project), "--model", "m", "--task", "qa", "--tiers", "full"])
    assert result.exit_code == 2, result.output
    assert "models.m.api_key_env: environment variable WB_UNSET_KEY" in result.output
    assert fault_server.chat_requests == 0


@pytest.mark.parametrize("option", [["--rag-k", "0"], ["--rag-k", "-3"], ["--k", "-1"]])
def test_sizes_below_one_are_refused(tiny_project, option):
    result = CliRunner().invoke(main, ["run", str(tiny_project), "--task", "rag", *option])
    assert result.exit_code == 2 and "Invalid value" in result.output, result.output


def test_a_doc_id_beyond_64_bits_is_a_problem_on_its_line(tiny_project):
    docs = tiny_project / "documents.jsonl"
    rows = docs.read_text().splitlines()
    row = json.loads(rows[4])
    row["doc_id"] = 2**63
    rows[4] = json.dumps(row)
    docs.write_text("\n".join(rows) + "\n")
    with pytest.raises(ProjectError, match=r"documents.jsonl:5: doc_id: 9223372036854775808 is too large"):
        load_project(tiny_project)


def test_a_query_id_with_a_comma_is_refused(tiny_project):
    result = CliRunner().invoke(main, ["add-query", str(tiny_project), "--query", "x?", "--id", "a,b", "--no-run"])
    assert result.exit_code == 2 and "contains ','" in result.output, result.output


def test_tiers_listing_an_unknown_doc_id_are_rebuilt_not_a_key_error(tiny_project):
    project = load_project(tiny_project)
    tiers = ensure_tiers(project)
    data = json.loads(tiers_path(project).read_text())
    data["tiers"][0]["doc_ids"].append(999)  # hashes still match
    tiers_path(project).write_text(json.dumps(data))
    with pytest.raises(Exception, match="damaged"):
        load_tiers(project)
    assert ensure_tiers(project).tiers == tiers.tiers


def test_an_unknown_dotted_key_is_reported_on_its_own_line(tiny_project):
    _config(tiny_project, '\n[models.m]\nbase_url = "http://127.0.0.1:9/v1"\nextra.knob = 2\n')
    result = _query_sets(tiny_project)
    line = len((tiny_project / "workbench.toml").read_text().splitlines())
    assert result.exit_code == 2 and f"workbench.toml:{line}: models.m.extra: unknown key" in result.output, result.output
