#!/usr/bin/env bash
# One command: set up, then judge the shipped reference solutions of every specified operator
# (on the GPU when there is one, else in the Triton interpreter) and print the report.
set -euo pipefail
cd "$(dirname "$0")/.."
py=$(bash scripts/setup.sh)
exec "$py" -m kernelgenbench.cli run --method reference "$@"
