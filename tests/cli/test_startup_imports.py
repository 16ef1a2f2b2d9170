"""Start-up does not grow with what a command does not use: `--help` and a repeat `eval` (every run
stored) load none of the heavy libraries (numpy, the index engines, the models' clients, the TUI),
and the repeat eval parses no document."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from support.paths import REPO

HEAVY = ("numpy", "usearch", "tantivy", "torch", "sentence_transformers", "transformers", "textual", "openai",
         "asyncio", "tiktoken", "rich.table", "rich.progress")

# Runs the CLI in a fresh interpreter, then prints which heavy modules it loaded (and whether any
# document of the corpus was parsed: the lazy mapping's whole-file read).
PROBE = """
import atexit, json, sys
from workbench.project import corpus_store
whole = []
real = corpus_store.LazyDocuments._whole
corpus_store.LazyDocuments._whole = lambda self, *a: whole.append(1) or real(self, *a)
heavy = {heavy!r}
atexit.register(lambda: sys.stderr.write("\\nPROBE " + json.dumps([[m for m in heavy if m in sys.modules], bool(whole)]) + "\\n"))
sys.argv = ["workbench", *sys.argv[1:]]
from workbench.cli import main
main()
""".format(heavy=HEAVY)


def probe(*args: str) -> tuple[list[str], bool, str]:
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    loaded, parsed = json.loads(proc.stderr.rsplit("PROBE ", 1)[1])
    return loaded, parsed, proc.stdout


def test_help_loads_nothing_heavy():
    loaded, _, out = probe("--help")
    assert "eval" in out and loaded == []


@pytest.mark.parametrize("args", [("--no-models",), ("--retrievers", "bm25", "--no-models"), ()], ids=["all", "bm25", "models"])
def test_a_repeat_eval_loads_nothing_heavy_and_parses_no_document(evaluated_copy, args):
    first = probe("eval", str(evaluated_copy), "--json", *args)  # a copy: its files are checked (and recorded) once
    loaded, parsed, out = probe("eval", str(evaluated_copy), "--json", *args)
    assert out == first[2] and json.loads(out)["tiers"]
    assert loaded == [] and not parsed
