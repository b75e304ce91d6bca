#!/usr/bin/env bash
# Installs kernelgenbench and prints the Python to run it with.
# A Python that already has torch and triton (a GPU machine's) is used as it is; otherwise a
# .venv is made with the CPU build of torch and the GPU machine's Triton (3.6.0), which runs in
# its interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${PYTHON:-python3}
if [ -z "${KGB_VENV:-}" ] && "$base" -c "import torch, triton" >/dev/null 2>&1; then
  py=$base
  "$py" -c "import typer, rich" >/dev/null 2>&1 || "$py" -m pip install -q "typer>=0.12" "rich>=13" >&2
  "$py" -c "import tomllib" >/dev/null 2>&1 || "$py" -m pip install -q "tomli>=1.1" >&2
  # the model SDKs are only for --method llm/reflect; a machine without a registry runs without them
  "$py" -c "import openai, anthropic" >/dev/null 2>&1 ||
    "$py" -m pip install -q --retries 0 --timeout 5 "openai>=1.40" "anthropic>=0.40" >/dev/null 2>&1 ||
    echo "note: openai/anthropic not installed; --method llm and reflect need them (pip install -e '.[llm]')" >&2
  # the HTML report (plotly) and its browser test's driver (selenium)
  "$py" -c "import plotly, jinja2, pygments, selenium" >/dev/null 2>&1 ||
    "$py" -m pip install -q --retries 0 --timeout 5 "plotly>=5.15" "jinja2>=3" "pygments>=2.13" "selenium>=4.11" \
      >/dev/null 2>&1 ||
    echo "note: plotly/selenium not installed; kgbench report --format html needs them (pip install -e '.[report]')" >&2
  "$py" -m pip install -q --no-deps --no-build-isolation -e . >&2
else
  [ -x .venv/bin/python ] || "$base" -m venv .venv >&2
  py=$PWD/.venv/bin/python
  "$py" -c "import torch" >/dev/null 2>&1 || "$py" -m pip install -q "torch==${KGB_TORCH:-2.13.0}" >&2
  # the GPU machine's Triton, so the interpreter here runs the same frontend
  "$py" -c "import triton, sys; sys.exit(triton.__version__ != '${KGB_TRITON:-3.6.0}')" >/dev/null 2>&1 ||
    "$py" -m pip install -q "triton==${KGB_TRITON:-3.6.0}" >&2
  "$py" -m pip install -q -e ".[test,report]" >&2
fi
echo "$py"
