#!/usr/bin/env bash
# Set up everything in ./.venv: the CPU build of torch first (letting pip resolve torch on its
# own pulls a multi-GB CUDA build), then the workbench with its test extras. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet "torch==2.13.0"
# llama-cpp-python is an sdist: the first install compiles llama.cpp (about 11 minutes on 2 cores);
# pip caches the wheel, so later installs take seconds.
.venv/bin/python -m pip install --quiet -e '.[test]'
echo "ready: .venv/bin/workbench --help"
