#!/usr/bin/env bash
# Downloads a numpy<2.4 wheel for the GPU machine's Python (3.12, x86_64) into vendor/, to carry to
# a machine without a registry whose numpy is 2.4 or newer: Triton 3.6's interpreter fails there on
# every loop over a runtime bound (`kernelgenbench/platforms/probe.py`). benchmarks/mc_transfer.sh
# installs it beside the code when the interpreter needs it. Device call: carry ["vendor"].
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p vendor
rm -f vendor/numpy-*.whl
"${PYTHON:-python3}" -m pip download -q "numpy<2.4" --only-binary=:all: --no-deps --python-version 3.12 \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d vendor
ls vendor/numpy-*.whl
