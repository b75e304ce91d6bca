"""The cuBLAS references against libcublas itself, recorded as a table: every case of every cuBLAS
routine, the library's output judged as if it were a candidate (within the routine's tolerance of
the float64 truth, with the reference run in the working dtype as the native error the tolerance
scales: judged against its own error, the library would pass by construction). Any disagreement is
a bug in a reference (or a tolerance) until shown otherwise.

    python benchmarks/cublas_agreement.py --sizes small,large --seeds 2 --out DIR     (on a CUDA GPU)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

from kernelgenbench.platforms import detect, environment
from kernelgenbench.suite import registry
from kernelgenbench.suite.cublas.library import CublasError
from kernelgenbench.suite.inputs import clone_values
from kernelgenbench.verify.correctness import case_inputs, check_values, expected_outputs, outputs_of


def judge_library(op, sizes: tuple[str, ...], seeds: int, device: str) -> dict:
    """Every case of `op` over `seeds` seeds: how many the library passes, and the worst margin."""
    compared, disagreements, refused, worst, worst_case = 0, [], [], 0.0, ""
    for case in op.select_cases(sizes=sizes):
        ov = op.overload(case.overload)
        for seed in range(seeds):
            values = case_inputs(case, seed, device)
            try:
                expected = expected_outputs(op, ov, values, device)
            except CublasError as e:
                refused.append(f"{case.name}: {e}")
                break
            working = clone_values(values)
            call_args, kwargs = ov.split(working)
            in_dtype = outputs_of(ov, ov.reference(*call_args, **kwargs), working)
            found = check_values(op, ov, values, list(expected.native), expected._replace(native=in_dtype), seed)
            compared += 1
            if not found.ok:
                disagreements.append(f"{case.name} (seed {seed}): {found.reason}")
            elif found.figures is not None and found.figures.ratio > worst:
                worst, worst_case = found.figures.ratio, case.name
            del values, expected
        if device == "cuda":
            torch.cuda.empty_cache()
    return {"op": op.id, "library": op.native_is_library(device), "compared": compared,
            "disagreements": disagreements, "refused": refused, "worst_ratio": worst, "worst_case": worst_case}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="small,large")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--ops", default=None, help="comma-separated routines (default: all specified)")
    ap.add_argument("--device", default="cuda", help="cpu only checks this script (no libcublas there)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--update", action="store_true",
                    help="keep the rows of OUT's table for the routines not measured now")
    args = ap.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        print("cublas_agreement.py needs a CUDA GPU: libcublas is the other side of the comparison")
        return 2
    wanted = set(args.ops.split(",")) if args.ops else None
    sizes = tuple(args.sizes.split(","))
    start = time.perf_counter()
    rows = []
    for op in (o for o in registry.specified() if o.source == "cublas" and (wanted is None or o.id in wanted)):
        t0 = time.perf_counter()
        row = judge_library(op, sizes, args.seeds, args.device)
        row["seconds"] = round(time.perf_counter() - t0, 1)
        rows.append(row)
        print(f"{op.id}: {row['compared']} compared, {len(row['disagreements'])} disagreements, "
              f"worst {row['worst_ratio']:.3g} ({row['seconds']} s)", flush=True)
        for d in row["disagreements"][:3] + row["refused"]:
            print(f"    {d}", flush=True)
    env = environment(detect(args.device))
    measured = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    for r in rows:
        r["measured"] = measured
    table = args.out / "cublas-agreement-h200.json"
    if args.update and table.exists():  # the other routines' rows as they were measured
        again = {r["op"] for r in rows}
        kept = [r for r in json.loads(table.read_text())["rows"] if r["op"] not in again]
        rows = sorted(kept + rows, key=lambda r: r["op"])
    command = f"benchmarks/cublas_agreement.py --sizes {args.sizes} --seeds {args.seeds}"
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "cublas-agreement-h200.md").write_text(render(rows, env, command, time.perf_counter() - start))
    table.write_text(json.dumps({"environment": env, "rows": rows}, indent=1))
    bad = sum(len(r["disagreements"]) + len(r["refused"]) for r in rows)
    return 1 if bad or not all(r["library"] for r in rows) else 0


def render(rows: list[dict], env: dict, command: str, seconds: float) -> str:
    disagreements = sum(len(r["disagreements"]) for r in rows)
    refused = sum(len(r["refused"]) for r in rows)
    lines = ["# cuBLAS references against libcublas", "",
             f"Measured on {env['device']}, driver {env.get('driver')}, {env.get('runtime')}, torch {env['torch']}, "
             f"Triton {env['triton']}, Python {env.get('python')} (`{command}`). Each case's libcublas output is "
             "judged as a candidate would be: within the routine's tolerance of the float64 truth, the tolerance "
             "scaled by the error of the reference run in the working dtype (never by the library's own error). "
             "Worst error / tolerance is over the cases that agree.", "",
             f"**{len(rows)} routines, {sum(r['compared'] for r in rows)} case draws, {disagreements} disagreements, "
             f"{refused} cases libcublas refuses**; the last run took {seconds:.0f} s.", "",
             "| routine | baseline is libcublas | case draws | disagreements | cases libcublas refuses | "
             "worst error / tolerance | worst case | measured |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| `{r['op']}` | {'yes' if r['library'] else 'NO'} | {r['compared']} | "
                     f"{len(r['disagreements'])} | {len(r['refused'])} | {r['worst_ratio']:.3g} | {r['worst_case']} | "
                     f"{r.get('measured', '')} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
