"""The endpoint reranker against the project's own /v1/rerank server over the same CrossEncoder
(it must give the cross-encoder's order); the fault stub only for faults: 5xx, 429, a malformed
body and a timeout are retried and never cached; indexes out of range or the wrong count fail
with the reranker's name, exit 1, nothing stored."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from support.rerank import configure, texts_of
from workbench.access.ladder import load_tiers
from workbench.access.runs import RunStore
from workbench.cli import main
from workbench.project.load import load_project
from workbench.rerank.cache import ScoreCache
from workbench.rerank.run import rerank

KEY_ENV = "WB_TEST_RERANK_KEY"


def _full(root):
    project = load_project(root)
    return project, [t for t in load_tiers(project).tiers if t.name == "full"]


def test_the_endpoint_gives_the_cross_encoders_order_and_sends_the_key(rerank_project, cross_encoder, monkeypatch):
    from support.rerank import RerankServer

    monkeypatch.setenv(KEY_ENV, "sk-rerank-secret-123")
    with RerankServer(cross_encoder) as server:
        configure(rerank_project, ep={"backend": "endpoint", "base_url": server.base_url, "model": "minilm-ce",
                                      "api_key_env": KEY_ENV, "batch_size": 3, "max_length": 128})
        project, full = _full(rerank_project)
        rerank(project, full, ["bm25>rerank:ep@4", "bm25>rerank:ce@4"], k=3)
    assert all(h["authorization"] == "Bearer sk-rerank-secret-123" for h in server.headers)
    store = RunStore(project)
    ep, ce = store.load("bm25>rerank:ep@4", "full"), store.load("bm25>rerank:ce@4", "full")
    for a, b in zip(ep.rankings, ce.rankings):
        assert [h.doc_id for h in a.hits] == [h.doc_id for h in b.hits]
        assert [h.score for h in a.hits[:4]] == pytest.approx([h.score for h in b.hits[:4]], abs=1e-5)
    stored = b"".join(p.read_bytes() for p in project.state_dir.rglob("*") if p.is_file())
    assert b"sk-rerank-secret-123" not in stored, "the key is never stored"


@pytest.fixture
def endpoint_project(rerank_project, fault_server):
    fault_server.rerank_body = lambda req: {"results": [{"index": i, "relevance_score": float(len(d))}
                                                        for i, d in enumerate(req["documents"])]}
    configure(rerank_project, ep={"backend": "endpoint", "base_url": fault_server.base_url, "max_retries": 4,
                                  "timeout_s": 0.5})
    return rerank_project


@pytest.mark.parametrize("fault", [500, 429, "garbage", "cut", ("delay", 3.0)])
def test_a_fault_is_retried_and_never_cached(endpoint_project, fault_server, fault):
    project, full = _full(endpoint_project)
    fault_server.script = [fault]
    stats = rerank(project, full, ["bm25>rerank:ep@4"], k=3)
    requests = [r for r in fault_server.requests if "documents" in r]
    assert len(requests) == len(project.queries) + 1, "the fault was retried once"
    run = RunStore(project).load("bm25>rerank:ep@4", "full")
    for r in run.rankings:  # the stub scores a document by its length: longest first
        top = r.hits[:4]
        assert [h.score for h in top] == [float(len(t)) for t in texts_of(project, [h.doc_id for h in top])]
    assert stats.scored == stats.scored and stats.cached == 0


@pytest.mark.parametrize("body, message", [
    (lambda req: {"results": [{"index": 99, "relevance_score": 1.0}]
                  + [{"index": i, "relevance_score": 0.0} for i in range(1, len(req["documents"]))]},
     "returned index 99"),
    (lambda req: {"results": [{"index": 0, "relevance_score": 1.0}]}, "scored 1 of"),
])
def test_a_wrong_answer_fails_naming_the_reranker_and_stores_nothing(endpoint_project, fault_server, body, message):
    fault_server.rerank_body = body
    result = CliRunner().invoke(main, ["rerank", str(endpoint_project), "bm25>rerank:ep@4", "--tiers", "full", "--k", "3"])
    assert result.exit_code == 1, result.output
    assert "'ep'" in result.output and message in result.output
    project, _ = _full(endpoint_project)
    assert RunStore(project).load("bm25>rerank:ep@4", "full") is None
    cache = ScoreCache.for_state_dir(project.state_dir)
    assert len(cache) == 0
    cache.close()


def test_an_unset_key_variable_is_bad_input(endpoint_project, monkeypatch):
    configure(endpoint_project, ep={"backend": "endpoint", "base_url": "http://127.0.0.1:9/v1", "api_key_env": KEY_ENV})
    monkeypatch.delenv(KEY_ENV, raising=False)
    result = CliRunner().invoke(main, ["rerank", str(endpoint_project), "bm25>rerank:ep@4", "--tiers", "full", "--k", "3"])
    assert result.exit_code == 2 and KEY_ENV in result.output and "'ep'" in result.output


def test_json_is_what_the_server_reads(endpoint_project, fault_server):
    project, full = _full(endpoint_project)
    rerank(project, full, ["bm25>rerank:ep@2"], k=2)
    req = next(r for r in fault_server.requests if "documents" in r)
    assert req["documents"] == req["texts"] and len(req["documents"]) <= 2 and req["query"]
    json.dumps(req)
