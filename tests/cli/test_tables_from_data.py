"""Issue 20 item 7: text from data in add-query's and import-run's tables is shown as written —
never Rich markup (a live OSC 8 link), never an emoji code substituted."""

from __future__ import annotations

import json

import msgspec
from click.testing import CliRunner

from workbench.cli import main
from workbench.project.files import write_project_files
from workbench.project.load import load_project

HOSTILE_ID = "[link=mailto:x@y.invalid]q:skull:"
HOSTILE_DOMAIN = "[bold red]geo:x:"
HOSTILE_TITLE = "[link=https://evil.invalid]Paris[/link] :skull:"


def _hostile(root):
    project = load_project(root)
    docs = [msgspec.structs.replace(d, domain=HOSTILE_DOMAIN if d.domain == "geo" else d.domain,
                                    title=HOSTILE_TITLE if d.doc_id == 1 else d.title)
            for d in project.documents.values()]
    queries = [msgspec.structs.replace(q, domain=HOSTILE_DOMAIN if q.domain == "geo" else q.domain) for q in project.queries]
    write_project_files(root, docs, queries)


def test_import_run_table_shows_a_hostile_tier_name_as_text(tiny_project, tmp_path):
    _hostile(tiny_project)
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 1 1 2.0 t\nq1 Q0 3 2 1.0 t\n")
    result = CliRunner().invoke(main, ["import-run", str(tiny_project), str(run), "--name", "prod"])
    assert result.exit_code == 0, result.output
    assert f"base:{HOSTILE_DOMAIN}" in result.output  # the tier name as written, in the table and the summary


def test_add_query_table_shows_ids_and_titles_as_text(tiny_project):
    _hostile(tiny_project)
    result = CliRunner().invoke(main, ["add-query", str(tiny_project), "--query", "What is the capital of France?",
                                       "--id", HOSTILE_ID, "--gold", "1"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert HOSTILE_ID in out and "💀" not in out and "❌" not in out  # not a link, no emoji
    assert "1 [link=https://evil.invalid]Par" in out  # the title (cut to 30) in the table, as written
    assert f"base:{HOSTILE_DOMAIN}" in out
    assert json.loads((tiny_project / "query_edits.jsonl").read_text().splitlines()[-1])["query_id"] == HOSTILE_ID
