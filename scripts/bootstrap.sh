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
# A llama-cpp-python wheel built for another CPU (a cached -march=native build) dies with SIGILL on
# its first batch: check, and if so rebuild it for any x86-64 / ARM CPU (GGML_NATIVE=OFF).
if ! .venv/bin/python scripts/llama_smoke.py; then
  version=$(.venv/bin/python -c "import importlib.metadata as m; print(m.version('llama-cpp-python'))")
  echo "llama-cpp-python $version does not run on this CPU: rebuilding it portably (about 11 minutes)"
  CMAKE_ARGS="-DGGML_NATIVE=OFF" .venv/bin/python -m pip install --quiet --no-cache-dir --force-reinstall --no-deps \
    "llama-cpp-python[server]==$version"
  .venv/bin/python scripts/llama_smoke.py
fi
echo "ready: .venv/bin/workbench --help"
