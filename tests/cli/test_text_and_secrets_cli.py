"""The CLI shows data as text (markup escaped, control characters visible) and never shows or
stores an API key (issue 10)."""

from __future__ import annotations

import io
import json

from click.testing import CliRunner
from rich.console import Console

from support.llm_project import TINY_DOCS, TINY_QUERIES
from workbench import cli
from workbench.cli import main
from workbench.project.files import write_config, write_project_files
from workbench.records import Document, EmbeddingConfig, LadderConfig, ModelConfig, ProjectConfig, Query

MARKUP_NAME = "[blink]P[/][link=https://example.invalid]L[/link]"
ESC_DOMAIN = "fin\x1b[31mance\x1b]0;pwned\x07"


def _hostile_project(root):
    docs = [Document(d.doc_id, d.title, d.text, ESC_DOMAIN if d.domain == "geo" else "[bold]food[/]") for d in TINY_DOCS]
    queries = [Query(q.query_id, q.query, q.answer, q.gold_doc_ids, q.hard_negative_ids,
                     ESC_DOMAIN if q.domain == "geo" else "[bold]food[/]", q.kind) for q in TINY_QUERIES]
    root.mkdir(parents=True)
    write_config(root, ProjectConfig(name=MARKUP_NAME, ladder=LadderConfig(seed=7, base_budget=600, prompt_overhead=100)))
    write_project_files(root, docs, queries)
    return root


def test_project_name_and_domains_print_as_text_when_piped(tmp_path):
    root = _hostile_project(tmp_path / "p")
    result = CliRunner().invoke(main, ["ladder", str(root)])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert MARKUP_NAME in result.output  # shown, not interpreted
    assert "fin␛[31mance" in result.output and "[bold]food[/]" in result.output


def test_no_live_markup_or_escapes_on_a_terminal(tmp_path, monkeypatch):
    root = _hostile_project(tmp_path / "p")
    buf = io.StringIO()
    monkeypatch.setattr(cli.project, "console", Console(file=buf, force_terminal=True, color_system="truecolor", width=200))
    result = CliRunner().invoke(main, ["ladder", str(root)])
    assert result.exit_code == 0, result.output
    out = buf.getvalue()
    assert "\x1b]8;" not in out  # no OSC 8 hyperlink
    assert "\x1b]0;" not in out and "␛]0;pwned␇" in out  # no window-title change: drawn as text
    assert "\x1b[5m" not in out  # no blink
    assert "[link=https://example.invalid]" in out


def test_endpoint_error_is_shown_as_text_and_the_key_is_redacted(tiny_project, fault_server, monkeypatch):
    secret = "sk-test-SECRET-0123456789"
    monkeypatch.setenv("FAULT_KEY", secret)
    cfg = ProjectConfig(name="tiny", ladder=LadderConfig(seed=7, base_budget=600, prompt_overhead=100),
                        models={"fault": ModelConfig(model="fault", base_url=fault_server.base_url, api_key_env="FAULT_KEY", max_retries=0)})
    write_config(tiny_project, cfg)
    fault_server.default = ("error", 400, f"bad key {secret}; Authorization: Bearer {secret} rate limited [bold]RL[/] \x1b[31m")
    result = CliRunner().invoke(main, ["run", str(tiny_project), "--model", "fault", "--task", "qa", "--tiers", "full"])
    assert result.exit_code == 1
    assert secret not in result.output
    assert "rate limited [bold]RL[/]" in result.output and "\x1b[31m" not in result.output
    stored = list((tiny_project / ".workbench" / "runs").rglob("*.json"))
    assert stored and not any(secret in p.read_text() for p in stored)
    assert any("Bearer ***" in p.read_text() or "***" in p.read_text() for p in stored)


def test_calibration_stops_when_every_answer_call_failed(tiny_project, fault_server):
    cfg = ProjectConfig(name="tiny", ladder=LadderConfig(seed=7, base_budget=600, prompt_overhead=100),
                        models={"fault": ModelConfig(model="fault", base_url=fault_server.base_url, max_retries=0)})
    write_config(tiny_project, cfg)
    fault_server.default = 503
    result = CliRunner().invoke(main, ["run", str(tiny_project), "--model", "fault", "--task", "qa", "--tiers", "full"])
    assert result.exit_code == 1
    assert fault_server.chat_requests == 3  # the three answer calls; no judge calibration calls after them
    assert "not calibrated" in result.output


def test_embedding_bar_counts_chunks_not_documents():
    from workbench.access.indexing import stage_unit
    from workbench.progress import stage_progress

    def rendered(stage: str) -> str:
        console = Console(record=True, force_terminal=True, width=200, file=io.StringIO())
        with stage_progress(console, unit=stage_unit) as progress:
            progress(stage, 50, 100)
            progress(stage, 100, 100)
        return console.export_text()

    embed, bm25 = rendered("embed"), rendered("bm25 full")
    assert "chunks/s" in embed and "docs/s" not in embed
    assert "docs/s" in bm25 and "chunks/s" not in bm25


def test_problems_quoting_data_show_it_as_text(tmp_path):
    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"doc_id": "d1", "title": "t", "text": "x"}) + "\n")
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"query_id": "[bold]q\x1b]0;pwned\x07", "query": "?", "answer": "a", "gold_doc_ids": ["d1"]}) + "\n")
    result = CliRunner().invoke(main, ["import", str(tmp_path / "p"), "--documents", str(docs), "--queries", str(queries)])
    assert result.exit_code == 2
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "[bold]q␛]0;pwned␇" in result.output


def test_embedding_endpoint_error_is_one_line_without_the_key(tiny_project, fault_server, monkeypatch):
    secret = "sk-embed-SECRET-9876543210"
    monkeypatch.setenv("EMBED_KEY", secret)
    write_config(tiny_project, ProjectConfig(
        name="tiny", ladder=LadderConfig(seed=7, base_budget=600, prompt_overhead=100),
        embedding=EmbeddingConfig(backend="openai", model="e", base_url=fault_server.base_url, api_key_env="EMBED_KEY")))
    fault_server.default = ("error", 401, f"invalid key {secret} [bold]no[/]")
    result = CliRunner().invoke(main, ["index", str(tiny_project), "--only", "dense"])
    assert result.exit_code == 1, result.output
    assert secret not in result.output and "Traceback" not in result.output
    assert "AuthenticationError" in result.output and "[bold]no[/]" in result.output
