"""Where a timing worker spends its wall time, beyond the timed calls themselves: the shipped solutions
of a few operators, each timed under cProfile in a fresh process whose Triton cache its verification
has just filled, as in a run (one cache per source text, verification first). On the H200 an
operator's first case held the GPU a median 0.73 s beyond compiling, its other cases 0.01 s
(benchmarks/results/README.md, session I): this says what that first case does.

    python benchmarks/profile_timing.py --ops aten::neg,aten::clone --out DIR   (on a CUDA GPU)
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from kernelgenbench.platforms import detect
from kernelgenbench.suite import registry
from kernelgenbench.verify.pipeline import Plan, time_candidate, verify
from kernelgenbench.verify.timing import TimingConfig

ROOT = Path(__file__).resolve().parents[1]


def _solution(op_id: str) -> Path:
    op = registry.get(op_id)
    return ROOT / "solutions" / op.source / f"{op.name}.py"


def child(op_id: str, device: str, step: str, tier: str) -> int:
    """One step in this (fresh) process: `verify` fills the Triton cache, `time` is profiled."""
    op = registry.get(op_id)
    if step == "verify":
        platform = detect(device)
        verdict = verify(op, _solution(op_id), device, 1, Plan.on(platform, sizes=("small",) if tier == "small"
                                                                 else None), platform.name)
        print(f"verified {op_id}: {verdict.status.value}")
        return 0
    profiler = cProfile.Profile()
    t0 = time.perf_counter()
    config = replace(TimingConfig.quick(), tiers=(tier,))
    verdict = profiler.runcall(time_candidate, op, _solution(op_id), device, 1, config, device)
    wall = time.perf_counter() - t0
    print(f"\n## {op_id}: {verdict.status.value} ({verdict.reason}) in {wall:.2f} s")
    for case in verdict.extra.get("timing", {}).get("cases", []):
        phases = ", ".join(f"{k} {v:.3f}" for k, v in case["phases_s"].items() if v >= 0.001)
        print(f"  {case['case'][:90]}\n    {phases}")
    for order in ("cumulative", "tottime"):
        report = io.StringIO()
        pstats.Stats(profiler, stream=report).sort_stats(order).print_stats(30)
        print(report.getvalue())
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", required=True)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--tier", default="perf", help="the cases timed (small: to try the script on the CPU)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--child", nargs=2, metavar=("OP", "STEP"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child[0], args.device, args.child[1], args.tier)
    out = []
    for op_id in args.ops.split(","):
        registry.get(op_id)  # an unknown operator is an error here, not in a child
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, TRITON_CACHE_DIR=cache)
            for step in ("verify", "time"):
                command = [sys.executable, __file__, "--ops", op_id, "--device", args.device, "--tier", args.tier,
                           "--out", str(args.out), "--child", op_id, step]
                done = subprocess.run(command, env=env, capture_output=True, text=True)
                out.append(done.stdout + (done.stderr[-2000:] if done.returncode else ""))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "profile-timing.txt").write_text("\n".join(out))
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
