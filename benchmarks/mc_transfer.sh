#!/usr/bin/env bash
# The MC proof on one CUDA machine, in one device call: the shipped reference solutions of a few ATen
# operators judged on CUDA (timed) and in the Triton interpreter, each run then judged again unchanged
# on the other platform (`kgbench rejudge`), and the CUDA run once more on CUDA (the diagonal: the
# same kernels twice on one chip, with a speed ratio). The MC report's 2x2 transfer matrix comes from
# these five runs. Everything written goes to OUTDIR: the store, and the report in md and json.
# Usage: bash benchmarks/mc_transfer.sh OUTDIR   (KGB_OPS: the operators; default five ATen ones)
# On a machine with numpy 2.4+ and no registry, carry vendor/ (scripts/vendor_numpy.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:?usage: mc_transfer.sh OUTDIR}
mkdir -p "$dest"
export PYTHONUNBUFFERED=1
py=$(bash scripts/setup.sh)
# Triton 3.6's interpreter fails with numpy 2.4+ (the H200 image has 2.5.2): use a carried numpy<2.4
# wheel (scripts/vendor_numpy.sh) for every run here, so both platforms see the same numpy.
probe="from kernelgenbench.platforms.probe import interpreter_problem as p; import sys; sys.exit(bool(p()))"
if ! "$py" -c "$probe" 2>/dev/null; then
  wheel=$(ls vendor/numpy-*.whl 2>/dev/null | head -n 1)
  [ -n "$wheel" ] || { echo "mc_transfer: this interpreter needs numpy<2.4: run scripts/vendor_numpy.sh and carry vendor/"; exit 2; }
  "$py" -m pip install -q --no-deps --no-index --target runs/numpy-lt-2.4 "$wheel"
  export PYTHONPATH="$PWD/runs/numpy-lt-2.4${PYTHONPATH:+:$PYTHONPATH}"
  "$py" -c "$probe" || { echo "mc_transfer: the carried numpy did not fix the interpreter"; exit 2; }
fi
ops=${KGB_OPS:-aten::add,aten::sin,aten::mean,aten::softmax,aten::mm}
db="$dest/mc-transfer.db"
rm -f "$db" "$db-wal" "$db-shm"
kg() { "$py" -m kernelgenbench.cli "$@"; }
start=$SECONDS
kg run --method reference --ops "$ops" --db "$db" --name ref-cuda --device cuda --quick-timing
kg run --method reference --ops "$ops" --db "$db" --name ref-interpreter --device cpu
kg rejudge --run ref-cuda --platform cpu --db "$db"
kg rejudge --run ref-interpreter --platform cuda --db "$db" --quick-timing
kg rejudge --run ref-cuda --platform cuda --db "$db" --name ref-cuda@cuda-again --quick-timing
kg report --view MC --db "$db" | tee "$dest/mc-transfer.md"
kg report --view MC --db "$db" --format json > "$dest/mc-transfer.json"
echo "mc_transfer: $((SECONDS - start)) s for ops $ops" | tee -a "$dest/mc-transfer.md"
