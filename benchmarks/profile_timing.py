"""Where the timing phase spends its wall time, beyond the timed calls themselves: the shipped
solutions of a few operators timed in this process under cProfile, the hottest functions printed.

    python benchmarks/profile_timing.py --ops aten::_softmax,aten::bmm --out DIR   (on a CUDA GPU)
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

from kernelgenbench.suite import registry
from kernelgenbench.verify.pipeline import time_candidate
from kernelgenbench.verify.timing import TimingConfig

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", required=True)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    report = io.StringIO()
    for op_id in args.ops.split(","):
        op = registry.get(op_id)
        path = ROOT / "solutions" / op.source / f"{op.name}.py"
        profiler = cProfile.Profile()
        t0 = time.perf_counter()
        verdict = profiler.runcall(time_candidate, op, path, args.device, 1, TimingConfig.quick(), args.device)
        wall = time.perf_counter() - t0
        report.write(f"\n## {op_id}: {verdict.status.value} ({verdict.reason}) in {wall:.2f} s\n")
        for c in verdict.cases:
            report.write(f"  {c.seconds or 0:.2f} s  {c.reason}  {c.case[:100]}\n")
        stats = pstats.Stats(profiler, stream=report)
        stats.sort_stats("cumulative").print_stats(40)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "profile-timing.txt").write_text(report.getvalue())
    print(report.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
