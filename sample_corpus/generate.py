"""Deterministic generator of the sample_corpus demo project.

    python -m sample_corpus.generate [--out DIR]      (default: this folder)
    python sample_corpus/generate.py [--out DIR]

Everything is fictional and written from templates and a syllable name grammar: no model
calls, no downloads. The same seed gives byte-identical files (tests/test_sample_corpus.py
regenerates and compares).

The code is the package sample_corpus/gen/ (its docstring says how the phenomena are built in);
this file is the entry point.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

if not __package__:  # run as a script: make the repository root importable
    sys.path.insert(0, str(HERE.parent))

from sample_corpus.gen.config import SEED  # noqa: E402
from sample_corpus.gen.generator import Generator  # noqa: E402


def generate(out_dir: Path, seed: int = SEED) -> dict[str, bytes]:
    g = Generator(seed)
    g.build()
    files = g.outputs()
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (out_dir / name).write_bytes(data)
    return files


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=HERE)
    a = p.parse_args(argv)
    files = generate(a.out)
    docs = files["documents.jsonl"].count(b"\n")
    qs = files["queries.jsonl"].count(b"\n")
    print(f"wrote {docs} documents and {qs} queries to {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
