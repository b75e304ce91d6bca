#!/usr/bin/env bash
# The GPU proof for the harness core and the anti-cheat layers, in one device call: the README's
# quickstart on the GPU with every layer (L1-L4), the recorded report, the GPU-only tests, the
# whole cheat corpus on the GPU and the null-candidate audit on the GPU.
# Usage: bash benchmarks/h200_validation.sh OUTDIR
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: h200_validation.sh OUTDIR}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/nvidia-smi.csv" 2>&1
py=$(bash scripts/setup.sh)
( "$py" -m pytest -q -m gpu tests/test_gpu.py -p no:cacheprovider > "$out/gpu-tests.log" 2>&1
  KGB_CHEAT_DEVICE=cuda "$py" -m pytest -q tests/test_cheats.py -p no:cacheprovider > "$out/cheats-cuda.log" 2>&1
  "$py" -m kernelgenbench.cli audit --device cuda --seed 7 > "$out/audit-cuda.txt" 2>&1
  echo "audit exit $?" >> "$out/audit-cuda.txt" ) &
timeout "${KGB_RUN_LIMIT:-1800}" bash scripts/quickstart.sh --device cuda --db "$out/reference.db" --name h200-reference --workers "${KGB_WORKERS:-8}" \
  2>&1 | tee "$out/quickstart.log"
"$py" benchmarks/record_run.py --db "$out/reference.db" --run h200-reference --out "$out" --tag reference-h200
wait
tail -n 3 "$out"/gpu-tests.log "$out"/cheats-cuda.log "$out"/audit-cuda.txt
