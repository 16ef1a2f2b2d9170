"""The read commands before any `eval`: on an indexed project with no stored ranking they compute
the built-in retrievers' rankings (no model needed) and answer; on a project whose indexes are not
built they name the command to run and exit 2. Never "unknown system … known: []"."""

from __future__ import annotations

import shlex
import shutil

import pytest
from click.testing import CliRunner

from workbench.access.ladder import load_tiers
from workbench.access.runs import RunStore
from workbench.cli import main
from workbench.project.load import load_project
from workbench.project.suggest import command

READS = {
    "diagnose": ["diagnose", "{root}"],
    "compare": ["compare", "{root}", "bm25", "dense"],
    "stealers": ["stealers", "{root}"],
    "unjudged": ["unjudged", "{root}"],
    "report": ["report", "{root}", "--format", "json", "-o", "-"],
}


def invoke(args: list[str], root) -> tuple[int, str]:
    res = CliRunner().invoke(main, [a.format(root=root) for a in args])
    assert res.exception is None or isinstance(res.exception, SystemExit), res.output
    return res.exit_code, res.output


@pytest.fixture
def spaced_copy(built_project, tmp_path):
    """The indexed project, no ranking stored, under a path with a space (every suggestion must survive it)."""
    dst = tmp_path / "my project"
    shutil.copytree(built_project, dst)
    shutil.rmtree(dst / ".workbench" / "runs", ignore_errors=True)
    return dst


def stored_systems(project) -> set[str]:
    return {run.system for t in load_tiers(project).tiers for run in RunStore(project).runs(t)}


@pytest.mark.parametrize("name", list(READS))
def test_an_indexed_project_with_no_ranking_is_ranked_first(spaced_copy, name):
    project = load_project(spaced_copy)
    assert not stored_systems(project)
    code, out = invoke(READS[name], spaced_copy)
    assert code == 0, out
    assert "unknown system" not in out and "known: []" not in out
    stored = stored_systems(project)
    assert {"bm25", "dense"} <= stored  # computed through the one evaluate path, and kept
    if name == "compare":
        assert "bm25 vs dense on" in out
    if name == "diagnose":
        assert "Verdicts of" in out


@pytest.mark.parametrize("name", list(READS))
def test_a_project_without_indexes_names_the_command_to_run(spaced_copy, name):
    shutil.rmtree(spaced_copy / ".workbench" / "index")
    code, out = invoke(READS[name], spaced_copy)
    assert code == 2, out
    assert "unknown system" not in out
    assert command("index", spaced_copy) in " ".join(out.split())  # the hint, unwrapped
    assert_runs(command("index", spaced_copy))


def assert_runs(line: str) -> None:
    """A suggested command, as pasted into a shell, parses as a workbench command on an existing project:
    click resolves the command and every option, and the project argument is a folder that exists."""
    args = shlex.split(line)
    assert args[0] == "workbench", line
    ctx = main.make_context("workbench", args[1:])
    name, cmd, rest = main.resolve_command(ctx, args[1:])
    assert cmd is not None, line
    sub = cmd.make_context(name, rest, parent=ctx)
    root = sub.params.get("root")
    assert root is not None and root.is_dir(), f"no such project in {line!r}"


def suggested(text: str) -> str:
    """The command at the head of a suggestion ("workbench run … (calibrates the judge), or …")."""
    tokens = []
    for tok in shlex.split(text[text.index("workbench "):]):
        if tok.startswith("(") or tok in ("or", ";"):
            break
        tokens.append(tok.rstrip(";"))
        if tok.endswith(";"):
            break
    return shlex.join(tokens)


def test_every_command_diagnose_suggests_runs_from_a_path_with_a_space(evaluated, tmp_path):
    import json

    root = tmp_path / "my project"
    shutil.copytree(evaluated, root)
    code, out = invoke(["diagnose", "{root}", "--json"], root)
    assert code == 0, out
    lines = {v["command"] for v in json.loads(out)["verdicts"] if v.get("command", "").startswith("workbench ")}
    code, text = invoke(["diagnose", "{root}"], root)
    assert code == 0, text
    lines |= {suggested(line.strip()) for line in text.splitlines() if "workbench " in line and str(root) in line}
    assert lines, "diagnose suggested no command"
    for line in lines:
        assert_runs(suggested(line))
