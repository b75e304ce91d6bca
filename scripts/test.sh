#!/usr/bin/env bash
# One command: set up, then run the test suite (CPU, Triton interpreter).
set -euo pipefail
cd "$(dirname "$0")/.."
py=$(bash scripts/setup.sh)
export TRITON_INTERPRET=1
exec "$py" -m pytest -q "$@"
