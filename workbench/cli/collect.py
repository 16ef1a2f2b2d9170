"""`workbench collect`: production's OpenTelemetry exporter pointed at the workbench; traces are
imported as they complete (workbench/session/collect.py). The command parses, prints the status
line and turns Ctrl-C / SIGTERM into the drain."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import click

from workbench.cli.common import PROJECT_ARG, console, err_console


def status_line(s) -> str:
    skipped = sum(s.skipped.values())
    refused = sum(s.refused.values())
    return (f"received {s.spans_received} spans in {s.traces_received} traces; imported {s.traces_imported} traces "
            f"({s.queries_imported} queries); pending {s.pending_traces}"
            + (f" ({s.retrying_traces} waiting to retry)" if s.retrying_traces else "")
            + f"; skipped {skipped}"
            + (f"; not understood {s.traces_not_understood} traces" if s.traces_not_understood else "")
            + f"; refused {refused} requests"
            + (f"; last import {s.last_import_s:.2f} s" if s.last_import_s is not None else "")
            + (f"; last error: {s.last_error}" if s.last_error else ""))


@click.command("collect")
@PROJECT_ARG
@click.option("--name", default="live", show_default=True, help="Collected traces accumulate as run:NAME (and run:NAME:answers).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (beyond loopback only with --token-env).")
@click.option("--port", type=click.IntRange(0, 65535), default=4318, show_default=True, help="Port (OTLP/HTTP's 4318; 0: any free one).")
@click.option("--token-env", default=None, metavar="NAME",
              help="Environment variable holding a bearer token every request must carry (Authorization: Bearer …).")
@click.option("--settle-s", type=click.FloatRange(0), default=2.0, show_default=True,
              help="A trace is imported once its root span ended and none of its spans arrived for this long.")
@click.option("--max-pending", type=click.IntRange(1), default=10_000, show_default=True,
              help="Traces waiting for import before requests are refused (429, Retry-After).")
@click.option("--max-body-mb", type=click.FloatRange(0.001), default=16.0, show_default=True,
              help="Largest request body, after gzip (413 beyond).")
@click.option("--read-deadline-s", type=click.FloatRange(0.1), default=10.0, show_default=True,
              help="A request's body must arrive within this (408 beyond): a slow client holds a thread no longer.")
@click.option("--feedback-key", default=None, metavar="KEY",
              help="Span attribute holding user feedback (thumbs-down / score), kept per query beside the traces.")
@click.option("--query-id-key", default="query_id", show_default=True,
              help="Span attribute (or key of the `metadata` attribute) holding the project's query id; else matched by text.")
@click.option("--doc-id-key", default=None,
              help="Key of document.metadata holding production's document id; else ids, else content matched to the corpus.")
@click.option("--add-unknown-documents", is_flag=True, help="Add retrieved documents the corpus lacks, from document.content.")
@click.option("--ids", type=click.Choice(["auto", "source", "docid"]), default="auto", show_default=True,
              help="Document ids in the spans are source ids or DocIDs; auto: whichever more of them resolve as.")
@click.option("--judge/--no-judge", "judge_it", default=False, show_default=True, help="Score each import's answers with the project's judge.")
def collect_command(root: Path, name: str, host: str, port: int, token_env: str | None, settle_s: float, max_pending: int,
                    max_body_mb: float, read_deadline_s: float, feedback_key: str | None, query_id_key: str,
                    doc_id_key: str | None, add_unknown_documents: bool, ids: str, judge_it: bool) -> None:
    """Receive production's traces over OTLP/HTTP (POST /v1/traces) and add each to run:NAME as it completes."""
    from workbench.errors import BadInput
    from workbench.safe_text import markup_escaped
    from workbench.session import start_collect
    from workbench.session.collect import check_token

    token = None
    if token_env:
        token = os.environ.get(token_env)
        if not token:
            raise BadInput(f"--token-env {token_env}: the variable is not set (or empty)")
        try:
            check_token(token)
        except BadInput as exc:  # the message never shows the token itself
            raise BadInput(f"--token-env {token_env}: {exc}", hint=exc.hint) from None

    def changed(s) -> None:
        console.print(markup_escaped(status_line(s), one_line=True), highlight=False, soft_wrap=True)

    live = start_collect(root, name, host, port, settle_s, token, max_pending, int(max_body_mb * 2**20), read_deadline_s,
                         feedback_key, query_id_key, add_unknown_documents, ids, judge_it, on_change=changed,
                         doc_id_key=doc_id_key)
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    console.print(f"listening on {live.url}/v1/traces (status: {live.url}/status) as run:{markup_escaped(name)}; "
                  "Ctrl-C drains and stops", highlight=False, soft_wrap=True)
    try:
        stop.wait()
    finally:
        err_console.print("draining: importing every complete trace…", highlight=False)
        final = live.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    console.print(markup_escaped("stopped: " + status_line(final), one_line=True), highlight=False, soft_wrap=True)
